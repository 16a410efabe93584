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
#include "trust/receipt_record.h"
#include "vectorset/recipe_set.h"
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
static int receipt_seed(const rv *top, uint64_t *seed)
{
    const char *s = rv_str(top, RF_OPTIONS_SEED);
    if (!s || !*s || strlen(s) > 20 || (s[0] == '0' && s[1]) || strspn(s, "0123456789") != strlen(s))
        return -1;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (*end || (v == ~0ull && strcmp(s, "18446744073709551615") != 0))
        return -1;
    *seed = v;
    return 0;
}

/* Case i, when it is an object (verify has checked the list). */
static const rv *case_at(const rv *top, size_t i)
{
    const rv *x = rv_el(top, RF_CASES, i);
    return x->null ? NULL : x;
}

static const rv *train_case(const rv *top, const char *id)
{
    for (size_t k = 0; k < rv_len(top, RF_CASES); k++) {
        const rv *x = case_at(top, k);
        const char *i = x ? rv_str(x, RF_CASES_ID) : NULL, *lv = x ? rv_str(x, RF_CASES_LEVEL) : NULL;
        if (i && lv && !strcmp(i, id) && !strcmp(lv, "train"))
            return x;
    }
    return NULL;
}

/* The fresh windows profile p of the receipt drew under seed (the runner's
 * plan, fresh_windows.h: a profile's by its row, a recipe's by the recipe);
 * 0, or -1 with why. */
static int plan_of(const rv *top, const verify_info *info, const rv *p, const char *name, uint64_t seed,
                   fresh_window_plan *plan, char *why, size_t size)
{
    double st;
    if (!strcmp(name, RECIPE_SET_PROFILE) && rv_str(top, RF_VECTORS_RECIPE_SHA256)) {
        /* verify loaded the recipe set and read the recipe it pins */
        if (!info || !info->recipe_pinned)
            return snprintf(why, size, "a recipe's fresh windows are drawn from its recipe: give its set (--vectors DIR)"), -1;
        if (fresh_windows_plan_recipe(seed, info->recipe_steps, info->recipe_seed, plan) == 0)
            return 0;
    } else if (rv_num(p, RF_VECTORS_PROFILES_STEPS, &st) == 0 && st >= 0 && st <= 1e9 && st == (double)(uint32_t)st &&
               fresh_windows_plan(seed, name, (uint32_t)st, plan) == 0)
        return 0;
    snprintf(why, size, "profile %s: no fresh windows are drawn for it, so windows cannot cover it", name);
    return -1;
}

/* Whether profile p's fresh windows, drawn from seed, all passed: NULL, or
 * why not (in why). */
static const char *profile_covered(const rv *top, const verify_info *info, const rv *p, uint64_t seed, char *why,
                                   size_t size)
{
    const char *name = p->null ? NULL : rv_str(p, RF_VECTORS_PROFILES_PROFILE);
    fresh_window_plan plan;
    if (!name) {
        snprintf(why, size, "profile (unnamed): no fresh windows are drawn for it, so windows cannot cover it");
        return why;
    }
    if (plan_of(top, info, p, name, seed, &plan, why, size) != 0)
        return why;
    for (int w = 0; w < FRESH_WINDOWS; w++) {
        char id[160];
        snprintf(id, sizeof id, "%s/fresh-window/%u-%u", name, (unsigned)plan.from[w], (unsigned)plan.to[w]);
        const rv *c = train_case(top, id);
        const char *v = c ? rv_str(c, RF_CASES_VERDICT) : NULL;
        if (!v || strcmp(v, "PASS") != 0) {
            snprintf(why, size, "profile %s: the fresh window %u-%u its run seed draws %s", name, (unsigned)plan.from[w],
                     (unsigned)plan.to[w], c ? "did not pass" : "is not in the receipt");
            return why;
        }
    }
    return NULL;
}

/* Every profile of the set covered by the fresh windows the run seed draws,
 * each PASS; NULL when so, else why not (a static buffer). */
static const char *fresh_coverage(const rv *top, const verify_info *info)
{
    static char why[800];
    uint64_t seed;
    if (receipt_seed(top, &seed) != 0)
        return "options.seed: not a run seed";
    size_t n = rv_len(top, RF_VECTORS_PROFILES);
    if (n == 0)
        return "vectors.profiles: no profile to cover";
    for (size_t i = 0; i < n; i++)
        if (profile_covered(top, info, rv_el(top, RF_VECTORS_PROFILES, i), seed, why, sizeof why))
            return why;
    return NULL;
}

/* Narrowed by --steps only: the options and the scope's reasons. */
static const char *narrowed_by_steps_only(const rv *top)
{
    const char *level = rv_str(top, RF_OPTIONS_LEVEL);
    double steps;
    if (!level || strcmp(level, "all") || rv_num(top, RF_OPTIONS_STEPS, &steps) != 0 || steps < 0 ||
        rv_len(top, RF_OPTIONS_FILTERS) != 0 || rv_str(top, RF_OPTIONS_PROFILE) || rv_true(top, RF_OPTIONS_FRESH_ONLY))
        return "narrowed by more than --steps (options)";
    for (size_t i = 0; i < rv_len(top, RF_SCOPE_REASONS); i++) {
        /* --steps and the train cases it leaves out; any other reason (the
         * shell form, a spec version below the set's, ...) is a narrowing */
        const char *x = rv_el(top, RF_SCOPE_REASONS, i)->s;
        if (!x || (strncmp(x, "--steps ", 8) != 0 &&
                   !(strncmp(x, "level train: ", 13) == 0 && strstr(x, ": not run (--steps))"))))
            return "narrowed by more than --steps (scope reasons)";
    }
    return NULL;
}

