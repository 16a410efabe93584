/* sec_header.c — the top of the page: which vector set, spec and runner,
 * when the runs were made, who signed them (by key fingerprint), the
 * matrix's one-line verdict, and what a receipt does and does not prove.
 * Where receipts disagree (two runner versions, two vector sets) every
 * value is listed with its count, never one picked. */
#include <string.h>

#include "core/version.h"
#include "report/html/report.h"
#include "vectorset/official.h"
#include "vectorset/vectors_load.h"

enum { DISTINCT = 12 };

/* Distinct strings and how many receipts carry each. */
typedef struct {
    const char *v[DISTINCT];
    size_t count[DISTINCT], n, more, absent;
} distinct;

static void see(distinct *d, const char *s)
{
    if (!s) {
        d->absent++;
        return;
    }
    for (size_t i = 0; i < d->n; i++)
        if (!strcmp(d->v[i], s)) {
            d->count[i]++;
            return;
        }
    if (d->n == DISTINCT) {
        d->more++;
        return;
    }
    d->v[d->n] = s;
    d->count[d->n++] = 1;
}

static void gather(const rp_page *p, distinct *d, rf_id f)
{
    memset(d, 0, sizeof *d);
    for (size_t i = 0; i < p->nr; i++)
        if (p->rx[i].receipt)
            see(d, rv_str(p->rx[i].receipt, f));
}

/* "1.0.0 (13 receipts)" or, when they differ, each value with its count. */
static void values(hw *w, const distinct *d, int mono)
{
    if (!d->n && !d->absent) {
        HW(w, "<span class=\"muted\">\xe2\x80\x94 (no receipt)</span>");
        return;
    }
    for (size_t i = 0; i < d->n; i++) {
        if (i)
            HW(w, "; ");
        if (mono)
            HW(w, "<code>");
        hw_text(w, d->v[i]);
        if (mono)
            HW(w, "</code>");
        if (d->n > 1 || d->absent)
            HW_F(w, " (%zu receipt%s)", d->count[i], d->count[i] == 1 ? "" : "s");
    }
    if (d->more)
        HW_F(w, "; and %zu receipt%s with further values", d->more, d->more == 1 ? "" : "s");
    if (d->absent)
        HW_F(w, "%s%zu receipt%s without this field", d->n ? "; " : "", d->absent, d->absent == 1 ? "" : "s");
}

static void dt(hw *w, const char *label)
{
    HW_WRAP(w, "<dt>", label, HW_CAP_CELL, "</dt><dd>");
}

static void vector_facts(hw *w, const rp_page *p)
{
    distinct ver, dig, spec;
    gather(p, &ver, RF_VECTORS_VECTOR_VERSION);
    gather(p, &dig, RF_VECTORS_MANIFEST_DIGEST);
    gather(p, &spec, RF_VECTORS_SPEC_VERSION);
    dt(w, "vector set");
    if (ver.n)
        values(w, &ver, 0);
    else if (p->have_vectors) {
        const vector_set *vs = p->vectors;
        hw_text_cap(w, vs->vector_version, HW_CAP_NAME);
        HW_WRAP(w, " (the set in <code>", p->vectors_dir, HW_CAP_CELL, "</code>; no receipt)");
    } else
        HW(w, "<span class=\"muted\">unknown: no receipt and no --vectors</span>");
    HW(w, "</dd>");
    dt(w, "spec version");
    if (!spec.n && p->have_vectors)
        hw_text_cap(w, ((const vector_set *)p->vectors)->spec_version, HW_CAP_NAME);
    else
        values(w, &spec, 0);
    HW(w, "</dd>");
    /* the digest the runner pins for this version (vectorset/official.c) */
    const char *version = ver.n ? ver.v[0] : NULL;
    const official_set *off = version ? official_by_version(version) : NULL;
    if (!off && p->have_vectors)
        off = official_find(p->vectors_digest);
    dt(w, "official manifest digest");
    if (off) {
        HW_WRAP(w, "<code>", off->manifest_digest, HW_CAP_CELL, "</code> (vector set ");
        hw_text(w, off->vector_version);
        HW(w, ", pinned in this runner)");
    } else
        HW(w, "<span class=\"muted\">none pinned for this vector set: its results are UNOFFICIAL</span>");
    HW(w, "</dd>");
    dt(w, "receipts' manifest digest");
    if (!dig.n)
        HW(w, "<span class=\"muted\">\xe2\x80\x94 (no receipt)</span>");
    else if (off && dig.n == 1 && !dig.absent && !strcmp(dig.v[0], off->manifest_digest))
        HW_F(w, "the official digest, in all %zu receipts", dig.count[0]);
    else
        values(w, &dig, 1);
    HW(w, "</dd>");
    /* issue 17 (versions branch): the spec version a receipt certifies joins
     * here as one more gather()/values() pair, e.g. "certified spec version". */
}

