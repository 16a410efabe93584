/* test_option_table.c — the command line as one table (cli/option_table.h,
 * the rows in cli/cli_args.c): the engine on a table of the test's own, then
 * the runner itself. Each class of bad input gives exit 2 and a message
 * naming the option and what it expected; --help, global and per command,
 * lists every row of the table. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "cli/option_table.h"
#include "core/util.h"
#include "testutil.h"

/* ---- the engine on a table of the test's own ---- */

static int add_many(conform_args *a, const char *v, char *err, size_t cap)
{
    (void)err, (void)cap;
    a->divergence[a->n_divergence++] = v;
    return 0;
}

static const opt_row ROWS[] = {
    {"--out", "-o", OPT_TEXT, "FILE", 0, 0, NULL, OPT_IN(CMD_LINT), 0, offsetof(conform_args, output), NULL, "where", 0},
    {"--quiet", NULL, OPT_FLAG, NULL, 0, 0, NULL, OPT_IN(CMD_LINT), 0, offsetof(conform_args, verbose), NULL,
     "say less", 0},
    {"--add", NULL, OPT_TEXT, "X", 0, 0, NULL, OPT_IN(CMD_LINT), 3, 0, add_many, "one more", 0},
    {"--steps", NULL, OPT_UINT, "N", 1, 100, "7", OPT_IN(CMD_LINT), 0, offsetof(conform_args, steps), NULL, "count",
     OPT_GIVEN(timeout_run_given)},
    {"--level", NULL, OPT_CHOICE, "ops|train", 0, 0, "ops", OPT_IN(CMD_LINT), 0, offsetof(conform_args, level), NULL,
     "which", 0},
    {"--elsewhere", NULL, OPT_FLAG, NULL, 0, 0, NULL, OPT_IN(CMD_SIGN), 0, offsetof(conform_args, list), NULL,
     "another command's", 0},
};
static const opt_command CMDS[] = {{CMD_LINT, "demo", "WORD...", 2, 0, "a demonstration\n"},
                                   {CMD_SIGN, "other", NULL, 0, 0, "another\n"}};
static const opt_spec SPEC = {"prog", CMDS, 2, ROWS, sizeof ROWS / sizeof ROWS[0], NULL};

static int parse(const char *const *words, conform_args *a, char *err)
{
    char *argv[16];
    int argc = 0;
    argv[argc++] = "prog";
    argv[argc++] = "demo";
    for (; *words; words++)
        argv[argc++] = (char *)*words;
    memset(a, 0, sizeof *a);
    return opt_parse(&SPEC, &CMDS[0], argc, argv, 2, a, err, 256);
}

Test(option_table, values_flags_repeats_defaults_and_operands)
{
    static conform_args a;
    char err[256];
    const char *w[] = {"a", "--out", "x", "--add=1", "-", "--quiet", "--add", "2", "--level=train", NULL};
    cr_assert_eq(parse(w, &a, err), 0, "%s", err);
    cr_assert_str_eq(a.output, "x");
    cr_assert_eq(a.verbose, 1);
    cr_assert_eq(a.n_divergence, 2);
    cr_assert_str_eq(a.divergence[1], "2");
    cr_assert_eq(a.steps, 7, "the row's default, parsed as a given value");
    cr_assert_eq(a.timeout_run_given, 0, "a default is not marked given");
    cr_assert_str_eq(a.level, "train");
    cr_assert_eq(a.n_operands, 2);
    cr_assert_str_eq(a.operands[1], "-");
    /* the given column: the default's own value, given, is marked (--timeout-run's "given: as is") */
    const char *g[] = {"--steps", "7", NULL};
    cr_assert_eq(parse(g, &a, err), 0, "%s", err);
    cr_assert_eq(a.steps, 7);
    cr_assert_eq(a.timeout_run_given, 1, "given on the command line: marked");
    cr_assert_eq(a.verbose, 0, "a row without the column marks nothing");
    const char *h[] = {"x", "--help", NULL};
    cr_assert_eq(parse(h, &a, err), 1, "--help is a request, not an option");
}

Test(option_table, each_misuse_is_refused_and_named)
{
    static const struct {
        const char *w[6];
        const char *says;
    } bad[] = {
        {{"--nope", NULL}, "unknown option '--nope'"},
        {{"--out", NULL}, "--out expects FILE, got nothing"},
        {{"--quiet=1", NULL}, "--quiet takes no value"},
        {{"--steps", "0", NULL}, "--steps expects an integer 1..100"},
        {{"--steps", "101", NULL}, "--steps expects an integer 1..100"},
        {{"--steps", "07", NULL}, "--steps expects an integer 1..100 (decimal, no sign, no leading zero), got '07'"},
        {{"--steps", "+7", NULL}, "--steps expects"},
        {{"--level", "op", NULL}, "--level expects one of ops|train, got 'op'"},
        {{"-o", "a", "--out", "b", NULL}, "--out is given twice"},
        {{"--add=1", "--add=2", "--add=3", "--add=4", NULL}, "--add: at most 3 of them"},
        {{"--elsewhere", NULL}, "--elsewhere is not an option of demo (it is one of other)"},
        {{"a", "b", "c", NULL}, "unexpected argument 'c' (demo takes WORD...)"},
    };
    static conform_args a;
    char err[256];
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = 0;
        cr_assert_eq(parse(bad[i].w, &a, err), -1, "case %zu accepted", i);
        tu_assert_has(err, bad[i].says);
    }
}

