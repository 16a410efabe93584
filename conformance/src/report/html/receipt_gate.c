/* receipt_gate.c — the page's trust gate: its facts come through the
 * matrix's own gate (report/matrix/: mx_receipt_load verifies every
 * receipt and refuses what `matrix` refuses) and its judgement (mx_judge),
 * so the page cannot show a result `matrix` would not. Where `matrix` stops at a refused receipt
 * (exit 2), the report lists it with the reason the gate gave and shows
 * nothing of it as a result.
 *
 * A receipt that passes is read a second time through verify (for the
 * fields the page shows beyond the matrix's, and the signer); the file's
 * SHA-256 before the first read and after the second must agree, so both
 * reads saw the same bytes. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/version.h"
#include "report/html/report.h"
#include "trust/dsse.h"
#include "trust/sshsig.h"
#include "trust/verify_receipt.h"
#include "vectorset/manifest.h"
#include "vectorset/vectors_load.h"

enum { REASON_CAP = 1 << 20 };

static void refuse(rp_page *p, const char *file, const char *reason)
{
    p->ref = xrealloc(p->ref, (p->n_ref + 1) * sizeof *p->ref);
    p->ref[p->n_ref].file = xstrdup(file);
    p->ref[p->n_ref].reason = xstrdup(reason && *reason ? reason : "refused (no reason given)");
    p->n_ref++;
}

/* The key fingerprints of an envelope's signatures (which one is good is
 * verify's answer; with one signature, it is that key), read by verify's own
 * function (trust/sshsig.h), so the page names the key verify names. */
static void signature_keys(rp_receipt *x)
{
    char *text;
    size_t len;
    char err[256];
    if (read_file(x->file, 64 << 20, &text, &len, err, sizeof err) != 0)
        return;
    problems pr;
    problems_init(&pr);
    dsse_opened o;
    if (dsse_open(x->file, text, len, &o, &pr) == 0) {
        x->n_sigs = o.n_sigs;
        x->key_fp = xcalloc(o.n_sigs + 1, sizeof *x->key_fp);
        for (size_t i = 0; i < o.n_sigs; i++) {
            char fp[64];
            if (o.sigs[i] && sshsig_fingerprint(o.sigs[i], fp) == 0)
                x->key_fp[x->n_fp++] = xstrdup(fp);
        }
        dsse_opened_free(&o);
    }
    problems_free(&pr);
    free(text);
}

/* One receipt through the gate. Returns 0 when accepted (r and x filled). */
static int admit(rp_page *p, const char *file, mreceipt *r, rp_receipt *x, sbuf *why)
{
    char err[512], before[65], after[65];
    uint64_t size;
    memset(x, 0, sizeof *x);
    x->file = xstrdup(file);
    if (sha256_file(file, before, &size, err, sizeof err) != 0) {
        sbuf_adds(why, err);
        mx_receipt_free(r);
        return -1;
    }
    char *msg = NULL;
    size_t msg_len = 0;
    FILE *cap = open_memstream(&msg, &msg_len);
    if (cap)
        mx_set_messages(cap);
    int rc = mx_receipt_load(file, r);
    if (rc == 0 && !r->build_failed) {
        verify_opts vo = {p->vectors_given ? p->vectors_dir : NULL, p->allowed_signers, p->allow_unsigned, NULL};
        verify_info info;
        problems pr;
        problems_init(&pr);
        cJSON *j = verify_receipt_file(file, &vo, &info, &pr);
        if (!j || receipt_record_take(&x->rec, file, j, &pr) != 0) { /* the page reads x->rec only */
            fprintf(mx_messages(), "isotrain-conform report: %s: the receipt no longer verifies:\n", file);
            problems_print(&pr, mx_messages(), "  ");
            rc = -1;
        } else
            x->receipt = &x->rec.top;
        x->signer = info.signer; /* kept: the page names the signer */
        info.signer = NULL;
        verify_info_free(&info);
        problems_free(&pr);
    }
    mx_set_messages(NULL);
    if (cap) {
        fclose(cap);
        sbuf_add(why, msg, msg_len < REASON_CAP ? msg_len : REASON_CAP);
        free(msg);
    }
    if (rc == 0 && x->receipt)
        signature_keys(x);
    if (rc == 0 && (sha256_file(file, after, &size, err, sizeof err) != 0 || strcmp(before, after) != 0)) {
        sbuf_printf(why, "isotrain-conform report: %s: the file changed while it was being read", file);
        rc = -1;
    }
    if (rc != 0) {
        mx_receipt_free(r);
        return -1;
    }
    /* accepted: what the gate said on the way is a warning, printed where
     * matrix prints it */
    if (why->len)
        fputs(why->p, stderr);
    sbuf_reset(why);
    memcpy(x->sha256, before, sizeof x->sha256);
    return 0;
}

