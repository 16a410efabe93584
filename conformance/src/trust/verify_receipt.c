/* verify_receipt.c — see verify_receipt.h. A receipt is evidence only if
 * what it claims follows from what it records: nothing here trusts a verdict,
 * a count or a "matches" flag the receipt states. */
#include "trust/verify_receipt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/results.h"
#include "core/util.h"
#include "fresh/fresh.h"
#include "isotrain.h"
#include "trust/dsse.h"
#include "vectorset/manifest.h"
#include "vectorset/official.h"
#include "vectorset/vectors_load.h"
#include "verdict/scope.h"

enum { RECEIPT_MAX = 64 << 20 };

static const cJSON *get(const cJSON *o, const char *k)
{
    return cJSON_IsObject(o) ? cJSON_GetObjectItemCaseSensitive(o, k) : NULL;
}

static const char *str(const cJSON *o, const char *k)
{
    const cJSON *v = get(o, k);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

static int num(const cJSON *o, const char *k, double *out)
{
    const cJSON *v = get(o, k);
    if (!cJSON_IsNumber(v))
        return -1;
    *out = v->valuedouble;
    return 0;
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
static int load_cases(const char *file, const cJSON *r, results *res, problems *pr)
{
    const cJSON *cases = get(r, "cases");
    if (!cJSON_IsArray(cases)) {
        problems_add(pr, "%s: cases: missing (the case list every verdict is recomputed from)", file);
        return -1;
    }
    size_t i = 0;
    int bad = 0;
    const cJSON *c;
    cJSON_ArrayForEach(c, cases)
    {
        const char *id = str(c, "id"), *lv = str(c, "level"), *su = str(c, "suite"), *vs = str(c, "verdict");
        const cJSON *req = get(c, "required");
        verdict v;
        if (!id || !lv || !su || parse_verdict(vs, &v) != 0 || !cJSON_IsBool(req) ||
            (strcmp(lv, "protocol") && strcmp(lv, "ops") && strcmp(lv, "train") && strcmp(lv, "fresh"))) {
            problems_add(pr, "%s: cases[%zu]: expected id, level (protocol|ops|train|fresh), suite, verdict (PASS|FAIL|SKIP|ERROR) and required", file, i);
            bad = 1;
        } else
            results_add(res, lv, su, id, v, str(c, "reason"), cJSON_IsTrue(req), 0);
        i++;
    }
    return bad ? -1 : 0;
}

static const case_result *find_case(const results *res, const char *id)
{
    for (size_t i = 0; i < res->n; i++)
        if (!strcmp(res->c[i].id, id))
            return &res->c[i];
    return NULL;
}

static void check_counts(const char *file, const cJSON *r, const results *res, problems *pr)
{
    tally t = results_tally(res, NULL);
    const cJSON *cnt = get(r, "counts");
    const char *k[4] = {"passed", "failed", "errors", "skipped"};
    size_t want[4] = {t.passed, t.failed, t.errors, t.skipped};
    for (int i = 0; i < 4; i++) {
        double d;
        if (num(cnt, k[i], &d) != 0 || d != (double)want[i])
            problems_add(pr, "%s: counts.%s: the case list has %zu", file, k[i], want[i]);
    }
}

static void check_levels(const char *file, const cJSON *r, const results *res, problems *pr)
{
    const char *names[3] = {"ops", "train", "fresh"};
    for (int i = 0; i < 3; i++) {
        tally t = results_tally(res, names[i]);
        const char *rec = str(get(get(r, "levels"), names[i]), "verdict");
        size_t n = t.passed + t.failed + t.errors + t.skipped;
        const char *want = n ? level_verdict_name(level_from_tally(t)) : NULL;
        if (!rec)
            problems_add(pr, "%s: levels.%s.verdict: missing", file, names[i]);
        else if (want && strcmp(rec, want) != 0)
            problems_add(pr, "%s: levels.%s.verdict: \"%s\", but its cases give %s", file, names[i], rec, want);
        else if (!want && strcmp(rec, "NOT RUN") != 0 && strcmp(rec, "NOT REACHED") != 0)
            problems_add(pr, "%s: levels.%s.verdict: \"%s\", but the level has no case", file, names[i], rec);
    }
}

/* The overall verdict and scope from the options and the case list. */
static void check_overall(const char *file, const cJSON *r, const results *res, verify_info *info, problems *pr)
{
    const cJSON *opt = get(r, "options"), *vec = get(r, "vectors");
    scope_facts f;
    memset(&f, 0, sizeof f);
    const case_result *hello = find_case(res, "hello");
    f.hello_ok = hello && hello->v == V_PASS;
    f.level = str(opt, "level");
    if (!f.level || (strcmp(f.level, "all") && strcmp(f.level, "ops") && strcmp(f.level, "train"))) {
        problems_add(pr, "%s: options.level: expected \"ops\", \"train\" or \"all\"", file);
        return;
    }
    const cJSON *fl = get(opt, "filters");
    if (!cJSON_IsArray(fl)) {
        problems_add(pr, "%s: options.filters: expected an array", file);
        return;
    }
    f.n_filters = (size_t)cJSON_GetArraySize(fl);
    f.profile = str(opt, "profile");
    double d;
    f.steps = num(opt, "steps", &d) == 0 ? (long)d : -1;
    const cJSON *p;
    cJSON_ArrayForEach(p, get(vec, "profiles"))
    {
        const char *name = str(p, "profile");
        double s = 0;
        num(p, "steps", &s);
        if (f.profile && name && strcmp(f.profile, name) != 0)
            f.profile_excludes = 1;
        else if (!f.set_steps || (long)s < f.set_steps)
            f.set_steps = (long)s;
    }
    f.manifest_digest = str(vec, "manifest_digest");
    const official_set *off = official_find(f.manifest_digest);
    f.official = off != NULL;
    const cJSON *ro = get(vec, "official");
    if (!cJSON_IsBool(ro) || cJSON_IsTrue(ro) != f.official)
        problems_add(pr, "%s: vectors.official: the manifest digest %s is %s", file,
                     f.manifest_digest ? f.manifest_digest : "(none)",
                     f.official ? "pinned by this runner (official)" : "not pinned by this runner (UNOFFICIAL)");
    if (off && (!str(vec, "vector_version") || strcmp(str(vec, "vector_version"), off->vector_version) != 0))
        problems_add(pr, "%s: vectors.vector_version: the pinned set with this digest is %s", file,
                     off->vector_version);
    scope_facts_from_results(&f, res);
    run_verdict v;
    scope_verdict(&f, &v);
    snprintf(info->verdict, sizeof info->verdict, "%s", v.word);
    const char *rec = str(r, "verdict");
    if (!rec || strcmp(rec, v.word) != 0)
        problems_add(pr, "%s: verdict: \"%s\", but the case list and options give %s", file, rec ? rec : "(missing)",
                     v.word);
    if (num(r, "exit_code", &d) != 0 || d != v.exit_code)
        problems_add(pr, "%s: exit_code: the verdict %s exits %d", file, v.word, v.exit_code);
    const cJSON *sc = get(r, "scope");
    const cJSON *full = get(sc, "full_certification"), *rs = get(sc, "reasons");
    if (!cJSON_IsBool(full) || cJSON_IsTrue(full) != !strcmp(v.word, "PASS"))
        problems_add(pr, "%s: scope.full_certification: the verdict is %s", file, v.word);
    if (!cJSON_IsArray(rs) || (size_t)cJSON_GetArraySize(rs) != v.n_reasons)
        problems_add(pr, "%s: scope.reasons: expected %zu reason%s", file, v.n_reasons, v.n_reasons == 1 ? "" : "s");
    else {
        size_t i = 0;
        const cJSON *x;
        cJSON_ArrayForEach(x, rs)
        {
            if (!cJSON_IsString(x) || strcmp(x->valuestring, v.reasons[i]) != 0)
                problems_add(pr, "%s: scope.reasons[%zu]: expected \"%s\"", file, i, v.reasons[i]);
            i++;
        }
    }
    /* an official set's shape: a full ops level is every op case of the set */
    if (off && !f.n_filters && (!strcmp(f.level, "all") || !strcmp(f.level, "ops")) && f.ops.passed + f.ops.failed + f.ops.errors + f.ops.skipped &&
        f.ops.passed + f.ops.failed + f.ops.errors + f.ops.skipped != off->op_cases)
        problems_add(pr, "%s: cases: %zu ops cases, the official set %s has %zu", file,
                     f.ops.passed + f.ops.failed + f.ops.errors + f.ops.skipped, off->vector_version, off->op_cases);
    run_verdict_free(&v);
}

/* One step's verdict against the expected digest and loss. */
static void check_step(const char *file, const char *where, const results *res, const char *id, const cJSON *st,
                       const char *want_sha, int want_has_loss, uint32_t want_loss, problems *pr)
{
    const case_result *c = find_case(res, id);
    if (!c) {
        problems_add(pr, "%s: %s: no case %s in the case list", file, where, id);
        return;
    }
    const char *sha = str(st, "sha256");
    const char *ls = str(st, "loss");
    uint32_t loss = 0;
    int loss_ok = !want_has_loss || (ls && parse_u32_hex(ls, &loss) == 0 && loss == want_loss);
    int same = sha && want_sha && !strcmp(sha, want_sha) && loss_ok;
    if (c->v == V_PASS && !same)
        problems_add(pr, "%s: %s: case %s is PASS, but its checkpoint %s%s does not match the expected %s%s", file,
                     where, id, sha ? sha : "(none)", want_has_loss && !loss_ok ? " (or its loss)" : "",
                     want_sha ? want_sha : "(none)", want_has_loss ? " and loss" : "");
    else if (c->v != V_PASS && same && c->v != V_SKIP)
        problems_add(pr, "%s: %s: case %s is %s, but its checkpoint and loss match", file, where, id,
                     verdict_name(c->v));
}

/* Every step of every profile against the vector set's trace. */
static void check_train(const char *file, const cJSON *r, const results *res, const vector_set *vs, problems *pr)
{
    const cJSON *p;
    size_t pi = 0;
    cJSON_ArrayForEach(p, get(get(get(r, "levels"), "train"), "profiles"))
    {
        const char *name = str(p, "profile");
        const train_vec *tv = name ? vectors_train(vs, name) : NULL;
        if (!tv) {
            problems_add(pr, "%s: levels.train.profiles[%zu].profile: not a profile of the vector set", file, pi++);
            continue;
        }
        const cJSON *tr = get(p, "trace");
        if (!cJSON_IsArray(tr)) {
            problems_add(pr, "%s: levels.train.profiles[%zu].trace: missing (every step's digest)", file, pi++);
            continue;
        }
        const cJSON *st;
        char *seen = xcalloc((size_t)tv->steps + 1, 1);
        cJSON_ArrayForEach(st, tr)
        {
            double sd;
            if (num(st, "step", &sd) != 0 || sd < 0 || sd > tv->steps) {
                problems_add(pr, "%s: levels.train.profiles[%zu].trace: a step outside 0..%u", file, pi,
                             (unsigned)tv->steps);
                continue;
            }
            uint32_t s = (uint32_t)sd;
            char id[96], where[96];
            snprintf(id, sizeof id, "%s/%u", name, (unsigned)s);
            snprintf(where, sizeof where, "levels.train.profiles[%zu].trace[%u]", pi, (unsigned)s);
            check_step(file, where, res, id, st, tv->trace[s].digest, s > 0, tv->trace[s].loss, pr);
            seen[s] = 1;
        }
        for (uint32_t s = 0; s <= tv->steps; s++) {
            char id[96];
            snprintf(id, sizeof id, "%s/%u", name, (unsigned)s);
            const case_result *c = find_case(res, id);
            if (c && c->v == V_PASS && !seen[s]) {
                problems_add(pr, "%s: levels.train.profiles[%zu].trace: case %s is PASS without a recorded digest",
                             file, pi, id);
                break;
            }
        }
        free(seen);
        size_t k = 0;
        cJSON_ArrayForEach(st, get(p, "checkpoints"))
        {
            double sd;
            const char *sha = str(st, "sha256");
            const cJSON *m = get(st, "matches_vectors");
            if (num(st, "step", &sd) == 0 && sd >= 0 && sd <= tv->steps) {
                int same = sha && !strcmp(sha, tv->trace[(uint32_t)sd].digest);
                if (!cJSON_IsBool(m) || cJSON_IsTrue(m) != same)
                    problems_add(pr, "%s: levels.train.profiles[%zu].checkpoints[%zu].matches_vectors: the digest %s %s the vectors' %s",
                                 file, pi, k, sha ? sha : "(none)", same ? "equals" : "differs from",
                                 tv->trace[(uint32_t)sd].digest);
                const cJSON *tst = cJSON_GetArrayItem(tr, (int)sd);
                const char *tsha = tst ? str(tst, "sha256") : NULL;
                if (sha && (!tsha || strcmp(sha, tsha) != 0))
                    problems_add(pr, "%s: levels.train.profiles[%zu].checkpoints[%zu].sha256: not the trace's digest of step %u",
                                 file, pi, k, (unsigned)sd);
            }
            k++;
        }
        pi++;
    }
}

static int filter_has(const cJSON *fl, const char *name)
{
    if (cJSON_GetArraySize(fl) == 0)
        return 1;
    const cJSON *x;
    cJSON_ArrayForEach(x, fl) if (cJSON_IsString(x) && !strcmp(x->valuestring, name)) return 1;
    return 0;
}

/* Every case the options select is in the case list: a deleted FAIL case
 * cannot turn a FAIL into a PASS. */
static void check_complete(const char *file, const cJSON *r, const results *res, const vector_set *vs, problems *pr)
{
    const cJSON *opt = get(r, "options");
    const char *level = str(opt, "level"), *profile = str(opt, "profile");
    const cJSON *fl = get(opt, "filters");
    if (!level)
        return;
    if (strcmp(level, "train") != 0)
        for (size_t g = 0; g < vs->n_groups; g++) {
            if (!filter_has(fl, vs->groups[g].group))
                continue;
            for (size_t i = 0; i < vs->groups[g].n_cases; i++)
                if (!find_case(res, vs->groups[g].cases[i].id)) {
                    problems_add(pr, "%s: cases: the op case %s of the vector set is missing", file,
                                 vs->groups[g].cases[i].id);
                    return;
                }
        }
    if (strcmp(level, "ops") != 0)
        for (size_t t = 0; t < vs->n_trains; t++) {
            const train_vec *tv = &vs->trains[t];
            if ((profile && strcmp(profile, tv->profile) != 0) || !filter_has(fl, tv->profile))
                continue;
            char id[96];
            snprintf(id, sizeof id, "%s/run", tv->profile);
            int missing = !find_case(res, id);
            for (uint32_t st = 0; st <= tv->steps && !missing; st++) {
                snprintf(id, sizeof id, "%s/%u", tv->profile, (unsigned)st);
                missing = !find_case(res, id);
            }
            if (missing)
                problems_add(pr, "%s: cases: the train case %s of the vector set is missing", file, id);
            /* the fresh-seed run is part of every train level the runner can check */
            if (!strcmp(tv->profile, "mlp13k")) {
                snprintf(id, sizeof id, "fresh/%s/run", tv->profile);
                if (!find_case(res, id))
                    problems_add(pr, "%s: cases: %s (the fresh-seed run, PASS or SKIP) is missing", file, id);
            }
        }
}

/* The fresh-seed run against the linked reference, and the fresh op cases
 * against the ones the run seed generates. */
static void check_fresh(const char *file, const cJSON *r, const results *res, const vector_set *vs, problems *pr)
{
    const cJSON *opt = get(r, "options"), *fr = get(get(r, "levels"), "fresh");
    const char *seed_s = str(opt, "seed");
    char *end = NULL;
    unsigned long long seed = seed_s ? strtoull(seed_s, &end, 10) : 0;
    if (!seed_s || !*seed_s || *end) {
        problems_add(pr, "%s: options.seed: expected the run seed as a decimal string", file);
        return;
    }
    /* the op cases: exactly the ones this seed draws for the selected groups */
    const char *level = str(opt, "level");
    const cJSON *fl = get(opt, "filters");
    if (level && strcmp(level, "train") != 0) {
        fresh_list l;
        memset(&l, 0, sizeof l);
        for (size_t g = 0; g < vs->n_groups; g++) {
            int sel = cJSON_GetArraySize(fl) == 0;
            const cJSON *x;
            cJSON_ArrayForEach(x, fl) sel |= cJSON_IsString(x) && !strcmp(x->valuestring, vs->groups[g].group);
            const char *why;
            if (sel)
                fresh_ops_generate(&l, vs->groups[g].group, seed, &why);
        }
        size_t have = 0;
        for (size_t i = 0; i < res->n; i++)
            have += !strcmp(res->c[i].level, "fresh") && !strncmp(res->c[i].suite, "fresh/ops/", 10);
        for (size_t i = 0; i < l.n; i++)
            if (!find_case(res, l.c[i].id)) {
                problems_add(pr, "%s: cases: the fresh case %s that seed %s draws is missing", file, l.c[i].id, seed_s);
                break;
            }
        if (have != l.n)
            problems_add(pr, "%s: cases: %zu fresh op cases, seed %s draws %zu", file, have, seed_s, l.n);
        fresh_list_free(&l);
    }
    const cJSON *ft = get(fr, "training");
    const case_result *run = find_case(res, "fresh/mlp13k/run");
    if (!ft) {
        if (run && run->v != V_SKIP)
            problems_add(pr, "%s: levels.fresh.training: missing, but fresh/mlp13k/run is %s", file,
                         verdict_name(run->v));
        return;
    }
    const char *ts = str(ft, "seed");
    if (!ts || strcmp(ts, seed_s) != 0)
        problems_add(pr, "%s: levels.fresh.training.seed: not the run seed %s", file, seed_s);
    const cJSON *tr = get(ft, "trace");
    double nsteps;
    if (!cJSON_IsArray(tr) || num(ft, "steps", &nsteps) != 0 || nsteps < 0 || nsteps > 10000 ||
        cJSON_GetArraySize(tr) != (int)nsteps + 1) {
        problems_add(pr, "%s: levels.fresh.training.trace: expected steps + 1 entries", file);
        return;
    }
    it_mlp13k_recipe rec = it_mlp13k_default_recipe();
    rec.seed = seed;
    it_mlp13k_state *s = xmalloc(sizeof *s);
    it_mlp13k_start(&rec, s);
    const cJSON *st;
    uint32_t t = 0;
    int dead = 0;
    cJSON_ArrayForEach(st, tr)
    {
        if (t > 0 && !dead && it_mlp13k_step(&rec, s) != IT_OK)
            dead = 1;
        char ref[65] = "", id[64], where[96];
        if (!dead)
            it_params_digest(s->params, IT_MLP13K_NPARAMS, ref);
        snprintf(id, sizeof id, "fresh/mlp13k/%u", (unsigned)t);
        snprintf(where, sizeof where, "levels.fresh.training.trace[%u]", (unsigned)t);
        check_step(file, where, res, id, st, dead ? NULL : ref, t > 0, t > 0 ? it_f32_bits(s->last_loss) : 0, pr);
        t++;
    }
    free(s);
}

static void check_binary(const char *file, const cJSON *r, problems *pr)
{
    const cJSON *b = get(get(r, "iut"), "binary");
    const cJSON *before = get(b, "sha256"), *after = get(b, "sha256_after");
    if (!b || !before || !after) {
        problems_add(pr, "%s: iut.binary: expected sha256 (before the run) and sha256_after", file);
        return;
    }
    if (cJSON_IsString(before) != cJSON_IsString(after) ||
        (cJSON_IsString(before) && strcmp(before->valuestring, after->valuestring) != 0))
        problems_add(pr, "%s: iut.binary: the IUT binary changed during the run (sha256 %s before, %s after)", file,
                     cJSON_IsString(before) ? before->valuestring : "none",
                     cJSON_IsString(after) ? after->valuestring : "none");
}

/* The vector set the receipt names, verified: its manifest digest must be the
 * receipt's. */
static int load_vectors(const char *file, const cJSON *r, const verify_opts *vo, vector_set *vs, problems *pr)
{
    const cJSON *vec = get(r, "vectors");
    const char *vv = str(vec, "vector_version"), *md = str(vec, "manifest_digest");
    char *dir = vo->vectors ? xstrdup(vo->vectors) : xasprintf("vectors/v%s", vv ? vv : "?");
    problems own;
    problems_init(&own);
    manifest_info m;
    int rc = -1;
    if (manifest_verify(dir, &m, &own) != 0)
        problems_add(pr, "%s: vectors: cannot check the per-step digests: the vector set %s does not verify (%s)",
                     file, dir, own.n ? own.items[0] : "?");
    else if (!md || strcmp(m.digest, md) != 0)
        problems_add(pr, "%s: vectors.manifest_digest: %s, but the vector set %s has %s (give --vectors DIR)", file,
                     md ? md : "(none)", dir, m.digest);
    else if (vectors_load(dir, &m, vs, &own) != 0)
        problems_add(pr, "%s: vectors: the vector set %s does not load", file, dir);
    else
        rc = 0;
    manifest_free(&m);
    problems_free(&own);
    free(dir);
    return rc;
}

void verify_receipt_object(const char *file, const cJSON *r, const verify_opts *vo, verify_info *info,
                           problems *pr)
{
    const char *schema = str(r, "schema");
    if (!schema || strcmp(schema, "isotrain-receipt-v1") != 0) {
        problems_add(pr, "%s: schema: expected \"isotrain-receipt-v1\"", file);
        return;
    }
    results res;
    results_init(&res);
    if (load_cases(file, r, &res, pr) == 0) {
        info->cases = res.n;
        check_counts(file, r, &res, pr);
        check_levels(file, r, &res, pr);
        check_overall(file, r, &res, info, pr);
        check_binary(file, r, pr);
        vector_set vs;
        memset(&vs, 0, sizeof vs);
        if (load_vectors(file, r, vo, &vs, pr) == 0) {
            check_complete(file, r, &res, &vs, pr);
            check_train(file, r, &res, &vs, pr);
            check_fresh(file, r, &res, &vs, pr);
        }
        vectors_free(&vs);
    }
    results_free(&res);
}

/* The Statement must say what the receipt says. */
static void check_statement(const char *file, const cJSON *st, const cJSON *r, problems *pr)
{
    const char *bsha = str(get(get(r, "iut"), "binary"), "sha256");
    const char *md = str(get(r, "vectors"), "manifest_digest");
    int have_b = !bsha, have_m = !md;
    const cJSON *s;
    cJSON_ArrayForEach(s, get(st, "subject"))
    {
        const char *d = str(get(s, "digest"), "sha256");
        have_b |= d && bsha && !strcmp(d, bsha);
        have_m |= d && md && !strcmp(d, md);
    }
    if (!have_b)
        problems_add(pr, "%s: payload.subject: no subject with the IUT binary's digest %s", file, bsha);
    if (!have_m)
        problems_add(pr, "%s: payload.subject: no subject with the manifest digest %s", file, md);
    const cJSON *pred = get(st, "predicate");
    const char *res = str(pred, "result"), *v = str(r, "verdict");
    if (!res || !v || strcmp(res, !strcmp(v, "PASS") ? "pass" : "fail") != 0)
        problems_add(pr, "%s: payload.predicate.result: \"%s\" for the verdict %s", file, res ? res : "(missing)",
                     v ? v : "(missing)");
    size_t n[3] = {0, 0, 0};
    const cJSON *c;
    cJSON_ArrayForEach(c, get(r, "cases"))
    {
        const char *cv = str(c, "verdict");
        n[cv && !strcmp(cv, "PASS") ? 0 : cv && !strcmp(cv, "SKIP") ? 1 : 2]++;
    }
    const char *lists[3] = {"passedTests", "warnedTests", "failedTests"};
    for (int i = 0; i < 3; i++)
        if (!cJSON_IsArray(get(pred, lists[i])) || (size_t)cJSON_GetArraySize(get(pred, lists[i])) != n[i])
            problems_add(pr, "%s: payload.predicate.%s: the case list gives %zu", file, lists[i], n[i]);
}

cJSON *verify_receipt_file(const char *file, const verify_opts *vo, verify_info *info, problems *pr)
{
    memset(info, 0, sizeof *info);
    size_t before = pr->n;
    char *text;
    size_t len;
    char err[512];
    struct stat st;
    if (lstat(file, &st) != 0 || !S_ISREG(st.st_mode)) {
        problems_add(pr, "%s: not a regular file", file);
        return NULL;
    }
    if (read_file(file, RECEIPT_MAX, &text, &len, err, sizeof err) != 0) {
        problems_add(pr, "%s", err);
        return NULL;
    }
    cJSON *doc = cJSON_ParseWithLength(text, len);
    cJSON *receipt = NULL;
    if (!cJSON_IsObject(doc)) {
        problems_add(pr, "%s: not a JSON object (a DSSE envelope or a receipt)", file);
    } else if (get(doc, "payloadType")) {
        info->enveloped = 1;
        dsse_opened o;
        if (dsse_open(file, text, len, &o, pr) == 0) {
            check_statement(file, o.statement, o.receipt, pr);
            verify_receipt_object(file, o.receipt, vo, info, pr);
            if (vo->allowed_signers) {
                if (!o.n_sigs)
                    problems_add(pr, "%s: signatures: none (the receipt is not signed; --allowed-signers requires a signature)", file);
                else
                    dsse_check_signatures(file, &o, vo->allowed_signers, &info->signer, pr);
            }
            receipt = cJSON_Duplicate(o.receipt, 1);
        }
        dsse_opened_free(&o);
    } else {
        verify_receipt_object(file, doc, vo, info, pr);
        if (vo->allowed_signers)
            problems_add(pr, "%s: a bare receipt, not a DSSE envelope: it carries no signature", file);
        receipt = cJSON_Duplicate(doc, 1);
    }
    cJSON_Delete(doc);
    free(text);
    if (pr->n != before) {
        cJSON_Delete(receipt);
        return NULL;
    }
    return receipt;
}