/* Issue 32 item 3: the recipes the receipts certify, apart from the
 * official sets (nothing when no receipt is a recipe's certification). */
static void recipe_facts(hw *w, const rp_page *p)
{
    distinct rec;
    gather(p, &rec, RF_VECTORS_RECIPE_SHA256);
    if (!rec.n)
        return;
    dt(w, "recipe certifications");
    for (size_t i = 0; i < rec.n; i++) {
        if (i)
            HW(w, "; ");
        HW_WRAP(w, "<code>recipe sha256:", rec.v[i], HW_CAP_CELL, "</code>");
        HW_F(w, " (%zu receipt%s)", rec.count[i], rec.count[i] == 1 ? "" : "s");
    }
    HW(w, ": each certifies the training of that recipe against the set made from it, not an official vector "
          "set</dd>");
}

static void runner_facts(hw *w, const rp_page *p)
{
    distinct v, rev;
    gather(p, &v, RF_SUITE_VERSION);
    gather(p, &rev, RF_SUITE_GIT_REVISION);
    dt(w, "runner version");
    values(w, &v, 0);
    HW(w, "</dd>");
    dt(w, "runner revision");
    values(w, &rev, 1);
    HW(w, "</dd>");
    /* when: the earliest and latest start of a run (ISO 8601 UTC strings
     * compare as text) */
    const char *lo = NULL, *hi = NULL;
    for (size_t i = 0; i < p->nr; i++) {
        const char *s = rv_str(p->rx[i].receipt, RF_STARTED);
        if (!s)
            continue;
        if (!lo || strcmp(s, lo) < 0)
            lo = s;
        if (!hi || strcmp(s, hi) > 0)
            hi = s;
    }
    dt(w, "runs made");
    if (!lo)
        HW(w, "<span class=\"muted\">\xe2\x80\x94</span>");
    else {
        hw_text_cap(w, lo, HW_CAP_NAME);
        if (strcmp(lo, hi) != 0) {
            HW(w, " to ");
            hw_text_cap(w, hi, HW_CAP_NAME);
        }
    }
    HW(w, "</dd>");
    dt(w, "page written by");
    HW_WRAP(w, "<code>isotrain-conform ", CONFORM_VERSION, HW_CAP_CELL, "</code> (revision <code>");
    hw_text(w, conform_git_revision());
    HW(w, "</code>)");
    if (p->date) {
        HW(w, " on ");
        hw_text_cap(w, p->date, HW_CAP_NAME);
    }
    HW(w, "</dd>");
}

/* Who signed: one line per (principal, key) with its receipts. */
static void signer_facts(hw *w, const rp_page *p)
{
    dt(w, "signed by");
    size_t unsigned_n = 0, shown = 0;
    for (size_t i = 0; i < p->nr; i++) {
        const rp_receipt *x = &p->rx[i];
        if (!x->receipt)
            continue;
        if (!x->n_sigs) {
            unsigned_n++;
            continue;
        }
        /* first receipt with this signer and key: count them all */
        const char *fp = x->n_fp ? x->key_fp[0] : NULL;
        int first = 1;
        for (size_t k = 0; k < i && first; k++) {
            const rp_receipt *y = &p->rx[k];
            const char *fq = y->n_fp ? y->key_fp[0] : NULL;
            first = !(y->receipt && y->n_sigs && !strcmp(y->signer ? y->signer : "", x->signer ? x->signer : "") &&
                      !strcmp(fq ? fq : "", fp ? fp : ""));
        }
        if (!first)
            continue;
        size_t n = 0;
        for (size_t k = i; k < p->nr; k++) {
            const rp_receipt *y = &p->rx[k];
            const char *fq = y->n_fp ? y->key_fp[0] : NULL;
            n += y->receipt && y->n_sigs && !strcmp(y->signer ? y->signer : "", x->signer ? x->signer : "") &&
                 !strcmp(fq ? fq : "", fp ? fp : "");
        }
        if (shown++)
            HW(w, "<br>");
        if (x->signer) {
            rp_signer_html(w, x->signer, fp);
            HW(w, ", key ");
        } else
            HW(w, "a key not checked against allowed signers, ");
        HW_WRAP(w, "<code>", fp ? fp : "(unreadable key)", HW_CAP_CELL, "</code>");
        HW_F(w, " \xe2\x80\x94 %zu receipt%s", n, n == 1 ? "" : "s");
    }
    if (unsigned_n) {
        if (shown++)
            HW(w, "<br>");
        HW_F(w, "unsigned: %zu receipt%s", unsigned_n, unsigned_n == 1 ? "" : "s");
    }
    if (!shown)
        HW(w, "<span class=\"muted\">\xe2\x80\x94 (no receipt)</span>");
    HW(w, "<br><span class=\"muted\">");
    if (p->allowed_signers) {
        HW(w, "Signatures checked against the allowed signers in <code>");
        hw_text(w, p->allowed_signers);
        if (p->allow_unsigned)
            HW(w, "</code>; a receipt with a bad signature is refused, an unsigned one shown as unsigned "
                  "(--allow-unsigned).");
        else
            HW(w, "</code>; a receipt without a good one is refused.");
    } else
        HW(w, "Signatures not checked: no allowed signers file was found, so a key above says who signed, "
              "not that they may.");
    HW(w, "</span></dd>");
}

