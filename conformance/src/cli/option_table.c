/* option_table.c — see option_table.h. */
#include "cli/option_table.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

const opt_command *opt_find_command(const opt_spec *s, const char *word)
{
    for (size_t i = 0; i < s->n_cmds; i++)
        if (!strcmp(word, s->cmds[i].name))
            return &s->cmds[i];
    return NULL;
}

static int takes(const opt_row *r, const opt_command *c)
{
    return (r->cmds & OPT_IN(c->cmd)) != 0;
}

/* The row an option word names ("--hosts", "-o"), whichever command takes
 * it, or NULL. */
static const opt_row *find_row(const opt_spec *s, const char *flag)
{
    for (size_t i = 0; i < s->n_rows; i++)
        if (!strcmp(flag, s->rows[i].name) || (s->rows[i].alias && !strcmp(flag, s->rows[i].alias)))
            return &s->rows[i];
    return NULL;
}

/* "matrix, report": the commands that take r. */
static void commands_of(const opt_spec *s, const opt_row *r, char *out, size_t cap)
{
    size_t n = 0;
    out[0] = 0;
    for (size_t i = 0; i < s->n_cmds && n < cap; i++)
        if (takes(r, &s->cmds[i]))
            n += (size_t)snprintf(out + n, cap - n, "%s%s", n ? ", " : "", s->cmds[i].name);
}

/* What a value of r must look like, for messages and --help. */
static void expectation(const opt_row *r, char *out, size_t cap)
{
    switch (r->kind) {
    case OPT_CHOICE:
        snprintf(out, cap, "one of %s", r->arg);
        break;
    case OPT_UINT:
        snprintf(out, cap, "an integer %.0f..%.0f", r->lo, r->hi);
        break;
    case OPT_REAL:
        snprintf(out, cap, "a number %g..%g", r->lo, r->hi);
        break;
    default:
        snprintf(out, cap, "%s", r->arg ? r->arg : "nothing");
    }
}

/* A decimal integer: digits only, "0" or no leading zero. */
static int plain_decimal(const char *v)
{
    if (!*v || (v[0] == '0' && v[1]))
        return 0;
    for (const char *p = v; *p; p++)
        if (*p < '0' || *p > '9')
            return 0;
    return 1;
}

/* VAL into r's field by its kind; -1 with what was expected in err. */
static int store_kind(const opt_row *r, conform_args *a, const char *val, char *err, size_t cap)
{
    char *field = (char *)a + r->off, want[96], *end;
    expectation(r, want, sizeof want);
    if (r->kind == OPT_FLAG) {
        *(int *)(void *)field = 1;
        return 0;
    }
    if (r->kind == OPT_UINT) {
        errno = 0;
        double d = plain_decimal(val) ? strtod(val, &end) : -1;
        if (errno || !(d >= r->lo && d <= r->hi)) {
            snprintf(err, cap, "%s expects %s (decimal, no sign, no leading zero), got '%.64s'", r->name, want, val);
            return -1;
        }
        *(long *)(void *)field = (long)d;
        return 0;
    }
    if (r->kind == OPT_REAL) {
        errno = 0;
        double d = strtod(val, &end);
        if (errno || end == val || *end || !isfinite(d) || !(d >= r->lo && d <= r->hi)) {
            snprintf(err, cap, "%s expects %s, got '%.64s'", r->name, want, val);
            return -1;
        }
        *(double *)(void *)field = d;
        return 0;
    }
    if (r->kind == OPT_CHOICE) {
        size_t n = strlen(val);
        const char *p = strstr(r->arg, val);
        if (!n || !p || (p != r->arg && p[-1] != '|') || (p[n] && p[n] != '|')) {
            snprintf(err, cap, "%s expects %s, got '%.64s'", r->name, want, val);
            return -1;
        }
    }
    *(const char **)(void *)field = val;
    return 0;
}

static int store(const opt_row *r, conform_args *a, const char *val, char *err, size_t cap)
{
    if (!r->store)
        return store_kind(r, a, val, err, cap);
    char why[400];
    if (r->store(a, val, why, sizeof why) == 0)
        return 0;
    snprintf(err, cap, "%s %s", r->name, why);
    return -1;
}

