/* version.c — compiled with -DCONFORM_GIT_REV="\"...\"" and
 * -DCONFORM_DATADIR="\"...\"" (mk/conformance.mk): where this build comes
 * from and where `make install` puts the published vector sets. */
#include "core/version.h"

#include <stdlib.h>
#include <stddef.h>
#include <sys/stat.h>

#include "core/util.h"

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

char *conform_vectors_dir(const char *set)
{
    /* In a source checkout (where every make target runs) the tree's own
     * vectors; anywhere else the installed copy, so an installed runner
     * works from any directory. Either is checked against its manifest
     * before use, so a stray directory of the same name cannot pass as it. */
    char *tree = xasprintf("vectors/%s", set);
    struct stat st;
    if (stat(tree, &st) == 0 && S_ISDIR(st.st_mode))
        return tree;
    free(tree);
    return xasprintf("%s/vectors/%s", CONFORM_DATADIR, set);
}

const char *conform_default_vectors(void)
{
    static char *dir;
    if (!dir)
        dir = conform_vectors_dir(CONFORM_DEFAULT_VECTOR_SET);
    return dir;
}

const char *conform_default_allowed_signers(void)
{
    static const char *tree = "vectors/KEYS/allowed_signers";
    static const char *installed = CONFORM_DATADIR "/KEYS/allowed_signers";
    struct stat st;
    if (stat(tree, &st) == 0 && S_ISREG(st.st_mode))
        return tree;
    if (stat(installed, &st) == 0 && S_ISREG(st.st_mode))
        return installed;
    return NULL;
}