void sec_header(hw *w, const rp_page *p)
{
    HW(w, "<header class=\"top\"><h1>isotrain conformance results</h1>\n<p class=\"sub\">");
    const char *v = NULL;
    for (size_t i = 0; i < p->nr && !v; i++)
        v = rv_str(p->rx[i].receipt, RF_VECTORS_VECTOR_VERSION);
    if (!v && p->have_vectors)
        v = ((const vector_set *)p->vectors)->vector_version;
    if (v) {
        HW_WRAP(w, "Vector set ", v, HW_CAP_NAME, " \xc2\xb7 ");
    }
    if (p->nr)
        HW_F(w, "%zu host%s \xc2\xb7 %zu receipt%s accepted", p->nh, p->nh == 1 ? "" : "s", p->nr, p->nr == 1 ? "" : "s");
    else
        HW_F(w, "%zu host%s listed \xc2\xb7 no receipt accepted", p->nh, p->nh == 1 ? "" : "s");
    if (p->n_ref)
        HW_F(w, ", %zu refused", p->n_ref);
    HW(w, "</p>\n");
    if (!p->nr)
        HW(w, "<p class=\"banner none\" role=\"status\">No receipts: nothing has been certified for this vector set "
              "yet.</p>\n");
    else if (p->ok)
        HW(w, "<p class=\"banner ok\" role=\"status\">");
    else
        HW(w, "<p class=\"banner bad\" role=\"status\">");
    if (p->nr) {
        hw_text(w, p->summary);
        HW(w, "</p>\n");
    }
    HW(w, "</header>\n");
}

void sec_about(hw *w, const rp_page *p)
{
    HW(w, "<section id=\"about\" aria-label=\"About these results\"><dl class=\"facts\">");
    vector_facts(w, p);
    recipe_facts(w, p);
    runner_facts(w, p);
    signer_facts(w, p);
    HW(w, "</dl>\n<p>A <strong>receipt</strong> is one run of <code>isotrain-conform run</code>: an in-toto "
          "Statement in a DSSE envelope, naming the vector set by its manifest digest, the trainer under test "
          "by the SHA-256 of its binary, the host it ran on, and every case's verdict. A result is shown here only "
          "if <code>isotrain-conform verify</code> accepts its receipt: every verdict recomputed from the receipt's "
          "own case list, every training step's digest checked against the vector set, the fresh cases (drawn "
          "from a run seed, so no answer list suffices) regenerated, and the signature checked when allowed "
          "signers are given. A good signature proves who produced these bytes; it does not prove that the "
          "machine, emulator or trainer were honest when they ran, nor that the host is what its self-reported "
          "fields say \xe2\x80\x94 re-running the suite is the check that needs no trust in anyone. See "
          "<a href=\"");
    hw_attr(w, p->readme_href ? p->readme_href : "README.md", HW_CAP_CELL);
    HW(w, "#receipts-signatures-and-what-they-prove\">README: receipts, signatures and what they prove</a>.</p>"
          "</section>\n");
}