/* The rows' defaults, parsed as given values. */
static void defaults(const opt_spec *s, conform_args *a)
{
    char err[256];
    for (size_t i = 0; i < s->n_rows; i++)
        if (s->rows[i].dflt && store(&s->rows[i], a, s->rows[i].dflt, err, sizeof err) != 0)
            abort(); /* a default the row's own kind refuses: a defect of the table */
}

/* The option word at argv[*i] (its value joined by '=' or the next word,
 * which *i then passes), counted in given[]. 0, 1 for --help, -1. */
static int one_option(const opt_spec *s, const opt_command *c, int argc, char **argv, int *i, size_t *given,
                      conform_args *a, char *err, size_t cap)
{
    const char *w = argv[*i], *eq = strncmp(w, "--", 2) ? NULL : strchr(w, '=');
    char flag[64], cmds[160];
    snprintf(flag, sizeof flag, "%.*s", eq ? (int)(eq - w) : (int)strlen(w), w);
    if (!strcmp(flag, "--help") || !strcmp(flag, "-h"))
        return 1;
    const opt_row *r = find_row(s, flag);
    if (!r)
        return snprintf(err, cap, "unknown option '%s' (%s %s --help lists its options)", flag, s->program, c->name), -1;
    commands_of(s, r, cmds, sizeof cmds);
    if (!takes(r, c))
        return snprintf(err, cap, "%s is not an option of %s (it is one of %s)", r->name, c->name, cmds), -1;
    const char *val = eq ? eq + 1 : NULL;
    if (r->kind == OPT_FLAG && val)
        return snprintf(err, cap, "%s takes no value", r->name), -1;
    if (r->kind != OPT_FLAG && !val) {
        if (*i + 1 >= argc)
            return snprintf(err, cap, "%s expects %s, got nothing", r->name, r->arg), -1;
        val = argv[++*i];
    }
    size_t k = (size_t)(r - s->rows), max = r->max ? r->max : 1;
    if (given[k] == max)
        return max == 1 ? snprintf(err, cap, "%s is given twice (it is taken once)", r->name)
                        : snprintf(err, cap, "%s: at most %zu of them", r->name, max),
               -1;
    given[k]++;
    if (r->given)
        *(int *)(void *)((char *)a + r->given - 1) = 1;
    return store(r, a, val ? val : "", err, cap);
}

/* "-- PROGRAM [ARG]...": the IUT's argv form, the rest of argv. */
static int iut_after_dashes(int argc, char **argv, int i, conform_args *a, char *err, size_t cap)
{
    if (a->n_iut_argv)
        return snprintf(err, cap, "the IUT is given twice (--iut-exec and --)"), -1;
    size_t most = sizeof a->iut_argv / sizeof a->iut_argv[0] - 1;
    for (; i < argc; i++) {
        if (a->n_iut_argv == most)
            return snprintf(err, cap, "-- PROGRAM [ARG]...: at most %zu arguments", most - 1), -1;
        a->iut_argv[a->n_iut_argv++] = argv[i];
    }
    if (!a->n_iut_argv)
        return snprintf(err, cap, "-- needs the IUT's PROGRAM [ARG]..."), -1;
    return 0;
}

static int operand(const opt_command *c, const char *w, conform_args *a, char *err, size_t cap)
{
    if (a->n_operands == c->max_operands)
        return snprintf(err, cap, "unexpected argument '%.64s' (%s takes %s)", w, c->name,
                        c->max_operands ? c->operands : "no operand"),
               -1;
    a->operands[a->n_operands++] = w;
    return 0;
}

int opt_parse(const opt_spec *s, const opt_command *c, int argc, char **argv, int first, conform_args *a,
              char *err, size_t cap)
{
    size_t given[OPT_MAX_ROWS] = {0};
    if (s->n_rows > OPT_MAX_ROWS)
        abort();
    defaults(s, a);
    for (int i = first; i < argc; i++) {
        const char *w = argv[i];
        int rc;
        if (!strcmp(w, "--")) {
            if (c->iut_after_dashes)
                return iut_after_dashes(argc, argv, i + 1, a, err, cap);
            for (i++; i < argc; i++) /* the rest are operands, even "-x" */
                if (operand(c, argv[i], a, err, cap) != 0)
                    return -1;
            return 0;
        }
        if (w[0] != '-' || !strcmp(w, "-"))
            rc = operand(c, w, a, err, cap);
        else
            rc = one_option(s, c, argc, argv, &i, given, a, err, cap);
        if (rc)
            return rc;
    }
    return 0;
}

