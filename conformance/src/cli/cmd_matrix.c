/* cmd_matrix.c — `isotrain-conform matrix`: the host matrix (DESIGN.md, "The
 * host matrix"). Reads the hosts file and one receipt per host, judges each
 * host, prints the table (report/matrix/), and with --against DIR compares
 * verdicts and digests with published receipts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "report/matrix/matrix.h"

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

int matrix_command(const conform_args *a)
{
    mhost *hs = NULL;
    size_t nh = 0;
    if (a->hosts && mx_hosts_load(a->hosts, &hs, &nh) != 0)
        return 2;
    if (a->list) {
        list_hosts(hs, nh);
        mx_hosts_free(hs, nh);
        return 0;
    }
    mx_trust_config(a->allowed_signers, a->vectors_given ? a->vectors : NULL, a->allow_unsigned);
    int rc = 0;
    size_t nr = a->n_receipts, np = 0;
    mreceipt *rs = xcalloc(nr + 1, sizeof *rs), *pub = NULL;
    mrow *rows = xcalloc(nh + 1, sizeof *rows);
    for (size_t i = 0; i < nr && rc == 0; i++)
        if (mx_receipt_load(a->receipts[i], &rs[i]) != 0)
            rc = 2;
    if (rc == 0 && a->against && mx_load_dir(a->against, &pub, &np) != 0)
        rc = 2;
    int compare = a->against && nr > 0;
    if (rc == 0 && !nr) { /* --against alone: the table of the published receipts */
        free(rs);
        rs = pub, nr = np;
        pub = NULL, np = 0;
    }
    /* every receipt names a host once; one that the hosts file does not list
     * is a machine of its own, a row described by its receipt */
    size_t nlisted = nh;
    for (size_t i = 0; i < nr && rc == 0; i++) {
        int known = 0;
        for (size_t k = 0; k < nlisted; k++)
            known |= !strcmp(rs[i].host, hs[k].name);
        if (!known && rs[i].build_failed) {
            mx_bad(rs[i].path, "matrix_host", "a build-failure record for host '%s', which %s does not list", rs[i].host,
                   a->hosts ? a->hosts : "(no hosts file)");
            rc = 2;
        } else if (!known) {
            hs = xrealloc(hs, (nh + 1) * sizeof *hs);
            mx_machine_host(&rs[i], &hs[nh++]);
            rows = xrealloc(rows, nh * sizeof *rows);
            memset(&rows[nh - 1], 0, sizeof *rows);
        }
        for (size_t k = 0; k < i && rc == 0; k++)
            if (!strcmp(rs[i].host, rs[k].host)) {
                mx_bad(rs[i].path, "matrix_host", "host '%s' already has a receipt (%s)", rs[i].host, rs[k].path);
                rc = 2;
            }
    }
    if (rc != 0)
        goto done;

    size_t n_ok = 0, n_pass = 0, n_xfail = 0, n_prefix = 0, n_windows = 0;
    for (size_t i = 0; i < nh; i++) {
        mrow *w = &rows[i];
        w->h = &hs[i];
        sbuf_init(&w->why);
        sbuf_init(&w->host_bad);
        w->r = mx_find_receipt(rs, nr, hs[i].name);
        mx_judge(w);
        n_ok += mx_row_ok(w);
        n_pass += mx_row_ok(w) && w->st == ST_PASS;
        n_xfail += mx_row_ok(w) && w->st == ST_XFAIL;
        n_prefix += mx_row_ok(w) && w->st == ST_PREFIX;
        n_windows += mx_row_ok(w) && w->st == ST_PASS && w->r->by_windows;
    }
    /* one table per profile of the receipts (a set of one profile: one table) */
    const char *names[MX_MAX_PROFILES * 4];
    size_t n_prof = mx_profile_names(rows, nh, names, sizeof names / sizeof names[0]);
    mrow *vrows = xcalloc(nh + 1, sizeof *vrows);
    mreceipt *views = xcalloc(nh + 1, sizeof *views);
    columns *cols = xcalloc(n_prof + 1, sizeof *cols);
    int all_agree = 1;
    for (size_t k = 0; k < (n_prof ? n_prof : 1); k++) {
        mx_rows_view(rows, nh, n_prof ? names[k] : NULL, vrows, views);
        mx_columns_of(vrows, nh, &cols[k]);
        cols[k].profile = n_prof > 1 ? names[k] : NULL;
        all_agree &= mx_table_agrees(vrows, nh, &cols[k]);
        if (k)
            printf("\n");
        mx_print_text(stdout, vrows, nh, &cols[k]);
    }
    int ok = n_ok == nh && all_agree;
    /* every host that is not simply as expected, and why */
    for (size_t i = 0; i < nh; i++) {
        const mrow *w = &rows[i];
        if (w->why.len)
            printf("%s: %s: %s\n", w->h->name, mx_row_ok(w) ? "ok" : mx_status_text(w->st), w->why.p);
        if (w->host_bad.len)
            printf("%s: HOST MISMATCH: the host is not what the hosts file says: %s\n", w->h->name, w->host_bad.p);
        if (w->r)
            for (size_t k = 0; k < w->r->n_warn; k++)
                printf("%s: emulator warning (recorded): %s\n", w->h->name, w->r->warn[k]);
        if (w->r && !w->r->build_failed) /* who signed, by fingerprint (trust/keys.h) */
        {
            const receipt_facts *f = &w->r->facts;
            printf("%s: %s; subject %s\n", w->h->name, w->r->signer,
                   f->rules < 2 ? "and host as the signer claims them (a receipt of the first trust rules)"
                   : f->bound   ? "bound"
                                : "UNBOUND (shell form)");
            if (f->rules >= 2 && f->emulated)
                printf("%s: emulator %s: %s sha256 %s, %s%s\n", w->h->name, f->emu_name ? f->emu_name : "?",
                       f->emu_path ? f->emu_path : "?", f->emu_sha256 ? f->emu_sha256 : "?",
                       f->emu_version ? f->emu_version : "no version", f->emu_is_executable ? "" : " (named, not started by the runner)");
        }
    }
    size_t d = compare ? mx_compare_against(stdout, a->against, hs, nh, rs, nr, pub, np) : 0;
    if (compare && d) {
        printf("against %s: %zu disagreement%s with the published receipts\n", a->against, d, d == 1 ? "" : "s");
        ok = 0;
    } else if (compare)
        printf("against %s: agrees (verdicts, first differing steps and checkpoint digests of all %zu hosts)\n",
               a->against, nh);
    char summary[640];
    mx_summary_text(summary, sizeof summary, ok, n_ok, nh, n_pass, n_windows, n_prefix, n_xfail, all_agree,
                    !compare ? "" : d ? "; DIFFERENT from the published receipts" : "; same as the published receipts");
    if (a->markdown) {
        sbuf m;
        sbuf_init(&m);
        sbuf_printf(&m, "## isotrain host matrix: %s\n\n", ok ? "OK" : "FAILED");
        for (size_t k = 0; k < (n_prof ? n_prof : 1); k++) {
            mx_rows_view(rows, nh, n_prof ? names[k] : NULL, vrows, views);
            mx_render_markdown_table(&m, vrows, nh, &cols[k]);
        }
        mx_render_markdown_hosts(&m, rows, nh, summary);
        char err[512];
        make_parent_dirs(a->markdown);
        if (write_file(a->markdown, m.p, m.len, err, sizeof err) != 0) {
            fprintf(stderr, "isotrain-conform matrix: %s\n", err);
            ok = 0;
        }
        sbuf_free(&m);
    }
    printf("%s\n", summary);
    rc = ok ? 0 : 1;
    free(vrows), free(views), free(cols);
    for (size_t i = 0; i < nh; i++) {
        sbuf_free(&rows[i].why);
        sbuf_free(&rows[i].host_bad);
    }
done:
    for (size_t i = 0; i < nr; i++)
        mx_receipt_free(&rs[i]);
    for (size_t i = 0; i < np; i++)
        mx_receipt_free(&pub[i]);
    free(rs);
    free(pub);
    free(rows);
    mx_hosts_free(hs, nh);
    return rc;
}
