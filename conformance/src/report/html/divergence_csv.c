/* divergence_csv.c — `--divergence CSV`: the divergence curve that
 * adapters/pytorch/divergence.py writes (`make pytorch-divergence`:
 * build/pytorch/divergence.csv), columns pair, step, loss_gap and
 * param_maxabs_gap by name (others ignored), quoted as Python's csv module
 * quotes. It is not part of any receipt and the page says so; it is read as
 * strictly as one: every problem names FILE:LINE and what was expected. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/html/report.h"

enum { CSV_CAP = 16 << 20, CSV_ROWS = 1 << 20, CSV_PAIRS = 8, CSV_FIELDS = 32 };

static int bad(const char *file, size_t line, const char *what)
{
    fprintf(stderr, "isotrain-conform report: %s:%zu: %s\n", file, line, what);
    return -1;
}

/* Splits one line into fields (RFC 4180 quotes). Returns the count, or -1. */
static int split(char *line, char **f)
{
    int n = 0;
    char *p = line;
    for (;;) {
        if (n == CSV_FIELDS)
            return -1;
        if (*p == '"') {
            char *w = ++p;
            f[n++] = w;
            for (;;) {
                if (!*p)
                    return -1;
                if (*p == '"' && p[1] == '"')
                    *w++ = '"', p += 2;
                else if (*p == '"') {
                    p++;
                    break;
                } else
                    *w++ = *p++;
            }
            *w = '\0';
            if (*p == ',') {
                p++;
                continue;
            }
            return *p ? -1 : n;
        }
        f[n++] = p;
        char *c = strchr(p, ',');
        if (!c)
            return n;
        *c = '\0';
        p = c + 1;
    }
}

/* A finite non-negative number, or NaN for an empty field; -1 otherwise. */
static int gap(const char *s, double *out)
{
    if (!*s) {
        *out = NAN;
        return 0;
    }
    char *end;
    errno = 0;
    double d = strtod(s, &end);
    if (errno || *end || !isfinite(d) || d < 0)
        return -1;
    *out = d;
    return 0;
}

int rp_divergence_load(const char *file, rp_divergence *d)
{
    memset(d, 0, sizeof *d);
    d->file = xstrdup(file);
    char *data;
    size_t len;
    char err[512];
    uint64_t size;
    if (read_file(file, CSV_CAP, &data, &len, err, sizeof err) != 0 ||
        sha256_file(file, d->sha256, &size, err, sizeof err) != 0) {
        fprintf(stderr, "isotrain-conform report: --divergence: %s\n", err);
        return -1;
    }
    int rc = 0, col[4] = {-1, -1, -1, -1}, ncol = 0;
    static const char *const want[4] = {"pair", "step", "loss_gap", "param_maxabs_gap"};
    size_t line = 0;
    char *p = data, *f[CSV_FIELDS];
    while (rc == 0 && p < data + len) {
        char *nl = memchr(p, '\n', (size_t)(data + len - p));
        char *next = nl ? nl + 1 : data + len;
        size_t body = (size_t)((nl ? nl : data + len) - p);
        if (nl)
            *nl = '\0'; /* without one, read_file's buffer ends in a NUL already */
        if (body && p[body - 1] == '\r')
            p[--body] = '\0';
        line++;
        if (strlen(p) != body)
            rc = bad(file, line, "a NUL byte in the line");
        else if (!*p && !nl)
            break;
        else if ((ncol = split(p, f)) < 0)
            rc = bad(file, line, "not a CSV line (an unterminated quote, or more than 32 fields)");
        else if (line == 1) {
            for (int i = 0; i < ncol; i++)
                for (int k = 0; k < 4; k++)
                    if (!strcmp(f[i], want[k]))
                        col[k] = i;
            for (int k = 0; k < 4 && rc == 0; k++)
                if (col[k] < 0)
                    rc = bad(file, line, "the header must name the columns pair, step, loss_gap and param_maxabs_gap "
                                         "(adapters/pytorch/divergence.py writes them)");
        } else {
            int maxc = col[0] > col[1] ? col[0] : col[1];
            maxc = col[2] > maxc ? col[2] : maxc;
            maxc = col[3] > maxc ? col[3] : maxc;
            char *end;
            errno = 0;
            unsigned long st = ncol > maxc ? strtoul(f[col[1]], &end, 10) : 0;
            double lg = 0, pg = 0;
            if (ncol <= maxc)
                rc = bad(file, line, "fewer fields than the header names");
            else if (!*f[col[0]] || errno || !*f[col[1]] || *end || f[col[1]][0] == '-' || st >= RP_MAX_STEPS)
                rc = bad(file, line, "expected a pair label and a step number (0 to 131071)");
            else if (gap(f[col[2]], &lg) != 0 || gap(f[col[3]], &pg) != 0)
                rc = bad(file, line, "loss_gap and param_maxabs_gap: expected finite numbers >= 0 (or empty)");
            else if (d->n == CSV_ROWS)
                rc = bad(file, line, "more than 1048576 rows");
            else {
                size_t k = 0;
                while (k < d->n_pairs && strcmp(d->pair[k], f[col[0]]) != 0)
                    k++;
                if (k == d->n_pairs) {
                    if (k == CSV_PAIRS) {
                        rc = bad(file, line, "more than 8 pairs");
                        break;
                    }
                    d->pair = xrealloc(d->pair, (k + 1) * sizeof *d->pair);
                    d->pair[d->n_pairs++] = xstrdup(f[col[0]]);
                }
                if (d->n == d->cap) {
                    d->cap = d->cap ? 2 * d->cap : 256;
                    d->row = xrealloc(d->row, d->cap * sizeof *d->row);
                }
                d->row[d->n++] = (struct rp_div_row){k, (uint32_t)st, lg, pg};
            }
        }
        p = next;
    }
    if (rc == 0 && line < 2)
        rc = bad(file, line ? line : 1, "no data rows");
    free(data);
    return rc;
}

void rp_divergence_free(rp_divergence *d)
{
    free(d->file);
    for (size_t i = 0; i < d->n_pairs; i++)
        free(d->pair[i]);
    free(d->pair);
    free(d->row);
    memset(d, 0, sizeof *d);
}
