/* table.c — one profile's table: hosts as rows (through mx_rows_view), the
 * vectors' checkpoint steps of that profile and its windows as columns, a
 * digest prefix or a window's verdict per cell, and whether every host
 * agrees. */
#include <cjson/cJSON.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/matrix/matrix.h"

void mx_columns_of(const mrow *rows, size_t n, columns *c)
{
    c->n = c->n_win = 0;
    for (size_t i = 0; i < n; i++) {
        const mreceipt *r = rows[i].r;
        if (!r)
            continue;
        for (size_t k = 0; k < r->n_ck; k++) {
            size_t j = 0;
            while (j < c->n && c->step[j] != r->ck_step[k])
                j++;
            if (j == c->n && c->n < MAX_CK) {
                size_t at = c->n++;
                while (at > 0 && c->step[at - 1] > r->ck_step[k]) {
                    c->step[at] = c->step[at - 1];
                    at--;
                }
                c->step[at] = r->ck_step[k];
            }
        }
        const mprofile *m = r->build_failed ? NULL : r->view;
        for (size_t k = 0; m && k < m->n_win; k++) {
            size_t j = 0;
            while (j < c->n_win && (c->win[j].from != m->win[k].from || c->win[j].to != m->win[k].to))
                j++;
            if (j == c->n_win && c->n_win < MX_MAX_WINDOWS) {
                size_t at = c->n_win++;
                while (at > 0 && c->win[at - 1].from > m->win[k].from) {
                    c->win[at] = c->win[at - 1];
                    at--;
                }
                c->win[at].from = m->win[k].from, c->win[at].to = m->win[k].to;
            }
        }
    }
}

/* The receipt's checkpoint at step s, or -1. */
int mx_ck_index(const mreceipt *r, uint32_t s)
{
    if (!r || r->build_failed)
        return -1;
    for (size_t k = 0; k < r->n_ck; k++)
        if (r->ck_step[k] == s)
            return (int)k;
    return -1;
}

/* A host certified by windows ran its profile to steps_run only: a
 * checkpoint past that is not in its certification (its windows are). */
static int beyond_prefix(const mreceipt *r, uint32_t s)
{
    return r && !r->build_failed && (r->by_windows || r->prefix_only) && r->view && r->view->steps_run >= 0 &&
           s > (uint32_t)r->view->steps_run;
}

/* Every host expected to pass has this step's checkpoint, all identical and
 * equal to the vectors' (a host certified by windows only where its prefix
 * reached: when no host reached it, the column compares nothing and does
 * not disagree). Returns 1 agree, 0 not; *count hosts compared. */
int mx_column_agrees(const mrow *rows, size_t n, uint32_t s, size_t *count)
{
    const char *first = NULL;
    int agree = 1;
    size_t required = 0;
    *count = 0;
    for (size_t i = 0; i < n; i++) {
        if (rows[i].h->xfail || beyond_prefix(rows[i].r, s))
            continue;
        required++;
        int k = mx_ck_index(rows[i].r, s);
        if (k < 0 || !rows[i].r->ck_sha[k][0] || !rows[i].r->ck_same[k]) {
            agree = 0;
            continue;
        }
        (*count)++;
        if (!first)
            first = rows[i].r->ck_sha[k];
        else if (strcmp(first, rows[i].r->ck_sha[k]) != 0)
            agree = 0;
    }
    return agree && (*count > 0 || required == 0);
}

/* The whole profile ran without --windows and passed: every step of the
 * window is certified by the run itself. */
static int whole_run(const mreceipt *r)
{
    const mprofile *m = r ? r->view : NULL;
    return m && !r->by_windows && mx_passed(r) && m->first_diff < 0 && m->steps_in_vectors >= 0 &&
           m->steps_run == m->steps_in_vectors;
}

int mx_window_agrees(const mrow *rows, size_t n, uint32_t from, uint32_t to, size_t *count)
{
    int agree = 1;
    *count = 0;
    for (size_t i = 0; i < n; i++) {
        if (rows[i].h->xfail)
            continue;
        const mwindow *x = mx_window_of(rows[i].r, from, to);
        if (x ? x->pass : whole_run(rows[i].r))
            (*count)++;
        else
            agree = 0;
    }
    return agree && *count > 0;
}

int mx_table_agrees(const mrow *rows, size_t n, const columns *c)
{
    size_t cnt;
    int ok = 1;
    for (size_t j = 0; j < c->n; j++)
        ok &= mx_column_agrees(rows, n, c->step[j], &cnt);
    for (size_t j = 0; j < c->n_win; j++)
        ok &= mx_window_agrees(rows, n, c->win[j].from, c->win[j].to, &cnt);
    return ok;
}

