/* receipt_trust.c — the gate in front of the matrix: a runner receipt enters
 * the table only as a DSSE envelope that verifies (trust/verify_receipt.h:
 * every verdict recomputed, every cross-reference checked, the signature
 * against the allowed signers — the project's by default — unsigned only
 * with --allow-unsigned) and only as a full certification, a FAIL, a
 * recipe's certification (verify checked its recipe digest against the set;
 * the table shows it apart from the official ones, issue 32 item 3) or a
 * certification by windows: a PARTIAL whose only narrowing is --steps (a
 * training prefix on a slow host) and in which every profile of the set is
 * covered by the fresh windows its run seed draws (fresh/fresh_windows.h:
 * start states the IUT cannot have computed in advance, one window in each
 * third of the run), each passed (DESIGN.md "Windows must be earned";
 * spec/iut-protocol.md P7 1.2.1; conformance/README.md "matrix"). Windows
 * from the golden states a set ships end on shipped states: they must pass
 * when present, but they certify nothing. Any other PARTIAL, an UNOFFICIAL or REPRODUCTION run, a bare
 * or hand-edited receipt is refused, naming why. Build-failure records
 * (ci/matrix.sh) are not runner receipts and pass. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/version.h"
#include "fresh/fresh_windows.h"
#include "report/matrix/matrix.h"
#include "trust/receipt_model.h"
#include "verdict/scope.h"

static verify_opts trust = {NULL, NULL, 0, NULL};
static int configured;

void mx_trust_config(const char *allowed_signers, const char *vectors, int allow_unsigned)
{
    trust.allowed_signers = allowed_signers ? allowed_signers : conform_default_allowed_signers();
    trust.vectors = vectors;
    trust.allow_unsigned = allow_unsigned;
    configured = 1;
}

#define NO_WINDOW "no fresh window ran (--windows): windows from golden states certify nothing"

/* The run seed as the receipt records it (P4 int: digits, no leading zero). */
static int receipt_seed(const cJSON *opt, uint64_t *seed)
{
    const char *s = rm_str(opt, RF_OPTIONS_SEED);
    if (!s || !*s || strlen(s) > 20 || (s[0] == '0' && s[1]) || strspn(s, "0123456789") != strlen(s))
        return -1;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (*end || (v == ~0ull && strcmp(s, "18446744073709551615") != 0))
        return -1;
    *seed = v;
    return 0;
}

static const cJSON *train_case(const cJSON *r, const char *id)
{
    const cJSON *x;
    cJSON_ArrayForEach(x, rm_in(r, RF_CASES))
    {
        const char *i = rm_str(x, RF_CASES_ID), *lv = rm_str(x, RF_CASES_LEVEL);
        if (i && lv && !strcmp(i, id) && !strcmp(lv, "train"))
            return x;
    }
    return NULL;
}

/* Every profile of the set covered by the fresh windows the run seed draws,
 * each PASS; NULL when so, else why not (a static buffer). */
static const char *fresh_coverage(const cJSON *r)
{
    static char why[320];
    uint64_t seed;
    if (receipt_seed(rm_in(r, RF_OPTIONS), &seed) != 0)
        return "options.seed: not a run seed";
    const cJSON *profs = rm_in(rm_in(r, RF_VECTORS), RF_VECTORS_PROFILES);
    if (!cJSON_IsArray(profs) || cJSON_GetArraySize(profs) == 0)
        return "vectors.profiles: no profile to cover";
    const cJSON *p;
    cJSON_ArrayForEach(p, profs)
    {
        const char *name = rm_str(p, RF_VECTORS_PROFILES_PROFILE);
        const cJSON *st = rm_in(p, RF_VECTORS_PROFILES_STEPS);
        fresh_window_plan plan;
        if (!name || !cJSON_IsNumber(st) || st->valuedouble < 0 || st->valuedouble > 1e9 ||
            st->valuedouble != (double)(uint32_t)st->valuedouble ||
            fresh_windows_plan(seed, name, (uint32_t)st->valuedouble, &plan) != 0) {
            snprintf(why, sizeof why, "profile %s: no fresh windows are drawn for it, so windows cannot cover it",
                     name ? name : "(unnamed)");
            return why;
        }
        for (int w = 0; w < FRESH_WINDOWS; w++) {
            char id[160];
            snprintf(id, sizeof id, "%s/fresh-window/%u-%u", name, (unsigned)plan.from[w], (unsigned)plan.to[w]);
            const cJSON *c = train_case(r, id);
            const char *v = c ? rm_str(c, RF_CASES_VERDICT) : NULL;
            if (!v || strcmp(v, "PASS") != 0) {
                snprintf(why, sizeof why, "profile %s: the fresh window %u-%u its run seed draws %s", name,
                         (unsigned)plan.from[w], (unsigned)plan.to[w], c ? "did not pass" : "is not in the receipt");
                return why;
            }
        }
    }
    return NULL;
}