/* ---- the runner: every class of bad input, exit 2, the option named ---- */

Test(option_table, the_runner_names_the_option_and_what_it_expected)
{
    static const struct {
        const char *args[8];
        const char *says;
    } c[] = {
        {{"run", "--iut", "x", "--bogus", NULL}, "isotrain-conform run: unknown option '--bogus'"},
        {{"run", "--iut", "x", "--vectors", NULL}, "isotrain-conform run: --vectors expects DIR, got nothing"},
        {{"run", "--iut", "x", "--slowdown", "0", NULL}, "isotrain-conform run: --slowdown expects a number 0.001.."},
        {{"repeat", "--iut", "x", "--profile", "p", "--runs", "1", NULL}, "repeat: --runs expects an integer 2.."},
        {{"run", "--iut", "x", "--steps", "007", NULL}, "run: --steps expects an integer 0..1000000000 (decimal, no "
                                                        "sign, no leading zero), got '007'"},
        {{"run", "--iut", "x", "--seed", "012", NULL}, "run: --seed expects a decimal integer"},
        {{"run", "--iut", "x", "--level", "some", NULL}, "run: --level expects one of ops|train|all, got 'some'"},
        {{"run", "--iut", "x", "--iut", "y", NULL}, "run: --iut is given twice (it is taken once)"},
        {{"verify", "--vectors", "a", "--vectors=b", "r.json", NULL}, "verify: --vectors is given twice"},
        {{"matrix", "--steps", "3", "r.json", NULL}, "matrix: --steps is not an option of matrix (it is one of run, "
                                                     "repeat, vectors)"},
        {{"verify", "--hosts", "h", "r.json", NULL}, "verify: --hosts is not an option of verify"},
        {{"run", "--windows=yes", "--iut", "x", NULL}, "run: --windows takes no value"},
        {{"report", "-o", "p.html", "--divergence=a", "--divergence=b", "--divergence=c", "--divergence=d",
          "--divergence=e"},
         "report: --divergence: at most 4 of them"},
        {{"report", "--allow-unsigned", NULL}, "isotrain-conform report: give the page to write: -o PAGE.html"},
        {{"lint", "a", "b", NULL}, "lint: unexpected argument 'b' (lint takes DIR)"},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        const char *const *a = c[i].args;
        tu_result r = tu_conform(a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], NULL);
        cr_assert_eq(r.code, 2, "case %zu: exit %d\n%s", i, r.code, r.err);
        tu_assert_has(r.err, c[i].says);
        char *usage = xasprintf("usage: isotrain-conform %s ", a[0]);
        tu_assert_has(r.err, usage);
        free(usage);
        tu_result_free(&r);
    }
}

/* "--name ARG" as --help spells a row */
static char *spelled(const opt_row *r)
{
    return r->kind == OPT_FLAG ? xstrdup(r->name) : xasprintf("%s %s", r->name, r->arg);
}

Test(option_table, help_lists_every_row_of_the_table)
{
    const opt_spec *s = cli_spec();
    cr_assert_gt(s->n_rows, 30, "the table has every option of every command");
    tu_result all = tu_conform("--help", NULL);
    cr_assert_eq(all.code, 0, "%s", all.err);
    for (size_t i = 0; i < s->n_cmds; i++) {
        char *cmd = xasprintf("  isotrain-conform %s ", s->cmds[i].name);
        tu_assert_has(all.out, cmd);
        free(cmd);
        /* through the shell: tu_conform would give `run` a receipt to write */
        char *line = xasprintf("'%s' %s --help", tu_env("IT_CONFORM"), s->cmds[i].name);
        tu_result one = tu_sh(line);
        free(line);
        cr_assert_eq(one.code, 0, "%s --help: %s", s->cmds[i].name, one.err);
        for (size_t k = 0; k < s->n_rows; k++) {
            if (!(s->rows[k].cmds & OPT_IN(s->cmds[i].cmd)))
                continue;
            char *row = spelled(&s->rows[k]);
            tu_assert_has(one.out, row);
            free(row);
        }
        tu_result_free(&one);
    }
    for (size_t k = 0; k < s->n_rows; k++) {
        char *row = spelled(&s->rows[k]);
        char *line = xasprintf("\n  %s%s%s", s->rows[k].alias ? s->rows[k].alias : "", s->rows[k].alias ? ", " : "",
                               row);
        tu_assert_has(all.out, line);
        tu_assert_has(all.out, s->rows[k].help);
        free(row);
        free(line);
    }
    tu_result_free(&all);
}

/* --timeout-run S is used as given (levels/time_budget.h): the table's given
 * column tells it from the default, even when S is the default's 600. */
Test(option_table, timeout_run_given_is_told_from_its_default)
{
    static conform_args a;
    char err[256];
    char *plain[] = {"isotrain-conform", "run", "--iut", "x", NULL};
    cr_assert_eq(cli_parse(4, plain, &a, err, sizeof err), 0, "%s", err);
    cr_assert_float_eq(a.timeout_run, 600.0, 0);
    cr_assert_eq(a.timeout_run_given, 0);
    char *given[] = {"isotrain-conform", "run", "--iut", "x", "--timeout-run=600", NULL};
    cr_assert_eq(cli_parse(5, given, &a, err, sizeof err), 0, "%s", err);
    cr_assert_float_eq(a.timeout_run, 600.0, 0);
    cr_assert_eq(a.timeout_run_given, 1);
}
