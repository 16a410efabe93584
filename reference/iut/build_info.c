/* The keys of `info` that describe the build, for every front end. */
#include <stdio.h>

#include "iut.h"

void iut_print_build(FILE *out, const char *build_flags)
{
#if defined(__GNUC__) && !defined(__clang__)
    fprintf(out, "compiler=gcc %d.%d.%d\n", __GNUC__, __GNUC_MINOR__, __GNUC_PATCHLEVEL__);
#elif defined(__clang__)
    fprintf(out, "compiler=clang %d.%d.%d\n", __clang_major__, __clang_minor__, __clang_patchlevel__);
#else
    fprintf(out, "compiler=unknown\n");
#endif
    fprintf(out, "build_flags=%s\n", build_flags);
}
