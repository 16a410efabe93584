/* verify_receipt.c — see verify_receipt.h. A receipt is evidence only if
 * what it claims follows from what it records: nothing here trusts a verdict,
 * a count or a "matches" flag the receipt states. */
#include "trust/verify_receipt.h"
#include "core/json_checked.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/results.h"
#include "core/util.h"
#include "core/version.h"
#include "fresh/fresh.h"
#include "isotrain.h"
#include "trust/dsse.h"
#include "trust/keys.h"
#include "trust/receipt_open.h"
#include "trust/receipt_record.h"
#include "trust/receipt_schema.h"
#include "trust/set_signature.h"
#include "vectorset/manifest.h"
#include "vectorset/official.h"
#include "vectorset/ops_base.h"
#include "vectorset/recipe_set.h"
#include "vectorset/vectors_load.h"
#include "verdict/requirements.h"
#include "verdict/scope.h"

/* The in-toto Statement's members (trust/dsse.h), which are not the
 * receipt's. */
static const cJSON *sget(const cJSON *o, const char *k)
{
    return cJSON_IsObject(o) ? cJSON_GetObjectItemCaseSensitive(o, k) : NULL;
}

static const char *sstr(const cJSON *o, const char *k)
{
    const cJSON *v = sget(o, k);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* A whole number in [lo, hi] (a receipt is untrusted: a double outside a
 * type's range converted to it is undefined behaviour, so the range is
 * checked on the double first). 0, or -1 when absent, fractional, out of
 * range or not a number. */
static int whole(const rv *o, rf_id k, double lo, double hi, long *out)
{
    double d;
    if (rv_num(o, k, &d) != 0 || !isfinite(d) || d < lo || d > hi || d != floor(d))
        return -1;
    *out = (long)d;
    return 0;
}

/* The case list by id, so every lookup is O(1) and a receipt is checked in
 * time linear in its size (open addressing over the ids). */
static struct {
    const results *res;
    size_t n, cap;
    size_t *slot; /* index + 1, 0 empty */
} ix;

/* Cases are named by suite and id: an op group and a profile may share a
 * name (addmod113/1 is an op case of ops/addmod113 and a step of
 * train/addmod113; fresh/addmod113/1 a case of fresh/ops/addmod113 and of
 * fresh/train/addmod113). */
static size_t id_hash(const char *suite, const char *s)
{
    size_t h = 1469598103934665603ull;
    for (; *suite; suite++)
        h = (h ^ (unsigned char)*suite) * 1099511628211ull;
    h = (h ^ 0xffu) * 1099511628211ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

static int same_case(const case_result *c, const char *suite, const char *id)
{
    return !strcmp(c->id, id) && !strcmp(c->suite, suite);
}

/* Builds the index; returns the first id that appears twice in one suite,
 * or NULL. */
static const char *index_cases(const results *res)
{
    free(ix.slot);
    ix.res = res;
    ix.n = res->n;
    ix.cap = 16;
    while (ix.cap < 2 * res->n + 1)
        ix.cap *= 2;
    ix.slot = xcalloc(ix.cap, sizeof *ix.slot);
    const char *dup = NULL;
    for (size_t i = 0; i < res->n; i++) {
        size_t h = id_hash(res->c[i].suite, res->c[i].id) & (ix.cap - 1);
        while (ix.slot[h] && !same_case(&res->c[ix.slot[h] - 1], res->c[i].suite, res->c[i].id))
            h = (h + 1) & (ix.cap - 1);
        if (ix.slot[h]) {
            if (!dup)
                dup = res->c[i].id;
        } else
            ix.slot[h] = i + 1;
    }
    return dup;
}

static int parse_verdict(const char *s, verdict *v)
{
    static const char *const n[4] = {"PASS", "FAIL", "SKIP", "ERROR"};
    for (int i = 0; s && i < 4; i++)
        if (!strcmp(s, n[i])) {
            *v = (verdict)i;
            return 0;
        }
    return -1;
}

static int parse_u32_hex(const char *s, uint32_t *out)
{
    if (!s || strncmp(s, "0x", 2) != 0 || strlen(s) != 10 || !is_lower_hex(s + 2, 8))
        return -1;
    *out = (uint32_t)strtoul(s + 2, NULL, 16);
    return 0;
}

/* The case list, as results (verdict/scope.h recomputes from these). */
static int load_cases(const char *file, const rv *top, results *res, problems *pr)
{
    if (!rv_has(top, RF_CASES)) {
        problems_add(pr, "%s: cases: missing (the case list every verdict is recomputed from)", file);
        return -1;
    }
    size_t i = 0, bad = 0;
    for (; i < rv_len(top, RF_CASES); i++) {
        const rv *c = rv_el(top, RF_CASES, i);
        const char *id = rv_str(c, RF_CASES_ID), *lv = rv_str(c, RF_CASES_LEVEL), *su = rv_str(c, RF_CASES_SUITE),
                   *vs = rv_str(c, RF_CASES_VERDICT);
        verdict v;
        if (!id || !lv || !su || parse_verdict(vs, &v) != 0 || !rv_has(c, RF_CASES_REQUIRED) ||
            (strcmp(lv, "protocol") && strcmp(lv, "ops") && strcmp(lv, "train") && strcmp(lv, "fresh"))) {
            /* the first one, then a count: a receipt of an older runner has
             * no level on any case */
            if (!bad++)
                problems_add(pr, "%s: cases[%zu]: expected id, level (protocol|ops|train|fresh), suite, verdict (PASS|FAIL|SKIP|ERROR) and required", file, i);
        } else
            results_add(res, lv, su, id, v, rv_str(c, RF_CASES_REASON), rv_true(c, RF_CASES_REQUIRED), 0);
    }
    if (bad > 1)
        problems_add(pr, "%s: cases: %zu of %zu cases are malformed like that (a receipt of a runner before 1.1?)", file,
                     bad, i);
    return bad ? -1 : 0;
}

static const case_result *find_case(const results *res, const char *suite, const char *id)
{
    if (ix.res != res || ix.n != res->n)
        index_cases(res);
    size_t h = id_hash(suite, id) & (ix.cap - 1);
    while (ix.slot[h]) {
        const case_result *c = &res->c[ix.slot[h] - 1];
        if (same_case(c, suite, id))
            return c;
        h = (h + 1) & (ix.cap - 1);
    }
    return NULL;
}

static void check_counts(const char *file, const rv *top, const results *res, problems *pr)
{
    tally t = results_tally(res, NULL);
    static const rf_id k[4] = {RF_COUNTS_PASSED, RF_COUNTS_FAILED, RF_COUNTS_ERRORS, RF_COUNTS_SKIPPED};
    size_t want[4] = {t.passed, t.failed, t.errors, t.skipped};
    for (int i = 0; i < 4; i++) {
        double d;
        if (rv_num(top, k[i], &d) != 0 || d != (double)want[i])
            problems_add(pr, "%s: %s: the case list has %zu", file, receipt_fields[k[i]].path, want[i]);
    }
}

/* Each level's recorded verdict from its cases (and, under the current
 * rules, its ops session's end: results.h level_from_cases). */
static void check_levels(const char *file, const rv *top, const results *res, int rules, problems *pr)
{
    const char *names[3] = {"ops", "train", "fresh"};
    const char *session[3] = {OPS_SESSION_CASE, NULL, FRESH_OPS_SESSION_CASE};
    static const rf_id recorded[3] = {RF_LEVELS_OPS_VERDICT, RF_LEVELS_TRAIN_VERDICT, RF_LEVELS_FRESH_VERDICT};
    for (int i = 0; i < 3; i++) {
        tally t = results_tally(res, names[i]);
        const char *rec = rv_str(top, recorded[i]);
        const char *at = receipt_fields[recorded[i]].path;
        size_t n = t.passed + t.failed + t.errors + t.skipped;
        level_verdict lv = rules >= 2 ? level_from_cases(res, names[i], session[i]) : level_from_tally(t);
        const char *want = n ? level_verdict_name(lv) : NULL;
        /* the first rules recorded an ops level ERROR from its process alone */
        if (rules < 2 && want && rec && !strcmp(rec, "ERROR") && lv == L_PASS)
            want = "ERROR";
        if (!rec)
            problems_add(pr, "%s: %s: missing", file, at);
        else if (want && strcmp(rec, want) != 0)
            problems_add(pr, "%s: %s: \"%s\", but its cases give %s", file, at, rec, want);
        else if (!want && strcmp(rec, "NOT RUN") != 0 && strcmp(rec, "NOT REACHED") != 0)
            problems_add(pr, "%s: %s: \"%s\", but the level has no case", file, at, rec);
    }
}

/* The spec versions (verdict/requirements.h) from the receipt's hello and
 * the vector set, and every SKIP's `required` flag recomputed from them: a
 * flag is never taken on trust, a skip it hides would hide a gap. */
static void check_requirements(const char *file, const rv *top, results *res, const vector_set *vs, req_ctx *q,
                               problems *pr)
{
    const char *spec = rv_str(top, RF_IUT_SPEC), *hello = rv_str(top, RF_IUT_HELLO);
    /* iut.spec is hello's spec= */
    const char *hs = hello ? strstr(hello, " spec=") : NULL;
    if (spec && (!hs || strncmp(hs + 6, spec, strlen(spec)) != 0 || (hs[6 + strlen(spec)] != ' ' && hs[6 + strlen(spec)])))
        problems_add(pr, "%s: iut.spec: \"%s\" is not the spec= of iut.hello", file, spec);
    req_init(q, vs, spec, rv_str(top, RF_OPTIONS_PROFILE), rv_true(top, RF_OPTIONS_EXHAUSTIVE));
    if (rv_at(top, RF_SPEC)->present) { /* receipts of runners before 1.1.1 have none */
        const char *c = rv_str(top, RF_SPEC_CERTIFIED);
        int ok = q->iut_known ? c && !strcmp(c, q->certified_text) : rv_at(top, RF_SPEC_CERTIFIED)->null;
        if (!ok)
            problems_add(pr, "%s: spec.certified: \"%s\", but the IUT's %s and the vector set's %s give %s", file,
                         c ? c : "(missing)", spec ? spec : "(none)", q->vectors_text,
                         q->iut_known ? q->certified_text : "(none)");
    }
    size_t bad = 0;
    for (size_t i = 0; i < res->n; i++) {
        int want = req_case_kind(q, &res->c[i]) == RQ_REQUIRED;
        if (res->c[i].v == V_SKIP && res->c[i].required != want && !bad++)
            problems_add(pr, "%s: cases (%s): required is %s, but the spec version and options make it %s", file,
                         res->c[i].id, res->c[i].required ? "true" : "false", want ? "true" : "false");
    }
    if (bad > 1)
        problems_add(pr, "%s: cases: %zu skipped cases carry a wrong required flag", file, bad);
    req_apply(q, res);
}

/* The overall verdict and scope from the options and the case list. */
/* The options and trust facts of the receipt into f (verdict/scope.h), as
 * `run` fills them. 0, or -1 after naming a field that cannot be read. */
static int overall_facts(const char *file, const rv *top, const results *res, const receipt_facts *rf,
                         verify_info *info, scope_facts *f, problems *pr)
{
    const case_result *hello = find_case(res, "protocol", "hello");
    f->hello_ok = hello && hello->v == V_PASS;
    f->level = rv_str(top, RF_OPTIONS_LEVEL);
    if (!f->level || (strcmp(f->level, "all") && strcmp(f->level, "ops") && strcmp(f->level, "train"))) {
        problems_add(pr, "%s: options.level: expected \"ops\", \"train\" or \"all\"", file);
        return -1;
    }
    if (!rv_has(top, RF_OPTIONS_FILTERS)) {
        problems_add(pr, "%s: options.filters: expected an array", file);
        return -1;
    }
    f->n_filters = rv_len(top, RF_OPTIONS_FILTERS);
    f->profile = rv_str(top, RF_OPTIONS_PROFILE);
    f->steps = -1;
    if (rv_at(top, RF_OPTIONS_STEPS)->present && whole(top, RF_OPTIONS_STEPS, 0, 1e9, &f->steps) != 0) {
        problems_add(pr, "%s: options.steps: expected a whole number from 0 to 1000000000", file);
        return -1;
    }
    for (size_t pi = 0; pi < rv_len(top, RF_VECTORS_PROFILES); pi++) {
        const rv *p = rv_el(top, RF_VECTORS_PROFILES, pi);
        const char *name = rv_str(p, RF_VECTORS_PROFILES_PROFILE);
        long s = 0;
        if (whole(p, RF_VECTORS_PROFILES_STEPS, 0, 1e9, &s) != 0) {
            problems_add(pr, "%s: vectors.profiles[%zu].steps: expected a whole number from 0 to 1000000000", file, pi);
            return -1;
        }
        if (f->profile && name && strcmp(f->profile, name) != 0)
            f->profile_excludes = 1;
        else if (!f->set_steps || s < f->set_steps)
            f->set_steps = s;
    }
    /* trust: who chose the seed, the subject, the golden vectors left out,
     * an interruption (verdict/scope.h) */
    if (!rv_has(top, RF_OPTIONS_SEED_GIVEN)) {
        problems_add(pr, "%s: options.seed_given: expected true or false", file);
        return -1;
    }
    f->seed_given = rv_true(top, RF_OPTIONS_SEED_GIVEN);
    f->seed = rv_str(top, RF_OPTIONS_SEED);
    info->reproduction = 0;
    if (rf->rules >= 2) {
        if (!rv_has(top, RF_OPTIONS_FRESH_ONLY)) {
            problems_add(pr, "%s: options.fresh_only: expected true or false", file);
            return -1;
        }
        f->fresh_only = rv_true(top, RF_OPTIONS_FRESH_ONLY);
        f->subject_unbound = !(rf->argv_form && rf->bound);
        long sig = 0;
        if (!rv_at(top, RF_INTERRUPTED_BY_SIGNAL)->null && whole(top, RF_INTERRUPTED_BY_SIGNAL, 1, 64, &sig) != 0) {
            problems_add(pr, "%s: interrupted_by_signal: expected null or a signal number from 1 to 64", file);
            return -1;
        }
        f->interrupted = (int)sig;
    }
    return 0;
}

/* The recorded verdict, exit code and scope against the recomputed v. */
static void check_recorded_verdict(const char *file, const rv *top, const run_verdict *v, problems *pr)
{
    const char *rec = rv_str(top, RF_VERDICT);
    if (!rec || strcmp(rec, v->word) != 0)
        problems_add(pr, "%s: verdict: \"%s\", but the case list and options give %s", file, rec ? rec : "(missing)",
                     v->word);
    double d;
    if (rv_num(top, RF_EXIT_CODE, &d) != 0 || d != v->exit_code)
        problems_add(pr, "%s: exit_code: the verdict %s exits %d", file, v->word, v->exit_code);
    if (!rv_has(top, RF_SCOPE_FULL_CERTIFICATION) || rv_true(top, RF_SCOPE_FULL_CERTIFICATION) != !strcmp(v->word, "PASS"))
        problems_add(pr, "%s: scope.full_certification: the verdict is %s", file, v->word);
    if (!rv_has(top, RF_SCOPE_REASONS) || rv_len(top, RF_SCOPE_REASONS) != v->n_reasons)
        problems_add(pr, "%s: scope.reasons: expected %zu reason%s", file, v->n_reasons, v->n_reasons == 1 ? "" : "s");
    else
        for (size_t i = 0; i < v->n_reasons; i++) {
            const char *x = rv_el_str(top, RF_SCOPE_REASONS, i);
            if (!x || strcmp(x, v->reasons[i]) != 0)
                problems_add(pr, "%s: scope.reasons[%zu]: expected \"%s\"", file, i, v->reasons[i]);
        }
}

static void check_overall(const char *file, const rv *top, const results *res, const req_ctx *q,
                          const receipt_facts *rf, verify_info *info, problems *pr)
{
    scope_facts f;
    memset(&f, 0, sizeof f);
    if (overall_facts(file, top, res, rf, info, &f, pr) != 0)
        return;
    f.manifest_digest = rv_str(top, RF_VECTORS_MANIFEST_DIGEST);
    const official_set *off = official_find(f.manifest_digest);
    f.official = off != NULL;
    if (!rv_has(top, RF_VECTORS_OFFICIAL) || rv_true(top, RF_VECTORS_OFFICIAL) != f.official)
        problems_add(pr, "%s: vectors.official: the manifest digest %s is %s", file,
                     f.manifest_digest ? f.manifest_digest : "(none)",
                     f.official ? "pinned by this runner (official)" : "not pinned by this runner (UNOFFICIAL)");
    const char *vv = rv_str(top, RF_VECTORS_VECTOR_VERSION);
    if (off && (!vv || strcmp(vv, off->vector_version) != 0))
        problems_add(pr, "%s: vectors.vector_version: the pinned set with this digest is %s", file,
                     off->vector_version);
    /* a recipe certification (issue 32): its word names the recipe's digest */
    f.recipe_sha256 = rv_str(top, RF_VECTORS_RECIPE_SHA256);
    if (f.recipe_sha256 && (strlen(f.recipe_sha256) != 64 || !is_lower_hex(f.recipe_sha256, 64))) {
        problems_add(pr, "%s: vectors.recipe_sha256: expected 64 lowercase hex digits", file);
        return;
    }
    if (f.recipe_sha256) {
        snprintf(info->recipe_sha256, sizeof info->recipe_sha256, "%s", f.recipe_sha256);
        const char *gen = rv_str(top, RF_VECTORS_GENERATOR), *sg = rv_str(top, RF_VECTORS_RECIPE_SIGNER),
                   *od = rv_str(top, RF_VECTORS_OPS_MANIFEST_DIGEST);
        snprintf(info->generator, sizeof info->generator, "%s", gen ? gen : "(not recorded)");
        snprintf(info->recipe_signer, sizeof info->recipe_signer, "%s", sg ? sg : "");
        snprintf(info->ops_digest, sizeof info->ops_digest, "%s", od ? od : "");
    }
    f.req = q;
    scope_facts_from_results(&f, res);
    run_verdict v;
    scope_verdict(&f, &v);
    snprintf(info->verdict, sizeof info->verdict, "%s", v.word);
    info->reproduction = !strcmp(v.word, "REPRODUCTION");
    check_recorded_verdict(file, top, &v, pr);
    /* an official set's shape: a full ops level is every op case of the set */
    if (off && !f.n_filters && (!strcmp(f.level, "all") || !strcmp(f.level, "ops")) && f.ops.passed + f.ops.failed + f.ops.errors + f.ops.skipped &&
        f.ops.passed + f.ops.failed + f.ops.errors + f.ops.skipped != off->op_cases)
        problems_add(pr, "%s: cases: %zu ops cases, the official set %s has %zu", file,
                     f.ops.passed + f.ops.failed + f.ops.errors + f.ops.skipped, off->vector_version, off->op_cases);
    run_verdict_free(&v);
}

/* A step as a trace records it: its digest and loss (NULL: absent or null). */
typedef struct {
    const char *sha, *loss;
} step_rec;

/* One step's verdict against the expected digest and loss. */
static void check_step(const char *file, const char *where, const results *res, const char *suite, const char *id,
                       step_rec st, const char *want_sha, int want_has_loss, uint32_t want_loss, problems *pr)
{
    const case_result *c = find_case(res, suite, id);
    if (!c) {
        problems_add(pr, "%s: %s: no case %s in the case list", file, where, id);
        return;
    }
    const char *sha = st.sha, *ls = st.loss;
    uint32_t loss = 0;
    int loss_ok = !want_has_loss || (ls && parse_u32_hex(ls, &loss) == 0 && loss == want_loss);
    int same = sha && want_sha && !strcmp(sha, want_sha) && loss_ok;
    /* a PASS must be earned; a FAIL of a matching checkpoint is the runner's
     * own stricter judgement (the IUT's trace stated another digest, P7) and
     * can never raise a verdict */
    if (c->v == V_PASS && !same)
        problems_add(pr, "%s: %s: case %s is PASS, but its checkpoint %s%s does not match the expected %s%s", file,
                     where, id, sha ? sha : "(none)", want_has_loss && !loss_ok ? " (or its loss)" : "",
                     want_sha ? want_sha : "(none)", want_has_loss ? " and loss" : "");
}

/* The trace of profile pi against tv's: each step once, in order, each
 * PASS earned. Returns the trace's entries by step (the caller frees it). */
static const rv **check_trace(const char *file, const rv *p, size_t pi, const char *name, const train_vec *tv,
                              const results *res, problems *pr)
{
    char tsuite[96];
    snprintf(tsuite, sizeof tsuite, "train/%s", name);
    const rv **by_step = xcalloc((size_t)tv->steps + 1, sizeof *by_step);
    size_t n_tr = 0;
    for (size_t i = 0; i < rv_len(p, RF_LEVELS_TRAIN_PROFILES_TRACE); i++) {
        const rv *st = rv_el(p, RF_LEVELS_TRAIN_PROFILES_TRACE, i);
        long sl;
        if (whole(st, RF_LEVELS_TRAIN_PROFILES_TRACE_STEP, 0, tv->steps, &sl) != 0) {
            problems_add(pr, "%s: levels.train.profiles[%zu].trace[%zu].step: expected a whole number from 0 to %u",
                         file, pi, n_tr, (unsigned)tv->steps);
            break;
        }
        uint32_t s = (uint32_t)sl;
        if (by_step[s]) {
            problems_add(pr, "%s: levels.train.profiles[%zu].trace: step %u twice", file, pi, (unsigned)s);
            break;
        }
        by_step[s] = st;
        if (n_tr != s) {
            problems_add(pr, "%s: levels.train.profiles[%zu].trace[%zu]: step %u out of order", file, pi, n_tr,
                         (unsigned)s);
            break;
        }
        n_tr++;
        char id[96], where[96];
        snprintf(id, sizeof id, "%s/%u", name, (unsigned)s);
        snprintf(where, sizeof where, "levels.train.profiles[%zu].trace[%u]", pi, (unsigned)s);
        step_rec got = {rv_str(st, RF_LEVELS_TRAIN_PROFILES_TRACE_SHA256), rv_str(st, RF_LEVELS_TRAIN_PROFILES_TRACE_LOSS)};
        check_step(file, where, res, tsuite, id, got, tv->trace[s].digest, s > 0, tv->trace[s].loss, pr);
    }
    for (uint32_t s = 0; s <= tv->steps; s++) {
        char id[96];
        snprintf(id, sizeof id, "%s/%u", name, (unsigned)s);
        const case_result *c = find_case(res, tsuite, id);
        if (c && c->v == V_PASS && !by_step[s]) {
            problems_add(pr, "%s: levels.train.profiles[%zu].trace: case %s is PASS without a recorded digest", file,
                         pi, id);
            break;
        }
    }
    return by_step;
}

/* The first differing step of profile p, when stated: a step of the
 * profile whose case is not a PASS (the matrix shows it). */
static void check_first_difference(const char *file, const rv *p, size_t pi, const char *name, const train_vec *tv,
                                   const results *res, problems *pr)
{
    const rv *fd = rv_at(p, RF_LEVELS_TRAIN_PROFILES_FIRST_DIFFERING_STEP);
    long fds;
    if (!fd->present || fd->null)
        return;
    char id[96], tsuite[96];
    snprintf(tsuite, sizeof tsuite, "train/%s", name);
    if (whole(p, RF_LEVELS_TRAIN_PROFILES_FIRST_DIFFERING_STEP, 0, tv->steps, &fds) != 0)
        problems_add(pr, "%s: levels.train.profiles[%zu].first_differing_step: expected a whole number from 0 to %u",
                     file, pi, (unsigned)tv->steps);
    else if (snprintf(id, sizeof id, "%s/%ld", name, fds) > 0 && find_case(res, tsuite, id) &&
             find_case(res, tsuite, id)->v == V_PASS)
        problems_add(pr, "%s: levels.train.profiles[%zu].first_differing_step: %ld, but case %s is PASS", file, pi,
                     fds, id);
}

/* The checkpoints of profile p: each the trace's digest of its step, its
 * matches_vectors true to the vectors'. */
static void check_checkpoints(const char *file, const rv *p, size_t pi, const train_vec *tv,
                              const rv *const *by_step, problems *pr)
{
    const rf_id cks = RF_LEVELS_TRAIN_PROFILES_CHECKPOINTS;
    if (rv_len(p, cks) > (size_t)tv->steps + 1) {
        problems_add(pr, "%s: levels.train.profiles[%zu].checkpoints: more entries than steps", file, pi);
        return;
    }
    for (size_t k = 0; k < rv_len(p, cks); k++) {
        const rv *st = rv_el(p, cks, k);
        long sl;
        const char *sha = rv_str(st, RF_LEVELS_TRAIN_PROFILES_CHECKPOINTS_SHA256);
        const rf_id m = RF_LEVELS_TRAIN_PROFILES_CHECKPOINTS_MATCHES_VECTORS;
        if (whole(st, RF_LEVELS_TRAIN_PROFILES_CHECKPOINTS_STEP, 0, tv->steps, &sl) != 0) {
            problems_add(pr, "%s: levels.train.profiles[%zu].checkpoints[%zu].step: expected a whole number from 0 to %u",
                         file, pi, k, (unsigned)tv->steps);
            break;
        }
        uint32_t sd = (uint32_t)sl;
        int same = sha && !strcmp(sha, tv->trace[sd].digest);
        if (!rv_has(st, m) || rv_true(st, m) != same)
            problems_add(pr, "%s: levels.train.profiles[%zu].checkpoints[%zu].matches_vectors: the digest %s %s the vectors' %s",
                         file, pi, k, sha ? sha : "(none)", same ? "equals" : "differs from", tv->trace[sd].digest);
        const rv *tst = by_step[sd];
        const char *tsha = tst ? rv_str(tst, RF_LEVELS_TRAIN_PROFILES_TRACE_SHA256) : NULL;
        if (sha && (!tsha || strcmp(sha, tsha) != 0))
            problems_add(pr, "%s: levels.train.profiles[%zu].checkpoints[%zu].sha256: not the trace's digest of step %u",
                         file, pi, k, (unsigned)sd);
    }
}

/* Profile pi's golden run against the vector set's. */
static void check_train_profile(const char *file, const rv *p, size_t pi, const results *res, const vector_set *vs,
                                problems *pr)
{
    const char *name = rv_str(p, RF_LEVELS_TRAIN_PROFILES_PROFILE);
    const train_vec *tv = name ? vectors_train(vs, name) : NULL;
    if (!tv) {
        problems_add(pr, "%s: levels.train.profiles[%zu].profile: not a profile of the vector set", file, pi);
        return;
    }
    /* the run's lengths, whole numbers in [0, 2^32 - 1] as matrix reads them */
    static const rf_id lengths[2] = {RF_LEVELS_TRAIN_PROFILES_STEPS, RF_LEVELS_TRAIN_PROFILES_STEPS_IN_VECTORS};
    for (int k = 0; k < 2; k++) {
        double d;
        if (rv_at(p, lengths[k])->present &&
            (rv_num(p, lengths[k], &d) != 0 || d < 0 || d > UINT32_MAX || d != floor(d)))
            problems_add(pr, "%s: levels.train.profiles[%zu].%s: expected a whole number from 0 to 4294967295", file,
                         pi, rf_key(lengths[k]));
    }
    const rf_id tr = RF_LEVELS_TRAIN_PROFILES_TRACE;
    if (!rv_has(p, tr)) {
        problems_add(pr, "%s: levels.train.profiles[%zu].trace: missing (every step's digest)", file, pi);
        return;
    }
    /* at most one entry per step: a longer list is refused, not walked */
    if (rv_len(p, tr) > (size_t)tv->steps + 1) {
        problems_add(pr, "%s: levels.train.profiles[%zu].trace: %zu entries, the profile has %u steps", file, pi,
                     rv_len(p, tr), (unsigned)tv->steps);
        return;
    }
    const rv **by_step = check_trace(file, p, pi, name, tv, res, pr);
    check_first_difference(file, p, pi, name, tv, res, pr);
    check_checkpoints(file, p, pi, tv, by_step, pr);
    free(by_step);
}

/* Every step of every profile against the vector set's trace. */
static void check_train(const char *file, const rv *top, const results *res, const vector_set *vs, problems *pr)
{
    size_t n = rv_len(top, RF_LEVELS_TRAIN_PROFILES);
    if (n > vs->n_trains) {
        problems_add(pr, "%s: levels.train.profiles: %zu entries, the vector set has %zu profiles", file, n,
                     vs->n_trains);
        return;
    }
    for (size_t pi = 0; pi < n; pi++)
        check_train_profile(file, rv_el(top, RF_LEVELS_TRAIN_PROFILES, pi), pi, res, vs, pr);
}

/* Whether options.filters selects name (no filter: every group). */
static int filter_has(const rv *top, const char *name)
{
    size_t n = rv_len(top, RF_OPTIONS_FILTERS);
    for (size_t i = 0; i < n; i++) {
        const char *x = rv_el_str(top, RF_OPTIONS_FILTERS, i);
        if (x && !strcmp(x, name))
            return 1;
    }
    return n == 0;
}

/* The current rules: every ops session that answered has its case, so a
 * session that misbehaved after its answers cannot be left out. */
static void check_sessions(const char *file, const results *res, problems *pr)
{
    int golden = 0, fresh = 0;
    for (size_t i = 0; i < res->n; i++) {
        const case_result *c = &res->c[i];
        golden |= c->v != V_SKIP && !strcmp(c->level, "ops");
        fresh |= c->v != V_SKIP && !strncmp(c->suite, "fresh/ops/", 10);
    }
    if (golden && !find_case(res, "protocol", OPS_SESSION_CASE))
        problems_add(pr, "%s: cases: %s (how the ops process ended) is missing", file, OPS_SESSION_CASE);
    if (fresh && !find_case(res, "protocol", FRESH_OPS_SESSION_CASE))
        problems_add(pr, "%s: cases: %s (how the fresh ops process ended) is missing", file, FRESH_OPS_SESSION_CASE);
}

/* Every case the options select is in the case list: a deleted FAIL case
 * cannot turn a FAIL into a PASS. */
static void check_complete(const char *file, const rv *top, const results *res, const vector_set *vs, int rules,
                           problems *pr)
{
    const char *level = rv_str(top, RF_OPTIONS_LEVEL), *profile = rv_str(top, RF_OPTIONS_PROFILE);
    if (!level)
        return;
    if (rules >= 2)
        check_sessions(file, res, pr);
    if (rv_true(top, RF_OPTIONS_FRESH_ONLY))
        return; /* the golden vectors did not run: PARTIAL by the scope */
    const case_result *hello = find_case(res, "protocol", "hello");
    if (!hello || hello->v != V_PASS)
        return; /* nothing runs after a failed hello: the run is a FAIL */
    if (strcmp(level, "train") != 0)
        for (size_t g = 0; g < vs->n_groups; g++) {
            if (!filter_has(top, vs->groups[g].group))
                continue;
            char osuite[96];
            snprintf(osuite, sizeof osuite, "ops/%s", vs->groups[g].group);
            for (size_t i = 0; i < vs->groups[g].n_cases; i++)
                if (!find_case(res, osuite, vs->groups[g].cases[i].id)) {
                    problems_add(pr, "%s: cases: the op case %s of the vector set is missing", file,
                                 vs->groups[g].cases[i].id);
                    return;
                }
        }
    if (strcmp(level, "ops") != 0)
        for (size_t t = 0; t < vs->n_trains; t++) {
            const train_vec *tv = &vs->trains[t];
            if ((profile && strcmp(profile, tv->profile) != 0) || !filter_has(top, tv->profile))
                continue;
            char id[96], tsuite[96];
            snprintf(tsuite, sizeof tsuite, "train/%s", tv->profile);
            snprintf(id, sizeof id, "%s/run", tv->profile);
            int missing = !find_case(res, tsuite, id);
            for (uint32_t st = 0; st <= tv->steps && !missing; st++) {
                snprintf(id, sizeof id, "%s/%u", tv->profile, (unsigned)st);
                missing = !find_case(res, tsuite, id);
            }
            if (missing)
                problems_add(pr, "%s: cases: the train case %s of the vector set is missing", file, id);
            /* the fresh-seed run is part of every train level the runner can check */
            if (!strcmp(tv->profile, "mlp13k")) {
                snprintf(id, sizeof id, "fresh/%s/run", tv->profile);
                snprintf(tsuite, sizeof tsuite, "fresh/train/%s", tv->profile);
                if (!find_case(res, tsuite, id))
                    problems_add(pr, "%s: cases: %s (the fresh-seed run, PASS or SKIP) is missing", file, id);
            }
        }
}

/* The fresh-seed run against the linked reference, and the fresh op cases
 * against the ones the run seed generates. */
/* The linked reference's fresh-seed run under a seed, step by step (digest,
 * loss bits; "" once a step fails), kept for the last seed: the matrix and
 * fuzzing verify many receipts of one seed, and 20 reference steps cost more
 * than the rest of a receipt's checks. */
struct ref_step {
    char sha[65];
    uint32_t loss;
};

static const struct ref_step *reference_run(uint64_t seed, uint32_t steps)
{
    static struct ref_step memo[FRESH_MLP13K_STEPS + 1];
    static uint64_t memo_seed;
    static uint32_t memo_steps;
    static int have;
    if (have && memo_seed == seed && memo_steps >= steps)
        return memo;
    it_mlp13k_recipe rec = it_mlp13k_default_recipe();
    rec.seed = seed;
    it_mlp13k_state *s = xmalloc(sizeof *s);
    it_mlp13k_start(&rec, s);
    int dead = 0;
    for (uint32_t t = 0; t <= steps && t <= FRESH_MLP13K_STEPS; t++) {
        if (t > 0 && !dead && it_mlp13k_step(&rec, s) != IT_OK)
            dead = 1;
        memo[t].sha[0] = '\0';
        if (!dead)
            it_params_digest(s->params, IT_MLP13K_NPARAMS, memo[t].sha);
        memo[t].loss = t > 0 ? it_f32_bits(s->last_loss) : 0;
    }
    free(s);
    memo_seed = seed, memo_steps = steps, have = 1;
    return memo;
}

/* How many fresh op cases a group draws: a count that does not depend on the
 * seed (every generator's loops are of fixed length), so it is computed once
 * per group; the ids are fresh/<group>/1..n (fresh_case.c). */
static size_t fresh_count(const char *group)
{
    static struct {
        char *group;
        size_t n;
    } memo[64];
    static size_t n_memo;
    for (size_t i = 0; i < n_memo; i++)
        if (!strcmp(memo[i].group, group))
            return memo[i].n;
    fresh_list l;
    memset(&l, 0, sizeof l);
    const char *why;
    size_t n = fresh_ops_generate(&l, group, 0, &why);
    fresh_list_free(&l);
    if (n_memo < sizeof memo / sizeof memo[0]) {
        memo[n_memo].group = xstrdup(group);
        memo[n_memo++].n = n;
    }
    return n;
}

/* The fresh op cases per group of the first trust rules (isotrain-conform
 * 1.0.0 before issue 16 §10: four or five cases a group, one for adamw). */
static size_t fresh_first_rules_count(const char *group)
{
    static const struct {
        const char *group;
        size_t n;
    } t[] = {{"exp", 5},     {"log", 4},       {"tanh", 5},      {"sweep", 2},        {"dot", 4},      {"linear", 8},
             {"tanh_backward", 4}, {"sgd", 4}, {"embedding", 8}, {"softmax_xent", 6}, {"loss_grad", 2}, {"philox", 4},
             {"rng", 5},     {"sqrt", 3},      {"relu", 2},      {"attention", 4},    {"adamw", 1},    {"addmod113", 1}};
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        if (!strcmp(t[i].group, group))
            return t[i].n;
    return 0;
}

/* The fresh op cases: exactly the ones seed_s draws for the selected
 * groups. The first rules' generators drew fewer cases per group; their
 * receipts (signed by the retired key, checked when published) are held to
 * those counts: the ids fresh/<group>/1..n. -1 when a case is missing
 * (nothing more is checked). */
static int check_fresh_ops(const char *file, const rv *top, const results *res, const vector_set *vs,
                            const req_ctx *q, int rules, const char *seed_s, problems *pr)
{
    size_t want = 0, have = 0;
    for (size_t g = 0; g < vs->n_groups; g++) {
        int sel = filter_has(top, vs->groups[g].group) && req_group_in_scope(q, &vs->groups[g]); /* --profile */
        size_t n = !sel ? 0 : rules < 2 ? fresh_first_rules_count(vs->groups[g].group) : fresh_count(vs->groups[g].group);
        char fsuite[96];
        snprintf(fsuite, sizeof fsuite, "fresh/ops/%s", vs->groups[g].group);
        for (size_t k = 1; k <= n; k++) {
            char id[96];
            snprintf(id, sizeof id, "fresh/%s/%zu", vs->groups[g].group, k);
            if (find_case(res, fsuite, id))
                continue;
            if (rules < 2)
                problems_add(pr, "%s: cases: the fresh case %s is missing", file, id);
            else
                problems_add(pr, "%s: cases: the fresh case %s that seed %s draws is missing", file, id, seed_s);
            return -1;
        }
        want += n;
    }
    for (size_t i = 0; i < res->n; i++)
        have += !strcmp(res->c[i].level, "fresh") && !strncmp(res->c[i].suite, "fresh/ops/", 10);
    if (have != want && rules < 2)
        problems_add(pr, "%s: cases: %zu fresh op cases, the first rules draw %zu", file, have, want);
    else if (have != want)
        problems_add(pr, "%s: cases: %zu fresh op cases, seed %s draws %zu", file, have, seed_s, want);
    return 0;
}

/* The fresh-seed training run: its seed, its length, every step against the
 * linked reference's run from that seed. */
static void check_fresh_training(const char *file, const rv *top, const results *res, unsigned long long seed,
                                 const char *seed_s, problems *pr)
{
    const case_result *run = find_case(res, "fresh/train/mlp13k", "fresh/mlp13k/run");
    if (!rv_at(top, RF_LEVELS_FRESH_TRAINING)->present) {
        if (run && run->v != V_SKIP)
            problems_add(pr, "%s: levels.fresh.training: missing, but fresh/mlp13k/run is %s", file,
                         verdict_name(run->v));
        return;
    }
    const char *ts = rv_str(top, RF_LEVELS_FRESH_TRAINING_SEED);
    if (!ts || strcmp(ts, seed_s) != 0)
        problems_add(pr, "%s: levels.fresh.training.seed: not the run seed %s", file, seed_s);
    /* the runner trains FRESH_MLP13K_STEPS (fewer with --steps): a receipt
     * claiming more is refused before anything is recomputed */
    long opt_steps = -1, nsteps;
    if (rv_at(top, RF_OPTIONS_STEPS)->present)
        whole(top, RF_OPTIONS_STEPS, 0, 1e9, &opt_steps);
    long want = opt_steps >= 0 && opt_steps < FRESH_MLP13K_STEPS ? opt_steps : FRESH_MLP13K_STEPS;
    if (whole(top, RF_LEVELS_FRESH_TRAINING_STEPS, 0, 1e9, &nsteps) != 0 || nsteps != want) {
        problems_add(pr, "%s: levels.fresh.training.steps: the runner trains %ld fresh-seed steps here", file, want);
        return;
    }
    const rf_id tr = RF_LEVELS_FRESH_TRAINING_TRACE;
    if (!rv_has(top, tr) || rv_len(top, tr) != (size_t)nsteps + 1) {
        problems_add(pr, "%s: levels.fresh.training.trace: expected steps + 1 entries", file);
        return;
    }
    const struct ref_step *ref = reference_run(seed, (uint32_t)nsteps);
    for (uint32_t t = 0; t < rv_len(top, tr); t++) {
        const rv *st = rv_el(top, tr, t);
        long sl;
        if (whole(st, RF_LEVELS_FRESH_TRAINING_TRACE_STEP, 0, nsteps, &sl) != 0 || sl != (long)t) {
            problems_add(pr, "%s: levels.fresh.training.trace[%u].step: expected %u", file, (unsigned)t, (unsigned)t);
            break;
        }
        char id[64], where[96];
        snprintf(id, sizeof id, "fresh/mlp13k/%u", (unsigned)t);
        snprintf(where, sizeof where, "levels.fresh.training.trace[%u]", (unsigned)t);
        step_rec got = {rv_str(st, RF_LEVELS_FRESH_TRAINING_TRACE_SHA256), rv_str(st, RF_LEVELS_FRESH_TRAINING_TRACE_LOSS)};
        check_step(file, where, res, "fresh/train/mlp13k", id, got, ref[t].sha[0] ? ref[t].sha : NULL, t > 0,
                   ref[t].loss, pr);
    }
}

static void check_fresh(const char *file, const rv *top, const results *res, const vector_set *vs,
                        const req_ctx *q, int rules, problems *pr)
{
    const char *seed_s = rv_str(top, RF_OPTIONS_SEED);
    char *end = NULL;
    int digits = seed_s && *seed_s && strlen(seed_s) <= 20;
    for (const char *q = seed_s; digits && *q; q++)
        digits = *q >= '0' && *q <= '9';
    unsigned long long seed = digits ? strtoull(seed_s, &end, 10) : 0;
    if (!digits || *end) {
        problems_add(pr, "%s: options.seed: expected the run seed as a decimal string", file);
        return;
    }
    /* nothing runs after a failed hello */
    const char *level = rv_str(top, RF_OPTIONS_LEVEL);
    const case_result *hello = find_case(res, "protocol", "hello");
    if (!hello || hello->v != V_PASS)
        level = NULL;
    if (level && strcmp(level, "train") != 0 &&
        check_fresh_ops(file, top, res, vs, q, rules, seed_s, pr) != 0)
        return;
    check_fresh_training(file, top, res, seed, seed_s, pr);
}

/* A binary that changed during the run is the runner's own failing case
 * iut-binary: the receipt is then a true record of a FAIL (and verifies as
 * one); a change without that case is a receipt that hides it. */
static int changed_case_fails(const results *res)
{
    const case_result *c = find_case(res, "protocol", "iut-binary");
    return c && (c->v == V_FAIL || c->v == V_ERROR);
}

static void check_binary(const char *file, const rv *top, const results *res, problems *pr)
{
    if (!rv_at(top, RF_IUT_BINARY_SHA256)->present || !rv_at(top, RF_IUT_BINARY_SHA256_AFTER)->present) {
        problems_add(pr, "%s: iut.binary: expected sha256 (before the run) and sha256_after", file);
        return;
    }
    const char *before = rv_str(top, RF_IUT_BINARY_SHA256), *after = rv_str(top, RF_IUT_BINARY_SHA256_AFTER);
    if ((!before != !after || (before && strcmp(before, after) != 0)) && !changed_case_fails(res))
        problems_add(pr, "%s: iut.binary: the IUT binary changed during the run (sha256 %s before, %s after), but no "
                         "failing iut-binary case says so", file, before ? before : "none", after ? after : "none");
}

/* The current rules: every bound file as it was after the run. */
static void check_subject(const char *file, const receipt_facts *rf, const results *res, problems *pr)
{
    if (changed_case_fails(res))
        return;
    for (size_t i = 0; i < rf->n_files; i++) {
        const facts_file *f = &rf->files[i];
        if (f->sha256 && (!f->sha256_after || strcmp(f->sha256, f->sha256_after) != 0)) {
            problems_add(pr, "%s: iut.subject.files[%zu]: the IUT binary changed during the run: the %s %s had sha256 %s "
                             "before, %s after, but no failing iut-binary case says so", file, i,
                         f->role ? f->role : "file", f->path ? f->path : "?", f->sha256,
                         f->sha256_after ? f->sha256_after : "none");
            return;
        }
    }
}

/* The vector set the receipt names, verified: its manifest digest must be the
 * receipt's. The last set loaded is kept (matrix and fuzzing verify many
 * receipts of one set; its files were read and hashed once, and the loader
 * parses the bytes it hashed), with a recipe set's provenance as found on
 * disk (recipe and signer, the op set's digest): each receipt's claims are
 * held against it, kept or not. */
static struct {
    char *dir;
    char digest[65];
    vector_set vs;
    int have;
    int recipe;                             /* a recipe set: the five below */
    char recipe_sha256[65], signer[64], ops_digest[65]; /* signer "": unsigned */
    uint32_t recipe_steps; /* the pinned recipe's schedule length and seed */
    uint64_t recipe_seed;
} last;

/* A recipe set's op groups, as `run` adopted them (vectorset/ops_base.h):
 * the pinned set, in --ops-vectors DIR or where `run` finds its default set
 * (any copy of it has the one pinned digest); its manifest digest into
 * digest; 0, or -1 with the problem. */
static int recipe_ops(const char *file, const verify_opts *vo, vector_set *vs, char digest[65], problems *pr)
{
    problems own;
    problems_init(&own);
    char *dir = recipe_ops_dir(vo->ops_vectors);
    manifest_info om;
    int bad = recipe_ops_adopt(dir, vs, req_group_family, &om, &own) != 0;
    if (bad)
        problems_add(pr, "%s: vectors: the recipe set's op vectors %s (vector set %s) do not verify: %s", file, dir,
                     RECIPE_OPS_SET, own.n ? own.items[0] : "?");
    snprintf(digest, 65, "%s", om.digest);
    manifest_free(&om);
    problems_free(&own);
    free(dir);
    return bad ? -1 : 0;
}

/* A recipe set's signer as its MANIFEST.json.sig says now (trust/
 * set_signature.h): the key's fingerprint, "" unsigned; 0, or -1 with the
 * problem (a signature that does not verify). */
static int recipe_signer(const char *file, const char *dir, char fp[64], problems *pr)
{
    char err[1200];
    if (set_signature_check(dir, fp, err, sizeof err) != SET_BAD)
        return 0;
    problems_add(pr, "%s: vectors: %s", file, err);
    return -1;
}

/* A string field of the receipt against what the set on disk has (want;
 * "" for null or absent): 1 (with the problem) if they differ. absent_ok:
 * its absence is "" (an official set's receipt has no recipe); else an
 * absent field is refused, naming it: a recipe certification's receipt
 * records its signer (null: unsigned) and op set, so one without them is
 * not read as unsigned or as of an unknown op set. */
static int field_differs(const char *file, const rv *top, rf_id id, const char *want, int absent_ok,
                         const char *what, problems *pr)
{
    if (!rv_at(top, id)->present && !absent_ok) {
        problems_add(pr, "%s: %s: missing (a recipe certification's receipt records it; %s %s)", file,
                     receipt_fields[id].path, what, want[0] ? want : "(none)");
        return 1;
    }
    const char *said = rv_str(top, id) ? rv_str(top, id) : "";
    if (!strcmp(said, want))
        return 0;
    problems_add(pr, "%s: %s: %s, but %s %s", file, receipt_fields[id].path, said[0] ? said : "(absent or null)", what,
                 want[0] ? want : "(none)");
    return 1;
}

/* The receipt's recipe facts against the set last loaded: the recipe it
 * pins (both absent for an official set), its signer, the op set. */
static int provenance_differs(const char *file, const rv *top, problems *pr)
{
    if (!last.recipe)
        return field_differs(file, top, RF_VECTORS_RECIPE_SHA256, "", 1, "the vector set is not a recipe set:", pr);
    int bad = field_differs(file, top, RF_VECTORS_RECIPE_SHA256, last.recipe_sha256, 0,
                            "the vector set pins the recipe sha256:", pr);
    bad |= field_differs(file, top, RF_VECTORS_RECIPE_SIGNER, last.signer, 0, "the set's MANIFEST.json.sig is by", pr);
    bad |= field_differs(file, top, RF_VECTORS_OPS_MANIFEST_DIGEST, last.ops_digest, 0,
                         "the op vectors (--ops-vectors) have manifest", pr);
    return bad;
}

/* The set in dir verified and loaded (a recipe set with its op groups and
 * provenance) into last; 0, or -1 with the problem. */
static int load_set(const char *file, const char *dir, const char *md, const verify_opts *vo, problems *pr)
{
    problems own;
    problems_init(&own);
    manifest_info m;
    int rc = -1;
    vector_set loaded;
    memset(&loaded, 0, sizeof loaded);
    char ops_digest[65] = "", fp[64] = "", err[800];
    it_gpt_recipe r;
    memset(&r, 0, sizeof r);
    if (manifest_verify(dir, &m, &own) != 0)
        problems_add(pr, "%s: vectors: cannot check the per-step digests: the vector set %s does not verify (%s)",
                     file, dir, own.n ? own.items[0] : "?");
    else if (!md || strcmp(m.digest, md) != 0)
        problems_add(pr, "%s: vectors.manifest_digest: %s, but the vector set %s has %s (give --vectors DIR)", file,
                     md ? md : "(none)", dir, m.digest);
    else if (vectors_load(dir, &m, &loaded, &own) != 0)
        problems_add(pr, "%s: vectors: the vector set %s does not load", file, dir);
    else if (m.recipe_path && (recipe_signer(file, dir, fp, pr) != 0 || recipe_ops(file, vo, &loaded, ops_digest, pr) != 0))
        ; /* a recipe certification ran the family's op cases of the pinned set */
    else if (m.recipe_path && recipe_set_recipe(dir, &m, &r, err, sizeof err) != 0)
        problems_add(pr, "%s: vectors: %s", file, err); /* the recipe its fresh windows were drawn from */
    else {
        if (last.have)
            vectors_free(&last.vs);
        free(last.dir);
        memset(&last, 0, sizeof last);
        last.dir = xstrdup(dir);
        snprintf(last.digest, sizeof last.digest, "%s", m.digest);
        last.recipe = m.recipe_path != NULL;
        snprintf(last.recipe_sha256, sizeof last.recipe_sha256, "%s", m.recipe_path ? m.recipe_sha256 : "");
        snprintf(last.signer, sizeof last.signer, "%s", fp);
        snprintf(last.ops_digest, sizeof last.ops_digest, "%s", ops_digest);
        last.recipe_steps = r.steps, last.recipe_seed = r.seed;
        last.vs = loaded;
        last.have = 1;
        memset(&loaded, 0, sizeof loaded);
        rc = 0;
    }
    it_gpt_recipe_free(&r);
    vectors_free(&loaded);
    manifest_free(&m);
    problems_free(&own);
    return rc;
}

static int load_vectors(const char *file, const rv *top, const verify_opts *vo, const vector_set **vs,
                        problems *pr)
{
    const char *vv = rv_str(top, RF_VECTORS_VECTOR_VERSION), *md = rv_str(top, RF_VECTORS_MANIFEST_DIGEST);
    /* without --vectors: the set the receipt names, found as `run` finds its
     * default (core/version.h: the tree's, else the installed copy) */
    char *set = xasprintf("v%s", vv ? vv : "?");
    char *dir = vo->vectors ? xstrdup(vo->vectors) : conform_vectors_dir(set);
    free(set);
    int kept = last.have && !strcmp(last.dir, dir) && md && !strcmp(last.digest, md);
    int rc = kept || load_set(file, dir, md, vo, pr) == 0 ? 0 : -1;
    free(dir);
    /* a recipe certification is of the recipe the set pins, made and signed
     * as the receipt says, with the op set it names */
    if (rc == 0 && provenance_differs(file, top, pr))
        rc = -1;
    if (rc == 0)
        *vs = &last.vs;
    return rc;
}

/* The checks that need the case list: every verdict recomputed from it,
 * every cross-reference to the vector set. */
static void check_cases(const char *file, const rv *top, const verify_opts *vo, verify_info *info, problems *pr)
{
    const receipt_facts *rf = &info->facts;
    results res;
    results_init(&res);
    if (load_cases(file, top, &res, pr) == 0) {
        info->cases = res.n;
        const char *dup = index_cases(&res);
        if (dup)
            problems_add(pr, "%s: cases: the id %s appears more than once in its suite", file, dup);
        check_counts(file, top, &res, pr);
        check_levels(file, top, &res, rf->rules, pr);
        check_binary(file, top, &res, pr);
        if (rf->rules >= 2)
            check_subject(file, rf, &res, pr);
        const vector_set *vs = NULL;
        req_ctx q;
        if (pr->n < VERIFY_MAX_PROBLEMS && load_vectors(file, top, vo, &vs, pr) == 0) {
            if (last.recipe) {
                info->recipe_pinned = 1;
                info->recipe_steps = last.recipe_steps, info->recipe_seed = last.recipe_seed;
            }
            check_requirements(file, top, &res, vs, &q, pr);
            check_overall(file, top, &res, &q, rf, info, pr);
            check_complete(file, top, &res, vs, rf->rules, pr);
            check_train(file, top, &res, vs, pr);
            check_fresh(file, top, &res, vs, &q, rf->rules, pr);
        } else {
            /* without the set, the verdict is recomputed without its versions */
            check_overall(file, top, &res, NULL, rf, info, pr);
        }
    }
    results_free(&res);
    free(ix.slot);
    memset(&ix, 0, sizeof ix);
}

/* Receipt r, read as the typed record top (its view: receipt_record_view),
 * against the table, its trust rules and every check above. */
static void verify_record(const char *file, const cJSON *r, const rv *top, const verify_opts *vo, verify_info *info,
                          problems *pr)
{
    const char *schema = rv_str(top, RF_SCHEMA);
    if (!schema || strcmp(schema, "isotrain-receipt-v1") != 0) {
        problems_add(pr, "%s: schema: expected \"isotrain-receipt-v1\"", file);
        return;
    }
    /* every field against the one table (trust/receipt_schema.h), as the
     * writer checked it and receipt --json reads it; the checks below go on
     * either way, so each names what it finds */
    receipt_schema_check(file, r, 0, pr, RECEIPT_SCHEMA_PROBLEMS);
    receipt_facts *rf = &info->facts;
    receipt_facts_free(rf);
    if (receipt_facts_read(file, top, rf, pr) != 0)
        return;
    /* the rules a receipt is read under: the current ones, or the first
     * ones for the receipts published before them (signed by the retired
     * project key, which signs nothing new) */
    if (rf->rules > RECEIPT_TRUST_RULES) {
        problems_add(pr, "%s: trust_rules: %d, this runner knows the rules up to %d (a newer runner wrote it)", file,
                     rf->rules, RECEIPT_TRUST_RULES);
        return;
    }
    if (rf->rules < RECEIPT_TRUST_RULES) {
        if (info->sig.cls != KEY_PROJECT_RETIRED) {
            problems_add(pr, "%s: trust_rules: missing: a receipt of the first trust rules (no subject binding, no "
                             "ops-session cases) is read only when the retired project key signed it (the receipts "
                             "published before the rules changed); this one is %s",
                         file, info->sig.principal ? info->sig.words : "UNSIGNED");
            return;
        }
        info->legacy = 1;
    }
    check_cases(file, top, vo, info, pr);
}

void verify_receipt_object(const char *file, const cJSON *r, const verify_opts *vo, verify_info *info,
                           problems *pr)
{
    receipt_record rec;
    receipt_record_view(&rec, r);
    verify_record(file, r, &rec.top, vo, info, pr);
    receipt_record_free(&rec);
}

/* The Statement must say what the receipt says. */
static void check_statement(const char *file, const cJSON *st, const rv *top, const receipt_facts *rf, problems *pr)
{
    const char *bsha = rv_str(top, RF_IUT_BINARY_SHA256);
    const char *md = rv_str(top, RF_VECTORS_MANIFEST_DIGEST);
    int have_b = !bsha, have_m = !md;
    const cJSON *s;
    if (cJSON_GetArraySize(sget(st, "subject")) > 2 * FACTS_MAX_FILES + 2) {
        problems_add(pr, "%s: payload.subject: more subjects than a receipt binds", file);
        return;
    }
    cJSON_ArrayForEach(s, sget(st, "subject"))
    {
        const char *d = sstr(sget(s, "digest"), "sha256");
        have_b |= d && bsha && !strcmp(d, bsha);
        have_m |= d && md && !strcmp(d, md);
    }
    /* every bound file is a subject of the Statement */
    for (size_t i = 0; rf && i < rf->n_files; i++) {
        int have = 0;
        cJSON_ArrayForEach(s, sget(st, "subject"))
        {
            const char *d = sstr(sget(s, "digest"), "sha256");
            have |= d && rf->files[i].sha256 && !strcmp(d, rf->files[i].sha256);
        }
        if (!have)
            problems_add(pr, "%s: payload.subject: no subject with the digest of the bound %s %s", file,
                         rf->files[i].role ? rf->files[i].role : "file", rf->files[i].path ? rf->files[i].path : "?");
    }
    if (!have_b)
        problems_add(pr, "%s: payload.subject: no subject with the IUT binary's digest %s", file, bsha);
    if (!have_m)
        problems_add(pr, "%s: payload.subject: no subject with the manifest digest %s", file, md);
    const cJSON *pred = sget(st, "predicate");
    const char *res = sstr(pred, "result"), *v = rv_str(top, RF_VERDICT);
    if (!res || !v || strcmp(res, !strcmp(v, "PASS") ? "pass" : "fail") != 0)
        problems_add(pr, "%s: payload.predicate.result: \"%s\" for the verdict %s", file, res ? res : "(missing)",
                     v ? v : "(missing)");
    size_t n[3] = {0, 0, 0};
    for (size_t i = 0; i < rv_len(top, RF_CASES); i++) {
        const char *cv = rv_str(rv_el(top, RF_CASES, i), RF_CASES_VERDICT);
        n[cv && !strcmp(cv, "PASS") ? 0 : cv && !strcmp(cv, "SKIP") ? 1 : 2]++;
    }
    const char *lists[3] = {"passedTests", "warnedTests", "failedTests"};
    for (int i = 0; i < 3; i++)
        if (!cJSON_IsArray(sget(pred, lists[i])) || (size_t)cJSON_GetArraySize(sget(pred, lists[i])) != n[i])
            problems_add(pr, "%s: payload.predicate.%s: the case list gives %zu", file, lists[i], n[i]);
}

/* At most VERIFY_MAX_PROBLEMS problems of one receipt are kept: a hostile
 * receipt cannot make verify print without end. */
static void cap_problems(const char *file, problems *pr, size_t before)
{
    size_t n = pr->n - before;
    if (n <= VERIFY_MAX_PROBLEMS)
        return;
    for (size_t i = before + VERIFY_MAX_PROBLEMS; i < pr->n; i++)
        free(pr->items[i]);
    pr->n = before + VERIFY_MAX_PROBLEMS;
    problems_add(pr, "%s: ... and %zu more problems (the first %d are listed)", file, n - VERIFY_MAX_PROBLEMS,
                 VERIFY_MAX_PROBLEMS);
}

cJSON *verify_receipt_file(const char *file, const verify_opts *vo, verify_info *info, problems *pr)
{
    memset(info, 0, sizeof *info);
    size_t before = pr->n;
    cJSON *receipt = NULL;
    receipt_file rf; /* the one strict reader (trust/receipt_open.h) */
    if (receipt_file_read(file, &rf, pr) == 0) {
        receipt_record rec; /* every check reads the typed receipt, as matrix and the page do */
        receipt_record_view(&rec, rf.receipt);
        /* who signed first: it decides which rules a receipt is read under */
        if (!rf.enveloped || !rf.env.n_sigs)
            info->unsigned_receipt = 1;
        else if (dsse_check_signers(file, &rf.env, vo->allowed_signers, &info->sig, pr) > 0)
            info->signer = xstrdup(info->sig.principal);
        verify_record(file, rf.receipt, &rec.top, vo, info, pr);
        if (rf.enveloped)
            check_statement(file, rf.env.statement, &rec.top, info->facts.rules >= 2 ? &info->facts : NULL, pr);
        receipt_record_free(&rec);
        receipt = cJSON_Duplicate(rf.receipt, 1);
    }
    info->enveloped = rf.enveloped;
    receipt_file_free(&rf);
    if (info->unsigned_receipt && !vo->allow_unsigned)
        problems_add(pr, "%s: UNSIGNED: the receipt carries no signature, so nothing says who made it (sign receipts "
                         "with run --sign-key; --allow-unsigned accepts unsigned ones, e.g. this machine's own runs)",
                     file);
    cap_problems(file, pr, before);
    if (pr->n != before) {
        cJSON_Delete(receipt);
        return NULL;
    }
    return receipt;
}

void verify_info_free(verify_info *info)
{
    free(info->signer);
    dsse_signer_free(&info->sig);
    receipt_facts_free(&info->facts);
    memset(info, 0, sizeof *info);
}

const char *verify_signer_words(const verify_info *info)
{
    if (info->sig.principal)
        return info->sig.words;
    return info->unsigned_receipt ? "UNSIGNED" : "no good signature";
}
