/* option_table.c — see option_table.h. */
#include "cli/option_table.h"

#include <string.h>

/* The row an option word names ("--hosts", "-o"), or -1. */
static int find_row(const opt_table *t, const char *flag)
{
    for (size_t i = 0; i < t->n_rows; i++)
        if (!strcmp(flag, t->rows[i].name) || (t->rows[i].alias && !strcmp(flag, t->rows[i].alias)))
            return (int)i;
    return -1;
}

static int fail(const opt_table *t, const char *fmt, const char *a, const char *b)
{
    fprintf(stderr, "isotrain-conform %s: ", t->command);
    fprintf(stderr, fmt, a, b);
    fputc('\n', stderr);
    opt_usage(stderr, t);
    return 2;
}

void opt_usage(FILE *o, const opt_table *t)
{
    fprintf(o, "usage: isotrain-conform %s", t->command);
    for (size_t i = 0; i < t->n_rows; i++) {
        const opt_row *r = &t->rows[i];
        fprintf(o, " [%s%s%s]%s", r->name, r->kind == OPT_VALUE ? " " : "", r->kind == OPT_VALUE ? r->arg : "",
                r->max > 1 ? "..." : "");
    }
    fprintf(o, " %s\n%s\n", t->operands, t->summary);
    for (size_t i = 0; i < t->n_rows; i++) {
        const opt_row *r = &t->rows[i];
        char spell[96];
        snprintf(spell, sizeof spell, "%s%s%s%s%s", r->alias ? r->alias : "", r->alias ? ", " : "", r->name,
                 r->kind == OPT_VALUE ? " " : "", r->kind == OPT_VALUE ? r->arg : "");
        fprintf(o, "  %-26s %s", spell, r->help);
        if (r->max > 1)
            fprintf(o, " (at most %zu)", r->max);
        fputc('\n', o);
    }
}

const char *opt_value(const opt_given *given, size_t i)
{
    return given[i].n ? given[i].val[given[i].n - 1] : NULL;
}

/* One option word at argv[*i] (its value maybe joined by '=' or the next
 * word, which *i then passes). 0, 1 for --help, 2 after a message. */
static int one_option(const opt_table *t, int argc, char **argv, int *i, opt_given *given)
{
    const char *a = argv[*i], *eq = strncmp(a, "--", 2) ? NULL : strchr(a, '=');
    char flag[64];
    snprintf(flag, sizeof flag, "%.*s", eq ? (int)(eq - a) : (int)strlen(a), a);
    if (!strcmp(flag, "--help") || !strcmp(flag, "-h")) {
        opt_usage(stdout, t);
        return 1;
    }
    int k = find_row(t, flag);
    if (k < 0)
        return fail(t, "unknown option '%.64s'%s", flag, "");
    const opt_row *r = &t->rows[k];
    const char *val = eq ? eq + 1 : NULL;
    if (r->kind == OPT_FLAG && val)
        return fail(t, "%s takes no value%s", r->name, "");
    if (r->kind == OPT_VALUE && !val) {
        if (*i + 1 >= argc)
            return fail(t, "%s expects %s, got nothing", r->name, r->arg);
        val = argv[++*i];
    }
    size_t max = r->max ? r->max : 1;
    if (max > OPT_MAX_VALUES)
        max = OPT_MAX_VALUES;
    if (given[k].n == max && max > 1) {
        char most[32];
        snprintf(most, sizeof most, "%zu", max);
        return fail(t, "%s: at most %s of them", r->name, most);
    }
    if (given[k].n == max) /* once: the last one given counts, as before */
        given[k].n = 0;
    given[k].val[given[k].n++] = val;
    return 0;
}

int opt_parse(const opt_table *t, int argc, char **argv, int first, opt_given *given, const char **operands,
              size_t *n_operands)
{
    memset(given, 0, t->n_rows * sizeof *given);
    *n_operands = 0;
    for (int i = first; i < argc; i++) {
        const char *a = argv[i];
        if (a[0] != '-' || !strcmp(a, "-")) {
            if (*n_operands == t->max_operands) {
                char most[32];
                snprintf(most, sizeof most, "%zu", t->max_operands);
                return fail(t, "too many operands %s (at most %s)", t->operands, most);
            }
            operands[(*n_operands)++] = a;
            continue;
        }
        int rc = one_option(t, argc, argv, &i, given);
        if (rc)
            return rc;
    }
    return 0;
}