static void cell(const mrow *w, uint32_t s, char *buf, size_t cap)
{
    int k = mx_ck_index(w->r, s);
    if (k < 0 || !w->r->ck_sha[k][0])
        snprintf(buf, cap, "-");
    else
        snprintf(buf, cap, "%.8s%s", w->r->ck_sha[k], w->r->ck_same[k] ? "" : "*");
}

/* A window: "ok" passed, "FAIL"/"ERROR"/"SKIP" its verdict, "full" not run
 * but certified by the whole run, "-" neither. */
static void win_cell(const mrow *w, uint32_t from, uint32_t to, char *buf, size_t cap)
{
    const mwindow *x = w->r && !w->r->build_failed ? mx_window_of(w->r, from, to) : NULL;
    if (x)
        snprintf(buf, cap, "%s", x->pass ? "ok" : x->verdict);
    else
        snprintf(buf, cap, "%s", whole_run(w->r) ? "full" : "-");
}

/* "bound", "UNBOUND", "NOT FULLY BOUND", "claimed" (a receipt of the
 * first trust rules: its subject and host are the signer's word): verify's
 * derivation (trust/receipt_facts.h) */
static const char *subject_cell(const mrow *w)
{
    if (!w->r || w->r->build_failed)
        return "-";
    return receipt_binding_cell(receipt_facts_binding(&w->r->facts));
}

const char *mx_runs_as(const mhost *h, char *buf, size_t cap)
{
    if (h->machine)
        snprintf(buf, cap, "machine: %s%s%s%s", h->os ? h->os : "", h->os ? " " : "", h->isa,
                 h->emulator ? " (emulated)" : "");
    else if (h->emulator && h->cpu)
        snprintf(buf, cap, "%s -cpu %s", h->emulator, h->cpu);
    else if (h->emulator)
        snprintf(buf, cap, "%s (host CPU)", h->emulator);
    else
        snprintf(buf, cap, "native");
    return buf;
}

/* How a row's checkpoint cells, window cells and time are written: the
 * text table and the Markdown table differ only in these formats. */
typedef struct {
    const char *step, *win, *secs, *no_secs;
} cell_formats;
static const cell_formats text_cells = {"  %-9s", "  %-9s", "  %7.1fs\n", "         -\n"};
static const cell_formats md_cells = {" `%s` |", " %s |", " %.1f s |\n", " - |\n"};

static void row_cells(sbuf *m, const mrow *w, const columns *c, const cell_formats *f)
{
    char b[128];
    for (size_t j = 0; j < c->n; j++) {
        cell(w, c->step[j], b, sizeof b);
        sbuf_printf(m, f->step, b);
    }
    for (size_t j = 0; j < c->n_win; j++) {
        win_cell(w, c->win[j].from, c->win[j].to, b, sizeof b);
        sbuf_printf(m, f->win, b);
    }
    if (w->r && !w->r->build_failed && w->r->seconds >= 0)
        sbuf_printf(m, f->secs, w->r->seconds);
    else
        sbuf_adds(m, f->no_secs);
}

/* One host's line of the text table (widths wh, ww, ws for the host, the
 * "runs as" and the "signed by" columns). */
static void text_row(FILE *o, const mrow *w, const columns *c, int wh, int ww, int ws)
{
    char wb[96], res[64];
    mx_result_text(w, res, sizeof res);
    fprintf(o, "%-*s  %-*s  %-8s  %-7s  %-13s  %-22s  %-*s  %-8s", wh, w->h->name, ww,
            mx_runs_as(w->h, wb, sizeof wb), w->r && w->r->kernels ? w->r->kernels : "-",
            w->r && w->r->vset ? w->r->vset : "-", w->h->expected, res, ws,
            w->r && !w->r->build_failed && w->r->signer_short ? w->r->signer_short : "-", subject_cell(w));
    sbuf cells;
    sbuf_init(&cells);
    row_cells(&cells, w, c, &text_cells);
    fputs(cells.p, o);
    sbuf_free(&cells);
}

