/* Process and file helpers shared by the tests that run the CLI as a
 * separate process (test_cli.c, test_iut_cli.c, test_ops_server.c). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

char test_tmpdir[64];

const char *test_env(const char *var)
{
    const char *p = getenv(var);
    cr_assert(p && *p, "%s is not set: run the suite through `make test`", var);
    return p;
}

void test_make_tmpdir(void)
{
    strcpy(test_tmpdir, "/tmp/isotrain-test-XXXXXX");
    cr_assert(mkdtemp(test_tmpdir));
}

void test_remove_tmpdir(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", test_tmpdir);
    cr_assert_eq(system(cmd), 0);
}

char *test_slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    cr_assert(f, "cannot open %s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    cr_assert(buf && fread(buf, 1, (size_t)n, f) == (size_t)n);
    buf[n] = '\0';
    fclose(f);
    if (len)
        *len = (size_t)n;
    return buf;
}