/* "--level ops|train|all", "--runs N", "--windows" */
static void spelling(const opt_row *r, int with_alias, char *out, size_t cap)
{
    int alias = with_alias && r->alias;
    snprintf(out, cap, "%s%s%s%s%s", alias ? r->alias : "", alias ? ", " : "", r->name, r->kind == OPT_FLAG ? "" : " ",
             r->kind == OPT_FLAG ? "" : r->arg);
}

/* "PROGRAM CMD [--x X]... OPERANDS" */
static void usage_body(FILE *o, const opt_spec *s, const opt_command *c)
{
    fprintf(o, "%s %s", s->program, c->name);
    for (size_t i = 0; i < s->n_rows; i++) {
        char sp[96];
        if (!takes(&s->rows[i], c))
            continue;
        spelling(&s->rows[i], 0, sp, sizeof sp);
        fprintf(o, " [%s]%s", sp, s->rows[i].max > 1 ? "..." : "");
    }
    fprintf(o, "%s%s%s\n", c->operands ? " " : "", c->operands ? c->operands : "",
            c->iut_after_dashes ? " [-- PROGRAM [ARG]...]" : "");
}

void opt_usage_line(FILE *o, const opt_spec *s, const opt_command *c)
{
    fputs("usage: ", o);
    usage_body(o, s, c);
}

/* One row's help line; with the commands that take it when all is set. */
static void row_help(FILE *o, const opt_spec *s, const opt_row *r, int all)
{
    char sp[96], want[96], cmds[160];
    spelling(r, 1, sp, sizeof sp);
    fprintf(o, "  %-28s %s", sp, r->help);
    if (r->kind == OPT_UINT || r->kind == OPT_REAL) {
        expectation(r, want, sizeof want);
        fprintf(o, "; %s", want);
    }
    if (r->dflt)
        fprintf(o, "; default %s", r->dflt);
    if (r->max > 1)
        fprintf(o, "; at most %zu times", r->max);
    if (all) {
        commands_of(s, r, cmds, sizeof cmds);
        fprintf(o, " [%s]", cmds);
    }
    fputc('\n', o);
}

void opt_command_help(FILE *o, const opt_spec *s, const opt_command *c)
{
    opt_usage_line(o, s, c);
    fputs(c->summary, o);
    for (size_t i = 0; i < s->n_rows; i++)
        if (takes(&s->rows[i], c))
            row_help(o, s, &s->rows[i], 0);
    if (c->iut_after_dashes)
        fprintf(o, "  %-28s %s\n", "-- PROGRAM [ARG]...", "the IUT's argv form, as --iut-exec and --iut-arg");
}

void opt_help(FILE *o, const opt_spec *s)
{
    fputs("usage:\n", o);
    for (size_t i = 0; i < s->n_cmds; i++) {
        fputs("  ", o);
        usage_body(o, s, &s->cmds[i]);
    }
    fprintf(o, "  %s --version | --help | COMMAND --help\n\n", s->program);
    for (size_t i = 0; i < s->n_cmds; i++) {
        const char *p = s->cmds[i].summary;
        for (int first = 1; *p; first = 0) { /* the summary's lines, indented under the name */
            size_t n = strcspn(p, "\n");
            fprintf(o, "%-8s %.*s\n", first ? s->cmds[i].name : "", (int)n, p);
            p += n + (p[n] == '\n');
        }
    }
    fputs("\noptions (the commands that take each in brackets):\n", o);
    for (size_t i = 0; i < s->n_rows; i++)
        row_help(o, s, &s->rows[i], 1);
    if (s->epilogue)
        fprintf(o, "\n%s", s->epilogue);
}
