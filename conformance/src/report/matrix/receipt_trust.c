/* receipt_trust.c — the gate in front of the matrix: a runner receipt enters
 * the table only as a DSSE envelope that verifies (trust/verify_receipt.h:
 * every verdict recomputed, every cross-reference checked, the signature
 * against the allowed signers — the project's by default — unsigned only
 * with --allow-unsigned) and only as a full certification, a FAIL, or a
 * certification by windows: a PARTIAL whose only narrowing is --steps (a
 * training prefix on a slow host) and whose every window, resumed from the
 * golden states the set ships, passed (spec §8.4; conformance/README.md
 * "matrix"). Any other PARTIAL, an UNOFFICIAL or REPRODUCTION run, a bare
 * or hand-edited receipt is refused, naming why. Build-failure records
 * (ci/matrix.sh) are not runner receipts and pass. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/version.h"
#include "report/matrix/matrix.h"
#include "verdict/scope.h"

static verify_opts trust = {NULL, NULL, 0};
static int configured;

void mx_trust_config(const char *allowed_signers, const char *vectors, int allow_unsigned)
{
    trust.allowed_signers = allowed_signers ? allowed_signers : conform_default_allowed_signers();
    trust.vectors = vectors;
    trust.allow_unsigned = allow_unsigned;
    configured = 1;
}

static const char *str_at(const cJSON *o, const char *k)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

#define NO_WINDOW "no window ran (--windows)"

const char *mx_not_by_windows(const cJSON *r)
{
    const char *verdict = str_at(r, "verdict");
    if (!verdict || strcmp(verdict, "PARTIAL") != 0)
        return "not a PARTIAL";
    const cJSON *opt = cJSON_GetObjectItemCaseSensitive(r, "options");
    const cJSON *steps = cJSON_GetObjectItemCaseSensitive(opt, "steps");
    const char *level = str_at(opt, "level");
    const cJSON *filters = cJSON_GetObjectItemCaseSensitive(opt, "filters");
    if (!level || strcmp(level, "all") || !cJSON_IsNumber(steps) || steps->valuedouble < 0 ||
        (filters && cJSON_GetArraySize(filters) != 0) || str_at(opt, "profile") ||
        cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(opt, "fresh_only")))
        return "narrowed by more than --steps (options)";
    const cJSON *reasons = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(r, "scope"), "reasons");
    const cJSON *x;
    cJSON_ArrayForEach(x, reasons)
    {
        /* --steps and the train cases it leaves out; any other reason (the
         * shell form, a spec version below the set's, ...) is a narrowing */
        if (!cJSON_IsString(x) || (strncmp(x->valuestring, "--steps ", 8) != 0 &&
                                   !(strncmp(x->valuestring, "level train: ", 13) == 0 &&
                                     strstr(x->valuestring, ": not run (--steps))"))))
            return "narrowed by more than --steps (scope reasons)";
    }
    const cJSON *levels = cJSON_GetObjectItemCaseSensitive(r, "levels");
    static const char *const must_pass[2] = {"ops", "fresh"};
    for (int i = 0; i < 2; i++) {
        const char *v = str_at(cJSON_GetObjectItemCaseSensitive(levels, must_pass[i]), "verdict");
        if (!v || strcmp(v, "PASS"))
            return "a level other than train did not pass";
    }
    size_t n_win = 0;
    cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(r, "cases"))
    {
        const char *id = str_at(x, "id"), *lv = str_at(x, "level"), *v = str_at(x, "verdict");
        if (!id || !lv || !v)
            return "a case without id, level or verdict";
        if (!strcmp(v, "FAIL") || !strcmp(v, "ERROR"))
            return "a case failed";
        if (!strcmp(lv, "train") && strstr(id, "/window/")) {
            if (strcmp(v, "PASS"))
                return "a window did not pass";
            n_win++;
        } else if (!strcmp(v, "SKIP") && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(x, "required"))) {
            const char *why = str_at(x, "reason");
            if (strcmp(lv, "train") || !why || strcmp(why, "not run (--steps)"))
                return "a required case was skipped for another reason than --steps";
        }
    }
    return n_win ? NULL : NO_WINDOW;
}

int mx_prefix_only(const cJSON *r)
{
    const char *why = mx_not_by_windows(r);
    if (!why || strcmp(why, NO_WINDOW) != 0)
        return 0;
    /* no window case at all: the set ships none (a set with windows gives
     * every profile's window cases to a --windows run, SKIP without
     * train_resume, so they are there) */
    return 1;
}

cJSON *mx_open_receipt(const char *file, verify_info *info, int *by_windows, int *prefix_only)
{
    memset(info, 0, sizeof *info);
    *by_windows = *prefix_only = 0;
    if (!configured)
        mx_trust_config(NULL, NULL, 0);
    cJSON *j = mx_parse_file(file, RECEIPT_CAP);
    if (!j)
        return NULL;
    const cJSON *schema = cJSON_GetObjectItemCaseSensitive(j, "schema");
    if (cJSON_IsString(schema) && !strcmp(schema->valuestring, "isotrain-matrix-build-failure-v1"))
        return j;
    int enveloped = cJSON_GetObjectItemCaseSensitive(j, "payloadType") != NULL;
    cJSON_Delete(j);
    if (!enveloped) {
        mx_bad(file, NULL, "refused: a bare receipt, not a DSSE envelope: nothing binds it to what ran "
                           "(the runner writes receipts as in-toto Statements in DSSE envelopes; isotrain-conform verify)");
        return NULL;
    }
    problems pr;
    problems_init(&pr);
    cJSON *r = verify_receipt_file(file, &trust, info, &pr);
    if (!r) {
        mx_bad(file, NULL, "refused: the receipt does not verify (%zu problem%s):", pr.n, pr.n == 1 ? "" : "s");
        problems_print(&pr, mx_messages(), "  ");
    } else if (info->reproduction) {
        mx_bad(file, "verdict", "refused: REPRODUCTION is %s", SCOPE_NOT_EVIDENCE);
        cJSON_Delete(r);
        r = NULL;
    } else if (strcmp(info->verdict, "PASS") != 0 && strcmp(info->verdict, "FAIL") != 0) {
        const char *why = mx_not_by_windows(r);
        if (!why)
            *by_windows = 1;
        else if (mx_prefix_only(r))
            *prefix_only = 1;
        else {
            mx_bad(file, "verdict", "refused: %s is not a certification (a full run on an official vector set with a "
                                    "bound subject is PASS or FAIL; a PARTIAL only by --steps whose every window "
                                    "passed is a certification by windows, and this is not one: %s; see the "
                                    "receipt's scope.reasons)", info->verdict, why);
            cJSON_Delete(r);
            r = NULL;
        }
    }
    problems_free(&pr);
    return r;
}
