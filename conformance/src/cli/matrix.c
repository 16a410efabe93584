/* matrix.c — `isotrain-conform matrix`: the host matrix (DESIGN.md, "The
 * host matrix"). Reads the hosts file and one receipt per host, judges each
 * host, prints the table (report/matrix/), and with --against DIR compares
 * verdicts and digests with published receipts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "report/matrix/matrix.h"
#include "trust/receipt_schema.h"

static void list_hosts(const mhost *hs, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const mhost *h = &hs[i];
        printf("%s\t%s\t%s\t%g\t", h->name, h->build, h->expected, h->slowdown);
        if (h->emulator)
            printf("%s ", h->emulator);
        if (h->cpu)
            printf("-cpu %s ", h->cpu);
        printf("build/cross/%s/isotrain%s\n", h->build, h->os && !strcmp(h->os, "windows") ? ".exe" : "");
    }
}

/* The inputs of one matrix: the hosts (the file's, then one per receipt of
 * a machine it does not list), the receipts, the published ones of
 * --against, and a row per host. */
typedef struct {
    mhost *hs;
    size_t nh;
    mreceipt *rs, *pub;
    size_t nr, np;
    mrow *rows;
} matrix_in;

static void matrix_in_free(matrix_in *m)
{
    for (size_t i = 0; i < m->nr; i++)
        mx_receipt_free(&m->rs[i]);
    for (size_t i = 0; i < m->np; i++)
        mx_receipt_free(&m->pub[i]);
    free(m->rs);
    free(m->pub);
    free(m->rows);
    mx_hosts_free(m->hs, m->nh);
}

/* Every receipt names a host once; one that the hosts file does not list
 * is a machine of its own, a row described by its receipt. 0, or 2 after a
 * message. */
static int place_receipts(const conform_args *a, matrix_in *m)
{
    size_t nlisted = m->nh;
    for (size_t i = 0; i < m->nr; i++) {
        int known = 0;
        for (size_t k = 0; k < nlisted; k++)
            known |= !strcmp(m->rs[i].host, m->hs[k].name);
        if (!known && m->rs[i].build_failed) {
            mx_bad(m->rs[i].path, receipt_fields[RF_MATRIX_HOST].path, "a build-failure record for host '%s', which %s does not list",
                   m->rs[i].host, a->hosts ? a->hosts : "(no hosts file)");
            return 2;
        } else if (!known) {
            m->hs = xrealloc(m->hs, (m->nh + 1) * sizeof *m->hs);
            mx_machine_host(&m->rs[i], &m->hs[m->nh++]);
            m->rows = xrealloc(m->rows, m->nh * sizeof *m->rows);
            memset(&m->rows[m->nh - 1], 0, sizeof *m->rows);
        }
        for (size_t k = 0; k < i; k++)
            if (!strcmp(m->rs[i].host, m->rs[k].host)) {
                mx_bad(m->rs[i].path, receipt_fields[RF_MATRIX_HOST].path, "host '%s' already has a receipt (%s)", m->rs[i].host,
                       m->rs[k].path);
                return 2;
            }
    }
    return 0;
}

/* The receipts given (or, with --against alone, the published ones) and
 * the published receipts to compare with. 0, or 2 after a message. */
static int load_receipts(const conform_args *a, matrix_in *m)
{
    m->nr = a->n_operands;
    m->rs = xcalloc(m->nr + 1, sizeof *m->rs);
    m->rows = xcalloc(m->nh + 1, sizeof *m->rows);
    for (size_t i = 0; i < m->nr; i++)
        if (mx_receipt_load(a->operands[i], &m->rs[i]) != 0) {
            m->nr = i + 1; /* the ones read so far are freed */
            return 2;
        }
    if (a->against && mx_load_dir(a->against, &m->pub, &m->np) != 0)
        return 2;
    if (!m->nr) { /* --against alone: the table of the published receipts */
        free(m->rs);
        m->rs = m->pub, m->nr = m->np;
        m->pub = NULL, m->np = 0;
    }
    return place_receipts(a, m);
}

/* Every host that is not simply as expected, and why; who signed each
 * receipt, by fingerprint (trust/keys.h), and what its subject binds. */
static void print_host_notes(const mrow *rows, size_t nh)
{
    for (size_t i = 0; i < nh; i++) {
        const mrow *w = &rows[i];
        if (w->why.len)
            printf("%s: %s: %s\n", w->h->name, mx_row_ok(w) ? "ok" : mx_status_text(w->st), w->why.p);
        if (w->host_bad.len)
            printf("%s: HOST MISMATCH: the host is not what the hosts file says: %s\n", w->h->name, w->host_bad.p);
        if (w->r)
            for (size_t k = 0; k < w->r->n_warn; k++)
                printf("%s: emulator warning (recorded): %s\n", w->h->name, w->r->warn[k]);
        if (!w->r || w->r->build_failed)
            continue;
        const receipt_facts *f = &w->r->facts;
        printf("%s: %s; subject %s\n", w->h->name, w->r->signer,
               f->rules < 2 ? "and host as the signer claims them (a receipt of the first trust rules)"
               : f->bound   ? "bound"
                            : "UNBOUND (shell form)");
        if (f->rules >= 2 && f->emulated)
            printf("%s: emulator %s: %s sha256 %s, %s%s\n", w->h->name, f->emu_name ? f->emu_name : "?",
                   f->emu_path ? f->emu_path : "?", f->emu_sha256 ? f->emu_sha256 : "?",
                   f->emu_version ? f->emu_version : "no version",
                   f->emu_is_executable ? "" : " (named, not started by the runner)");
    }
}