const char *mx_not_by_windows(const cJSON *r)
{
    const char *verdict = rm_str(r, RF_VERDICT);
    if (!verdict || strcmp(verdict, "PARTIAL") != 0)
        return "not a PARTIAL";
    const cJSON *opt = rm_in(r, RF_OPTIONS);
    const cJSON *steps = rm_in(opt, RF_OPTIONS_STEPS);
    const char *level = rm_str(opt, RF_OPTIONS_LEVEL);
    const cJSON *filters = rm_in(opt, RF_OPTIONS_FILTERS);
    if (!level || strcmp(level, "all") || !cJSON_IsNumber(steps) || steps->valuedouble < 0 ||
        (filters && cJSON_GetArraySize(filters) != 0) || rm_str(opt, RF_OPTIONS_PROFILE) ||
        cJSON_IsTrue(rm_in(opt, RF_OPTIONS_FRESH_ONLY)))
        return "narrowed by more than --steps (options)";
    const cJSON *reasons = rm_in(rm_in(r, RF_SCOPE), RF_SCOPE_REASONS);
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
    const cJSON *levels = rm_in(r, RF_LEVELS);
    static const rf_id must_pass[2][2] = {{RF_LEVELS_OPS, RF_LEVELS_OPS_VERDICT}, {RF_LEVELS_FRESH, RF_LEVELS_FRESH_VERDICT}};
    for (int i = 0; i < 2; i++) {
        const char *v = rm_str(rm_in(levels, must_pass[i][0]), must_pass[i][1]);
        if (!v || strcmp(v, "PASS"))
            return "a level other than train did not pass";
    }
    size_t n_fresh = 0;
    cJSON_ArrayForEach(x, rm_in(r, RF_CASES))
    {
        const char *id = rm_str(x, RF_CASES_ID), *lv = rm_str(x, RF_CASES_LEVEL), *v = rm_str(x, RF_CASES_VERDICT);
        if (!id || !lv || !v)
            return "a case without id, level or verdict";
        if (!strcmp(v, "FAIL") || !strcmp(v, "ERROR"))
            return "a case failed";
        if (!strcmp(lv, "train") && (strstr(id, "/window/") || strstr(id, "/fresh-window/"))) {
            if (strcmp(v, "PASS"))
                return "a window did not pass";
            n_fresh += strstr(id, "/fresh-window/") != NULL;
        } else if (!strcmp(v, "SKIP") && cJSON_IsTrue(rm_in(x, RF_CASES_REQUIRED))) {
            const char *why = rm_str(x, RF_CASES_REASON);
            if (strcmp(lv, "train") || !why || strcmp(why, "not run (--steps)"))
                return "a required case was skipped for another reason than --steps";
        }
    }
    return n_fresh ? fresh_coverage(r) : NO_WINDOW;
}

int mx_prefix_only(const cJSON *r)
{
    const char *why = mx_not_by_windows(r);
    if (!why || strcmp(why, NO_WINDOW) != 0)
        return 0;
    /* no fresh window at all: a run without --windows, or a receipt of a
     * runner before fresh windows (its golden windows certify nothing): the
     * prefix is what it certifies (a --windows run without train_resume has
     * its fresh windows SKIP, and is refused above) */
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
    const cJSON *schema = rm_in(j, RF_SCHEMA);
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
        mx_bad(file, receipt_fields[RF_VERDICT].path, "refused: REPRODUCTION is %s", SCOPE_NOT_EVIDENCE);
        cJSON_Delete(r);
        r = NULL;
    } else if (strcmp(info->verdict, "PASS") != 0 && strcmp(info->verdict, "FAIL") != 0 &&
               !mx_is_recipe_pass(info->verdict, info->recipe_sha256)) {
        const char *why = mx_not_by_windows(r);
        if (!why)
            *by_windows = 1;
        else if (mx_prefix_only(r))
            *prefix_only = 1;
        else {
            mx_bad(file, receipt_fields[RF_VERDICT].path, "refused: %s is not a certification (a full run on an official vector set with a "
                                    "bound subject is PASS or FAIL; a PARTIAL only by --steps whose fresh windows "
                                    "cover every profile and passed is a certification by windows, and this is not "
                                    "one: %s; see the "
                                    "receipt's scope.reasons)", info->verdict, why);
            cJSON_Delete(r);
            r = NULL;
        }
    }
    problems_free(&pr);
    return r;
}