static void load_vectors(rp_page *p)
{
    const char *dir = p->vectors_given ? p->vectors_dir : NULL;
    char *own = NULL;
    if (!dir) { /* what verify used: vectors/v<version> of the receipts */
        for (size_t i = 0; i < p->nr && !dir; i++) {
            const char *v = rv_str(p->rx[i].receipt, RF_VECTORS_VECTOR_VERSION);
            if (v && strlen(v) < 32 && !strchr(v, '/'))
                dir = own = xasprintf("vectors/v%s", v);
        }
    }
    if (!dir)
        return;
    problems pr;
    problems_init(&pr);
    manifest_info m;
    vector_set *vs = xcalloc(1, sizeof *vs);
    if (manifest_verify(dir, &m, &pr) == 0 && vectors_load(dir, &m, vs, &pr) == 0) {
        p->have_vectors = 1;
        p->vectors = vs;
        memcpy(p->vectors_digest, m.digest, sizeof p->vectors_digest);
        if (!p->vectors_dir)
            p->vectors_dir = p->vectors_dir_owned = own, own = NULL;
    } else {
        vectors_free(vs);
        free(vs);
    }
    manifest_free(&m);
    problems_free(&pr);
    free(own);
}

/* Every receipt through the gate, and the matrix's two refusals of a
 * receipt among others (cli/matrix.c): a build-failure record of a host
 * the hosts file does not list, a second receipt for one host. */
static void admit_all(rp_page *p, const char *const *files, size_t n)
{
    p->rs = xcalloc(n + 1, sizeof *p->rs);
    p->rx = xcalloc(n + 1, sizeof *p->rx);
    for (size_t i = 0; i < n; i++) {
        sbuf why;
        sbuf_init(&why);
        mreceipt *r = &p->rs[p->nr];
        rp_receipt *x = &p->rx[p->nr];
        if (admit(p, files[i], r, x, &why) != 0) {
            refuse(p, files[i], why.p);
            rp_receipt_free(x);
            sbuf_free(&why);
            continue;
        }
        /* the matrix's two refusals of a receipt among others (cli/matrix.c) */
        int known = 0;
        for (size_t k = 0; k < p->n_listed; k++)
            known |= !strcmp(r->host, p->hs[k].name);
        const mreceipt *dup = mx_find_receipt(p->rs, p->nr, r->host);
        if (!known && r->build_failed)
            sbuf_printf(&why, "isotrain-conform matrix: %s: matrix_host: a build-failure record for host '%s', which %s does not list",
                        files[i], r->host, p->hosts_file ? p->hosts_file : "(no hosts file)");
        else if (dup)
            sbuf_printf(&why, "isotrain-conform matrix: %s: matrix_host: host '%s' already has a receipt (%s)", files[i],
                        r->host, dup->path);
        if (why.len) {
            refuse(p, files[i], why.p);
            mx_receipt_free(r);
            rp_receipt_free(x);
        } else
            p->nr++;
        sbuf_free(&why);
    }
}

int rp_load(rp_page *p, const char *const *files, size_t n)
{
    if (p->hosts_file && mx_hosts_load(p->hosts_file, &p->hs, &p->nh) != 0)
        return -1;
    p->n_listed = p->nh;
    /* signatures are checked by default, against the project's keys, as
     * matrix and verify check them (core/version.h) */
    if (!p->allowed_signers)
        p->allowed_signers = conform_default_allowed_signers();
    mx_trust_config(p->allowed_signers, p->vectors_given ? p->vectors_dir : NULL, p->allow_unsigned);
    admit_all(p, files, n);
    /* hosts the hosts file does not list: machines described by their receipt */
    for (size_t i = 0; i < p->nr; i++) {
        int known = 0;
        for (size_t k = 0; k < p->n_listed; k++)
            known |= !strcmp(p->rs[i].host, p->hs[k].name);
        if (!known) {
            p->hs = xrealloc(p->hs, (p->nh + 1) * sizeof *p->hs);
            mx_machine_host(&p->rs[i], &p->hs[p->nh++]);
        }
    }
    p->rows = xcalloc(p->nh + 1, sizeof *p->rows);
    mx_tally t = mx_judge_rows(p->rows, p->hs, p->nh, p->rs, p->nr);
    p->n_ok = t.ok;
    for (size_t i = 0; i < p->nr; i++)
        rp_facts(&p->rx[i], &p->rs[i]);
    load_vectors(p);
    /* the summary line `matrix` prints for these rows (cli/matrix.c) */
    p->all_agree = mx_all_agree(p->rows, p->nh);
    p->ok = p->nh > 0 && p->n_ok == p->nh && p->all_agree;
    mx_summary_text(p->summary, sizeof p->summary, p->ok, p->nh, &t, p->all_agree, NULL);
    return 0;
}

const rp_receipt *rp_of_row(const rp_page *p, const mrow *w)
{
    if (!w->r || w->r < p->rs || w->r >= p->rs + p->nr)
        return NULL;
    return &p->rx[w->r - p->rs];
}

void rp_page_free(rp_page *p)
{
    for (size_t i = 0; i < p->nh; i++) {
        sbuf_free(&p->rows[i].why);
        sbuf_free(&p->rows[i].host_bad);
    }
    free(p->rows);
    for (size_t i = 0; i < p->nr; i++) {
        mx_receipt_free(&p->rs[i]);
        rp_receipt_free(&p->rx[i]);
    }
    free(p->rs);
    free(p->rx);
    mx_hosts_free(p->hs, p->nh);
    for (size_t i = 0; i < p->n_ref; i++) {
        free(p->ref[i].file);
        free(p->ref[i].reason);
    }
    free(p->ref);
    if (p->vectors) {
        vectors_free(p->vectors);
        free(p->vectors);
    }
    for (size_t i = 0; i < p->n_div; i++)
        rp_divergence_free(&p->div[i]);
    free(p->vectors_dir_owned);
}
