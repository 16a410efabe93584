/* version.c — compiled with -DCONFORM_GIT_REV="\"...\"" and
 * -DCONFORM_DATADIR="\"...\"" (mk/conformance.mk): where this build comes
 * from and where `make install` puts the published vector sets. */
#include "core/version.h"

#include <sys/stat.h>

#ifndef CONFORM_GIT_REV
#define CONFORM_GIT_REV "unknown"
#endif
#ifndef CONFORM_DATADIR
#define CONFORM_DATADIR "/usr/local/share/isotrain"
#endif

const char *conform_git_revision(void)
{
    return CONFORM_GIT_REV;
}

const char *conform_default_vectors(void)
{
    /* In a source checkout (where every make target runs) the tree's own
     * vectors; anywhere else the installed copy, so an installed runner
     * works from any directory. Either is checked against its manifest
     * before use, so a stray directory of the same name cannot pass as it. */
    static const char *tree = "vectors/" CONFORM_DEFAULT_VECTOR_SET;
    struct stat st;
    if (stat(tree, &st) == 0 && S_ISDIR(st.st_mode))
        return tree;
    return CONFORM_DATADIR "/vectors/" CONFORM_DEFAULT_VECTOR_SET;
}
