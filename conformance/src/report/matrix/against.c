/* against.c — `matrix --against DIR`: verdicts and digests compared with
 * published receipts. */
#include <cjson/cJSON.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/matrix/matrix.h"

static const char *verdict_class(const mreceipt *r)
{
    return !r ? "no receipt" : r->build_failed ? "build failed" : mx_passed(r) ? mx_pass_text(r) : "FAIL";
}

/* One profile of one host: the first differing step, every checkpoint's
 * digest and every window's verdict. */
static size_t compare_profile(FILE *o, const char *dir, const char *host, const char *name, const mreceipt *pa,
                              const mreceipt *pb)
{
    mreceipt *a = xcalloc(2, sizeof *a), *b = a + 1; /* views: large, so not on the stack */
    mx_profile_view(pa, name, a);
    mx_profile_view(pb, name, b);
    size_t diffs = 0;
    /* a set of one profile keeps the one-table wording: "host: step 50: ..." */
    char label[80];
    snprintf(label, sizeof label, "%.60s%s", pa->n_prof == 1 && pb->n_prof <= 1 ? "" : name,
             pa->n_prof == 1 && pb->n_prof <= 1 ? "" : " ");
    if (!b->view) {
        fprintf(o, "against %s: %s: profile %s: published, not in the receipt now\n", dir, host, name);
        free(a);
        return 1;
    }
    if (a->first_diff != b->first_diff) {
        fprintf(o, "against %s: %s: %sfirst differing step published %d, now %d (-1: none)\n", dir, host, label,
                a->first_diff, b->first_diff);
        diffs++;
    }
    for (size_t k = 0; k < a->n_ck; k++) {
        int j = mx_ck_index(b, a->ck_step[k]);
        const char *sb = j >= 0 ? b->ck_sha[j] : "(no checkpoint)";
        if (strcmp(a->ck_sha[k], sb) != 0) {
            fprintf(o, "against %s: %s: %sstep %u: published %s, now %s\n", dir, host, label, (unsigned)a->ck_step[k],
                    a->ck_sha[k][0] ? a->ck_sha[k] : "(no checkpoint)", sb[0] ? sb : "(no checkpoint)");
            diffs++;
        }
    }
    for (size_t k = 0; k < b->n_ck; k++)
        if (mx_ck_index(a, b->ck_step[k]) < 0) {
            fprintf(o, "against %s: %s: %sstep %u: not published, now %s\n", dir, host, label, (unsigned)b->ck_step[k],
                    b->ck_sha[k][0] ? b->ck_sha[k] : "(no checkpoint)");
            diffs++;
        }
    const mprofile *wa = a->view, *wb = b->view;
    for (size_t k = 0; wa && k < wa->n_win; k++) {
        const mwindow *x = mx_window_of(b, wa->win[k].from, wa->win[k].to);
        if (!x || strcmp(x->verdict, wa->win[k].verdict) != 0) {
            fprintf(o, "against %s: %s: %swindow %u-%u: published %s, now %s\n", dir, host, label,
                    (unsigned)wa->win[k].from, (unsigned)wa->win[k].to, wa->win[k].verdict, x ? x->verdict : "not run");
            diffs++;
        }
    }
    for (size_t k = 0; k < wb->n_win; k++)
        if (!mx_window_of(a, wb->win[k].from, wb->win[k].to)) {
            fprintf(o, "against %s: %s: %swindow %u-%u: not published, now %s\n", dir, host, label,
                    (unsigned)wb->win[k].from, (unsigned)wb->win[k].to, wb->win[k].verdict);
            diffs++;
        }
    free(a);
    return diffs;
}

/* Same verdict, and per profile the same first differing step, digests at
 * every checkpoint step and window verdicts, per host; timings, dates and
 * host details are not compared. Returns the number of
 * disagreements, each printed. */
size_t mx_compare_against(FILE *o, const char *dir, const mhost *hs, size_t nh, const mreceipt *cur, size_t nc,
                       const mreceipt *pub, size_t np)
{
    size_t diffs = 0;
    for (size_t i = 0; i < nh; i++) {
        const mreceipt *a = mx_find_receipt(pub, np, hs[i].name), *b = mx_find_receipt(cur, nc, hs[i].name);
        if (hs[i].machine && !a)
            continue; /* a machine of one's own: nothing was published for it */
        const char *va = verdict_class(a), *vb = verdict_class(b);
        if (strcmp(va, vb) != 0) {
            fprintf(o, "against %s: %s: verdict published %s, now %s\n", dir, hs[i].name, va, vb);
            diffs++;
        }
        if (!a || !b || a->build_failed || b->build_failed)
            continue;
        for (size_t k = 0; k < a->n_prof; k++)
            diffs += compare_profile(o, dir, hs[i].name, a->prof[k].name, a, b);
        for (size_t k = 0; k < b->n_prof; k++)
            if (!mx_profile_of(a, b->prof[k].name)) {
                fprintf(o, "against %s: %s: profile %s: not published, in the receipt now\n", dir, hs[i].name,
                        b->prof[k].name);
                diffs++;
            }
    }
    for (size_t i = 0; i < np; i++) {
        int known = 0;
        for (size_t k = 0; k < nh && !known; k++)
            known = pub[i].host && !strcmp(pub[i].host, hs[k].name);
        if (!known) {
            fprintf(o, "against %s: %s: a published receipt for host '%s', which the hosts file does not list\n", dir,
                    pub[i].path, pub[i].host ? pub[i].host : "?");
            diffs++;
        }
    }
    return diffs;
}
