/* version.c — compiled with -DCONFORM_GIT_REV="\"...\"" (mk/conformance.mk). */
#include "core/version.h"

#ifndef CONFORM_GIT_REV
#define CONFORM_GIT_REV "unknown"
#endif

const char *conform_git_revision(void)
{
    return CONFORM_GIT_REV;
}
