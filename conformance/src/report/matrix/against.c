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
    return !r ? "no receipt" : r->build_failed ? "build failed" : mx_passed(r) ? "PASS" : "FAIL";
}

/* Same verdict and the same digests at every checkpoint step, per host;
 * timings, dates and host details are not compared. Returns the number of
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
        if (a->first_diff != b->first_diff) {
            fprintf(o, "against %s: %s: first differing step published %d, now %d (-1: none)\n", dir, hs[i].name,
                    a->first_diff, b->first_diff);
            diffs++;
        }
        for (size_t k = 0; k < a->n_ck; k++) {
            int j = mx_ck_index(b, a->ck_step[k]);
            const char *sb = j >= 0 ? b->ck_sha[j] : "(no checkpoint)";
            if (strcmp(a->ck_sha[k], sb) != 0) {
                fprintf(o, "against %s: %s: step %u: published %s, now %s\n", dir, hs[i].name, (unsigned)a->ck_step[k],
                        a->ck_sha[k][0] ? a->ck_sha[k] : "(no checkpoint)", sb[0] ? sb : "(no checkpoint)");
                diffs++;
            }
        }
        for (size_t k = 0; k < b->n_ck; k++)
            if (mx_ck_index(a, b->ck_step[k]) < 0) {
                fprintf(o, "against %s: %s: step %u: not published, now %s\n", dir, hs[i].name, (unsigned)b->ck_step[k],
                        b->ck_sha[k][0] ? b->ck_sha[k] : "(no checkpoint)");
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