/* The "all agree" line's cells: each checkpoint column and window. */
static void text_agree_cells(FILE *o, const mrow *rows, size_t n, const columns *c)
{
    char b[128];
    for (size_t j = 0; j < c->n; j++) {
        size_t cnt;
        int ag = mx_column_agrees(rows, n, c->step[j], &cnt);
        snprintf(b, sizeof b, !ag ? "NO" : cnt ? "yes (%zu)" : "- (none)", cnt);
        fprintf(o, "  %-9s", b);
    }
    for (size_t j = 0; j < c->n_win; j++) {
        size_t cnt;
        int ag = mx_window_agrees(rows, n, c->win[j].from, c->win[j].to, &cnt);
        snprintf(b, sizeof b, ag ? "yes (%zu)" : "NO", cnt);
        fprintf(o, "  %-9s", b);
    }
}

void mx_print_text(FILE *o, const mrow *rows, size_t n, const columns *c)
{
    char b[128], wb[96];
    int wh = 9, ww = 8; /* "all agree", "runs as" */
    for (size_t i = 0; i < n; i++) {
        int l = (int)strlen(rows[i].h->name);
        wh = l > wh ? l : wh;
        l = (int)strlen(mx_runs_as(rows[i].h, wb, sizeof wb));
        ww = l > ww ? l : ww;
    }
    int ws = 7; /* "signed by" */
    for (size_t i = 0; i < n; i++)
        if (rows[i].r && rows[i].r->signer_short && (int)strlen(rows[i].r->signer_short) > ws)
            ws = (int)strlen(rows[i].r->signer_short);
    if (c->profile)
        fprintf(o, "profile %s:\n", c->profile);
    fprintf(o, "%-*s  %-*s  %-8s  %-7s  %-13s  %-22s  %-*s  %-8s", wh, "host", ww, "runs as", "kernels", "vectors",
            "expected", "result", ws, "signed by", "subject");
    for (size_t j = 0; j < c->n; j++) {
        snprintf(b, sizeof b, "step %u", (unsigned)c->step[j]);
        fprintf(o, "  %-9s", b);
    }
    for (size_t j = 0; j < c->n_win; j++) {
        snprintf(b, sizeof b, "w %u-%u", (unsigned)c->win[j].from, (unsigned)c->win[j].to);
        fprintf(o, "  %-9s", b);
    }
    fprintf(o, "  %8s\n", "time");
    for (size_t i = 0; i < n; i++)
        text_row(o, &rows[i], c, wh, ww, ws);
    fprintf(o, "%-*s  %-*s  %-8s  %-7s  %-13s  %-22s  %-*s  %-8s", wh, "all agree", ww, "(hosts expected to pass)", "",
            "", "", "", ws, "", "");
    text_agree_cells(o, rows, n, c);
    fprintf(o, "\n(cells: the first 8 hex digits of each checkpoint's SHA-256; * = differs from the vectors' digest; "
               "- = no checkpoint%s)\n",
            c->n_win ? "; w FROM-TO = a window resumed from the golden state at FROM: ok, FAIL, ..., full (the whole "
                       "run, which certifies it), - (not run)"
                     : "");
}

static void md_escape(sbuf *b, const char *s)
{
    for (; *s; s++) {
        if (*s == '|')
            sbuf_adds(b, "\\|");
        else if (*s == '\n')
            sbuf_adds(b, " ");
        else
            sbuf_addc(b, *s);
    }
}

/* One host's row of the Markdown table. */
static void md_row(sbuf *m, const mrow *w, const columns *c)
{
    char wb[96], res[64];
    mx_result_text(w, res, sizeof res);
    sbuf_printf(m, "| %s | `%s` | %s | %s | %s | ", w->h->name, mx_runs_as(w->h, wb, sizeof wb),
                w->r && w->r->kernels ? w->r->kernels : "-", w->r && w->r->vset ? w->r->vset : "-", w->h->expected);
    if (w->host_bad.len)
        sbuf_adds(m, "❌ host mismatch");
    else if (w->st == ST_PASS)
        sbuf_printf(m, "✅ pass%s", w->r->by_windows ? " (windows)" : "");
    else if (w->st == ST_RECIPE) /* never the official pass */
        sbuf_printf(m, "🔷 %s", res);
    else if (w->st == ST_XFAIL)
        sbuf_printf(m, "➖ %s", res);
    else if (w->st == ST_PREFIX)
        sbuf_printf(m, "%s %s", mx_row_ok(w) ? "◐" : "❌", res);
    else
        sbuf_printf(m, "❌ %s", mx_status_text(w->st));
    sbuf_adds(m, " | ");
    md_escape(m, w->r && !w->r->build_failed && w->r->signer ? w->r->signer : "-");
    sbuf_printf(m, " | %s |", subject_cell(w));
    row_cells(m, w, c, &md_cells);
}