/* One table per profile of the receipts (a set of one profile: one table). */
typedef struct {
    const char *names[MX_MAX_PROFILES * 4];
    size_t n_prof;
    mrow *vrows;
    mreceipt *views;
    columns *cols;
} profile_tables;

static int print_tables(const matrix_in *m, profile_tables *pt)
{
    pt->n_prof = mx_profile_names(m->rows, m->nh, pt->names, sizeof pt->names / sizeof pt->names[0]);
    pt->vrows = xcalloc(m->nh + 1, sizeof *pt->vrows);
    pt->views = xcalloc(m->nh + 1, sizeof *pt->views);
    pt->cols = xcalloc(pt->n_prof + 1, sizeof *pt->cols);
    int all_agree = 1;
    for (size_t k = 0; k < (pt->n_prof ? pt->n_prof : 1); k++) {
        mx_rows_view(m->rows, m->nh, pt->n_prof ? pt->names[k] : NULL, pt->vrows, pt->views);
        mx_columns_of(pt->vrows, m->nh, &pt->cols[k]);
        pt->cols[k].profile = pt->n_prof > 1 ? pt->names[k] : NULL;
        all_agree &= mx_table_agrees(pt->vrows, m->nh, &pt->cols[k]);
        if (k)
            printf("\n");
        mx_print_text(stdout, pt->vrows, m->nh, &pt->cols[k]);
    }
    return all_agree;
}

/* --markdown FILE: the tables, the hosts and the summary. 0, or -1 after a
 * message. */
static int write_markdown(const char *path, const matrix_in *m, profile_tables *pt, int ok, const char *summary)
{
    sbuf md;
    sbuf_init(&md);
    sbuf_printf(&md, "## isotrain host matrix: %s\n\n", ok ? "OK" : "FAILED");
    for (size_t k = 0; k < (pt->n_prof ? pt->n_prof : 1); k++) {
        mx_rows_view(m->rows, m->nh, pt->n_prof ? pt->names[k] : NULL, pt->vrows, pt->views);
        mx_render_markdown_table(&md, pt->vrows, m->nh, &pt->cols[k]);
    }
    mx_render_markdown_hosts(&md, m->rows, m->nh, summary);
    char err[512];
    make_parent_dirs(path);
    int rc = write_file(path, md.p, md.len, err, sizeof err);
    if (rc != 0)
        fprintf(stderr, "isotrain-conform matrix: %s\n", err);
    sbuf_free(&md);
    return rc;
}

/* --against DIR: verdicts and digests against the published receipts;
 * returns the number of disagreements (printed). */
static size_t compare_published(const conform_args *a, const matrix_in *m)
{
    size_t d = mx_compare_against(stdout, a->against, m->hs, m->nh, m->rs, m->nr, m->pub, m->np);
    if (d)
        printf("against %s: %zu disagreement%s with the published receipts\n", a->against, d, d == 1 ? "" : "s");
    else
        printf("against %s: agrees (verdicts, first differing steps and checkpoint digests of all %zu hosts)\n",
               a->against, m->nh);
    return d;
}

int matrix_command(const conform_args *a)
{
    matrix_in m;
    memset(&m, 0, sizeof m);
    if (a->hosts && mx_hosts_load(a->hosts, &m.hs, &m.nh) != 0)
        return 2;
    if (a->list) {
        list_hosts(m.hs, m.nh);
        mx_hosts_free(m.hs, m.nh);
        return 0;
    }
    mx_trust_config(a->allowed_signers, a->vectors_given ? a->vectors : NULL, a->allow_unsigned);
    int compare = a->against && a->n_operands > 0;
    if (load_receipts(a, &m) != 0) {
        matrix_in_free(&m);
        return 2;
    }
    mx_tally t = mx_judge_rows(m.rows, m.hs, m.nh, m.rs, m.nr);
    profile_tables pt;
    int all_agree = print_tables(&m, &pt);
    int ok = t.ok == m.nh && all_agree;
    print_host_notes(m.rows, m.nh);
    size_t d = compare ? compare_published(a, &m) : 0;
    ok &= d == 0;
    char summary[640];
    mx_summary_text(summary, sizeof summary, ok, m.nh, &t, all_agree,
                    !compare ? "" : d ? "; DIFFERENT from the published receipts" : "; same as the published receipts");
    if (a->markdown && write_markdown(a->markdown, &m, &pt, ok, summary) != 0)
        ok = 0;
    printf("%s\n", summary);
    free(pt.vrows), free(pt.views), free(pt.cols);
    for (size_t i = 0; i < m.nh; i++) {
        sbuf_free(&m.rows[i].why);
        sbuf_free(&m.rows[i].host_bad);
    }
    matrix_in_free(&m);
    return ok ? 0 : 1;
}
