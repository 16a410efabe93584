/* test_option_table.c — a command's options as one table (cli/option_table.h):
 * the parser on a table of the test's own, and `report`, whose options and
 * --help come from its table. Every parse error names the option and what it
 * expected. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>
#include <criterion/redirect.h>

#include "cli/option_table.h"
#include "core/util.h"
#include "testutil.h"

enum { T_OUT, T_FLAG, T_MANY, T_N };
static const opt_row ROWS[T_N] = {
    [T_OUT] = {"--out", "-o", OPT_VALUE, "FILE", 0, "where"},
    [T_FLAG] = {"--quiet", NULL, OPT_FLAG, NULL, 0, "say less"},
    [T_MANY] = {"--add", NULL, OPT_VALUE, "X", 3, "one more"},
};
static const opt_table TABLE = {"demo", "a demonstration", ROWS, T_N, "WORD...", 2};

static int parse(const char *const *words, opt_given *g, const char **ops, size_t *n)
{
    char *argv[16];
    int argc = 0;
    argv[argc++] = "isotrain-conform";
    argv[argc++] = "demo";
    for (; *words; words++)
        argv[argc++] = (char *)*words;
    return opt_parse(&TABLE, argc, argv, 2, g, ops, n);
}

Test(option_table, values_flags_repeats_and_operands)
{
    opt_given g[T_N];
    const char *ops[2];
    size_t n;
    const char *w[] = {"a", "--out", "x", "--add=1", "-", "--quiet", "--add", "2", "-o", "y", NULL};
    cr_assert_eq(parse(w, g, ops, &n), 0);
    cr_assert_str_eq(opt_value(g, T_OUT), "y", "the last of a once-only option counts");
    cr_assert_eq(g[T_FLAG].n, 1);
    cr_assert_eq(g[T_MANY].n, 2);
    cr_assert_str_eq(g[T_MANY].val[0], "1");
    cr_assert_str_eq(g[T_MANY].val[1], "2");
    cr_assert_eq(n, 2);
    cr_assert_str_eq(ops[0], "a");
    cr_assert_str_eq(ops[1], "-");
}

Test(option_table, each_misuse_is_refused, .init = cr_redirect_stderr)
{
    static const char *const bad[][5] = {
        {"--nope", NULL},                 /* unknown */
        {"--out", NULL},                  /* a value missing */
        {"--quiet=1", NULL},              /* a flag with a value */
        {"--add", "1", "--add", "2", NULL}, /* ... and a fourth below */
        {"a", "b", "c", NULL},            /* more operands than the table takes */
    };
    opt_given g[T_N];
    const char *ops[2];
    size_t n;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const char *w[8];
        size_t k = 0;
        for (; bad[i][k]; k++)
            w[k] = bad[i][k];
        if (i == 3)
            w[k++] = "--add=3", w[k++] = "--add=4";
        w[k] = NULL;
        cr_assert_eq(parse(w, g, ops, &n), 2, "case %zu accepted", i);
    }
    fflush(stderr);
    cr_assert_stderr_neq_str("");
}

Test(option_table, help_is_generated_from_the_rows, .init = cr_redirect_stdout)
{
    opt_given g[T_N];
    const char *ops[2];
    size_t n;
    const char *w[] = {"--help", NULL};
    cr_assert_eq(parse(w, g, ops, &n), 1);
    fflush(stdout);
    cr_assert_stdout_eq_str("usage: isotrain-conform demo [--out FILE] [--quiet] [--add X]... WORD...\n"
                            "a demonstration\n"
                            "  -o, --out FILE             where\n"
                            "  --quiet                    say less\n"
                            "  --add X                    one more (at most 3)\n");
}

/* `report` through its table: the errors name the option and what it
 * expected; --help lists every option. */
Test(option_table, report_names_the_option_and_what_it_expected)
{
    static const struct {
        const char *args[7];
        const char *says;
    } c[] = {
        {{"--hosts", NULL}, "isotrain-conform report: --hosts expects FILE, got nothing"},
        {{"--bogus", "-o", "x.html", NULL}, "isotrain-conform report: unknown option '--bogus'"},
        {{"--allow-unsigned=yes", "-o", "x.html", NULL}, "isotrain-conform report: --allow-unsigned takes no value"},
        {{"--divergence=a", "--divergence=b", "--divergence=c", "--divergence=d", "--divergence=e", NULL},
         "isotrain-conform report: --divergence: at most 4 of them"},
        {{"--allow-unsigned", NULL}, "isotrain-conform report: give the page to write: -o PAGE.html"},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        const char *const *a = c[i].args;
        tu_result r = tu_conform("report", a[0], a[1], a[2], a[3], a[4], a[5], a[6]);
        cr_assert_eq(r.code, 2, "case %zu: exit %d\n%s", i, r.code, r.err);
        tu_assert_has(r.err, c[i].says);
        tu_assert_has(r.err, "usage: isotrain-conform report [--output PAGE.html]");
        tu_result_free(&r);
    }
    tu_result r = tu_conform("report", "--help", NULL);
    cr_assert_eq(r.code, 0, "%s", r.err);
    static const char *const rows[] = {"-o, --output PAGE.html", "--hosts FILE", "--vectors DIR", "--allowed-signers FILE",
                                       "--allow-unsigned", "--divergence CSV", "--date TEXT", "--readme-href HREF"};
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        tu_assert_has(r.out, rows[i]);
    tu_result_free(&r);
}