void mx_render_markdown_table(sbuf *m, const mrow *rows, size_t n, const columns *c)
{
    if (c->profile)
        sbuf_printf(m, "### Profile %s\n\n", c->profile);
    sbuf_adds(m, "| host | runs as | kernels | vectors | expected | result | signed by | subject |");
    for (size_t j = 0; j < c->n; j++)
        sbuf_printf(m, " step %u |", (unsigned)c->step[j]);
    for (size_t j = 0; j < c->n_win; j++)
        sbuf_printf(m, " window %u-%u |", (unsigned)c->win[j].from, (unsigned)c->win[j].to);
    sbuf_adds(m, " time |\n|---|---|---|---|---|---|---|---|");
    for (size_t j = 0; j < c->n + c->n_win; j++)
        sbuf_adds(m, "---|");
    sbuf_adds(m, "---:|\n");
    for (size_t i = 0; i < n; i++)
        md_row(m, &rows[i], c);
    sbuf_adds(m, "| **all agree** | hosts expected to pass | | | | | | |");
    for (size_t j = 0; j < c->n; j++) {
        size_t cnt;
        if (!mx_column_agrees(rows, n, c->step[j], &cnt))
            sbuf_adds(m, " **NO** |");
        else if (cnt)
            sbuf_printf(m, " **yes** (%zu) |", cnt);
        else
            sbuf_adds(m, " - (none reached it) |");
    }
    for (size_t j = 0; j < c->n_win; j++) {
        size_t cnt;
        if (mx_window_agrees(rows, n, c->win[j].from, c->win[j].to, &cnt))
            sbuf_printf(m, " **yes** (%zu) |", cnt);
        else
            sbuf_adds(m, " **NO** |");
    }
    sbuf_adds(m, " |\n\n`*` differs from the vectors' digest; `-` no checkpoint. Cells are the first 8 hex digits of the "
                 "SHA-256 of the checkpoint bytes (spec §8)");
    if (c->n_win)
        sbuf_adds(m, "; a window FROM-TO is resumed from the golden state at FROM (spec §8.4; it checks resuming and certifies nothing: its end state ships): `ok`, its verdict, "
                     "`full` (the whole run, which certifies it) or `-` (not run)");
    sbuf_adds(m, ".\n\n");
}

void mx_render_markdown_hosts(sbuf *m, const mrow *rows, size_t n, const char *summary)
{
    sbuf_adds(m, "| host | stands for | reported from inside (`isotrain info`) | emulator warnings | notes |\n|---|---|---|---|---|\n");
    for (size_t i = 0; i < n; i++) {
        const mrow *w = &rows[i];
        sbuf_printf(m, "| %s | ", w->h->name);
        md_escape(m, w->h->stands_for);
        sbuf_adds(m, " | ");
        if (w->r && !w->r->build_failed) {
            sbuf_printf(m, "isa=%s endianness=%s cpu_model=", w->r->info_isa ? w->r->info_isa : "?",
                        w->r->info_end ? w->r->info_end : "?");
            md_escape(m, w->r->info_model ? w->r->info_model : "?");
            sbuf_adds(m, " cpu_features=");
            md_escape(m, w->r->info_features ? w->r->info_features : "?");
        }
        sbuf_adds(m, " | ");
        if (w->r)
            for (size_t k = 0; k < w->r->n_warn; k++) {
                char *f = mx_tcg_feature(w->r->warn[k]);
                if (k)
                    sbuf_adds(m, ", ");
                if (f)
                    sbuf_printf(m, "TCG lacks %s", f);
                else
                    md_escape(m, w->r->warn[k]);
                free(f);
            }
        sbuf_adds(m, " | ");
        md_escape(m, w->why.p ? w->why.p : "");
        if (w->host_bad.len) {
            sbuf_adds(m, w->why.len ? "; " : "");
            sbuf_adds(m, "host mismatch: ");
            md_escape(m, w->host_bad.p);
        }
        sbuf_adds(m, " |\n");
    }
    sbuf_printf(m, "\n%s\n", summary);
}

void mx_render_markdown(sbuf *m, const mrow *rows, size_t n, const columns *c, int overall_ok, const char *summary)
{
    sbuf_printf(m, "## isotrain host matrix: %s\n\n", overall_ok ? "OK" : "FAILED");
    mx_render_markdown_table(m, rows, n, c);
    mx_render_markdown_hosts(m, rows, n, summary);
}