const char *mx_not_by_windows(const rv *top, const verify_info *info)
{
    const char *verdict = rv_str(top, RF_VERDICT);
    if (!verdict || strcmp(verdict, "PARTIAL") != 0)
        return "not a PARTIAL";
    const char *narrowed = narrowed_by_steps_only(top);
    if (narrowed)
        return narrowed;
    static const rf_id must_pass[2] = {RF_LEVELS_OPS_VERDICT, RF_LEVELS_FRESH_VERDICT};
    for (int i = 0; i < 2; i++) {
        const char *v = rv_str(top, must_pass[i]);
        if (!v || strcmp(v, "PASS"))
            return "a level other than train did not pass";
    }
    size_t n_fresh = 0;
    for (size_t k = 0; k < rv_len(top, RF_CASES); k++) {
        const rv *x = case_at(top, k);
        const char *id = x ? rv_str(x, RF_CASES_ID) : NULL, *lv = x ? rv_str(x, RF_CASES_LEVEL) : NULL,
                   *v = x ? rv_str(x, RF_CASES_VERDICT) : NULL;
        if (!id || !lv || !v)
            return "a case without id, level or verdict";
        if (!strcmp(v, "FAIL") || !strcmp(v, "ERROR"))
            return "a case failed";
        if (!strcmp(lv, "train") && (strstr(id, "/window/") || strstr(id, "/fresh-window/"))) {
            if (strcmp(v, "PASS"))
                return "a window did not pass";
            n_fresh += strstr(id, "/fresh-window/") != NULL;
        } else if (!strcmp(v, "SKIP") && rv_true(x, RF_CASES_REQUIRED)) {
            const char *why = rv_str(x, RF_CASES_REASON);
            if (strcmp(lv, "train") || !why || strcmp(why, "not run (--steps)"))
                return "a required case was skipped for another reason than --steps";
        }
    }
    return n_fresh ? fresh_coverage(top, info) : NO_WINDOW;
}

int mx_prefix_only(const rv *top)
{
    const char *why = mx_not_by_windows(top, NULL);
    if (!why || strcmp(why, NO_WINDOW) != 0)
        return 0;
    /* no fresh window at all: a run without --windows, or a receipt of a
     * runner before fresh windows (its golden windows certify nothing): the
     * prefix is what it certifies (a --windows run without train_resume has
     * its fresh windows SKIP, and is refused above) */
    return 1;
}

/* Refuses (naming why) what verify let through but is not a certification:
 * a REPRODUCTION, a PARTIAL that is not one by windows or to a prefix. 0, or -1. */
static int certification(const char *file, const verify_info *info, const rv *top, int *by_windows, int *prefix_only)
{
    if (info->reproduction) {
        mx_bad(file, receipt_fields[RF_VERDICT].path, "refused: REPRODUCTION is %s", SCOPE_NOT_EVIDENCE);
        return -1;
    }
    if (!strcmp(info->verdict, "PASS") || !strcmp(info->verdict, "FAIL") ||
        mx_is_recipe_pass(info->verdict, info->recipe_sha256))
        return 0;
    const char *why = mx_not_by_windows(top, info);
    if (!why)
        *by_windows = 1;
    else if (mx_prefix_only(top))
        *prefix_only = 1;
    else {
        mx_bad(file, receipt_fields[RF_VERDICT].path, "refused: %s is not a certification (a full run on an official vector set with a "
                                "bound subject is PASS or FAIL; a PARTIAL only by --steps whose fresh windows "
                                "cover every profile and passed is a certification by windows, and this is not "
                                "one: %s; see the "
                                "receipt's scope.reasons)", info->verdict, why);
        return -1;
    }
    return 0;
}

int mx_open_receipt(const char *file, verify_info *info, receipt_record *rec, int *by_windows, int *prefix_only)
{
    memset(info, 0, sizeof *info);
    memset(rec, 0, sizeof *rec);
    *by_windows = *prefix_only = 0;
    if (!configured)
        mx_trust_config(NULL, NULL, 0);
    cJSON *j = mx_parse_file(file, RECEIPT_CAP);
    if (!j)
        return -1;
    const cJSON *schema = cJSON_GetObjectItemCaseSensitive(j, rf_key(RF_SCHEMA));
    if (cJSON_IsString(schema) && !strcmp(schema->valuestring, "isotrain-matrix-build-failure-v1")) {
        rec->doc = j; /* not a receipt: the record of a failed build */
        return 1;
    }
    int enveloped = cJSON_GetObjectItemCaseSensitive(j, "payloadType") != NULL;
    cJSON_Delete(j);
    if (!enveloped) {
        mx_bad(file, NULL, "refused: a bare receipt, not a DSSE envelope: nothing binds it to what ran "
                           "(the runner writes receipts as in-toto Statements in DSSE envelopes; isotrain-conform verify)");
        return -1;
    }
    problems pr;
    problems_init(&pr);
    cJSON *r = verify_receipt_file(file, &trust, info, &pr);
    int rc = -1;
    if (!r) {
        mx_bad(file, NULL, "refused: the receipt does not verify (%zu problem%s):", pr.n, pr.n == 1 ? "" : "s");
        problems_print(&pr, mx_messages(), "  ");
    } else if (receipt_record_take(rec, file, r, &pr) != 0) /* the one fill: the matrix reads rec only */
        mx_bad(file, NULL, "refused: %s", pr.items[0]);
    else
        rc = certification(file, info, &rec->top, by_windows, prefix_only);
    if (rc != 0)
        receipt_record_free(rec);
    problems_free(&pr);
    return rc;
}
