/* level_fresh.c — the fresh cases of a run (conformance/README.md "Fresh
 * cases"): per selected op group, cases drawn from the run seed whose expected
 * outputs the linked reference computes, through one `ops` process; and a
 * training run under a fresh seed (P7 `--seed`, spec 1.1.0) compared step by
 * step with the linked reference. Published vectors alone cannot pass them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/beside.h"
#include "fresh/fresh.h"
#include "fresh/fresh_windows.h"
#include "isotrain.h"
#include "isotrain_reduce.h"
#include "levels/levels.h"
#include "levels/runner_profiles.h"
#include "levels/time_budget.h"
#include "protocol/train_exec.h"

/* A group's failures listed on the run's output; the rest are in the receipt. */
enum { LIST_PER_GROUP = 4 };

/* The fresh op cases of every selected group in scope, drawn from the run
 * seed into l (fresh/fresh.h); the number of groups that gave cases. */
static size_t draw_cases(run_ctx *rc, fresh_list *l)
{
    size_t n_groups = 0;
    for (size_t g = 0; g < rc->vs.n_groups; g++) {
        const char *group = rc->vs.groups[g].group;
        if (!cli_filter_match(rc->a, group) || !req_group_in_scope(&rc->req, &rc->vs.groups[g]))
            continue;
        const char *why;
        if (fresh_ops_generate(l, group, rc->run_seed, &why))
            n_groups++;
        else
            fprintf(rc->out, "  fresh %-18s none: %s\n", group, why);
    }
    return n_groups;
}

/* The cases of the group that starts at case `start` (ids are
 * fresh/<group>/<k>, in group order) recorded, with one summary line;
 * returns the first case past the group. */
static size_t record_group(run_ctx *rc, const fresh_list *l, const ops_res *res, size_t start)
{
    const char *g0 = l->c[start].id + 6;
    size_t glen = strcspn(g0, "/"), end = start, pass = 0, bad = 0, skip = 0, listed = 0;
    char suite[96];
    snprintf(suite, sizeof suite, "fresh/ops/%.*s", (int)glen, g0);
    while (end < l->n && !strncmp(l->c[end].id + 6, g0, glen) && l->c[end].id[6 + glen] == '/') {
        const ops_res *x = &res[end];
        results_add(&rc->res, "fresh", suite, l->c[end].id, x->v, x->reason, 1, x->seconds);
        pass += x->v == V_PASS;
        skip += x->v == V_SKIP;
        if (x->v == V_FAIL || x->v == V_ERROR) {
            bad++;
            if (listed++ < LIST_PER_GROUP)
                fprintf(rc->out, "    %s %s [%s] (%s): %s\n", verdict_name(x->v), l->c[end].id, l->c[end].what,
                        l->c[end].op->name, x->reason);
        }
        end++;
    }
    fprintf(rc->out, "  fresh %-18.*s %zu passed", (int)glen, g0, pass);
    if (bad)
        fprintf(rc->out, ", %zu failed", bad);
    if (skip)
        fprintf(rc->out, ", %zu skipped", skip);
    fputc('\n', rc->out);
    return end;
}

/* The fresh op cases through one `ops` session, judged case by case; the
 * session's end is a case of its own, as the golden session's (P3, P8). */
static void fresh_ops(run_ctx *rc)
{
    fresh_list l;
    memset(&l, 0, sizeof l);
    const size_t n_groups = draw_cases(rc, &l);
    if (!l.n)
        return;
    ops_req *reqs = xcalloc(l.n, sizeof *reqs);
    ops_res *res = xcalloc(l.n, sizeof *res);
    for (size_t i = 0; i < l.n; i++) {
        ops_req_set_line(&reqs[i], l.c[i].id, l.c[i].op, l.c[i].kv);
        reqs[i].want = l.c[i].want;
        reqs[i].timeout = rc_timeout_case(rc) * (strcmp(l.c[i].op->name, "sweep") ? 1.0 : 5.0);
    }
    fprintf(rc->out, "level fresh: %zu op cases drawn from the run seed in %zu groups\n", l.n, n_groups);
    fflush(rc->out);
    ops_summary sum;
    ops_progress prog = {rc->out, 60.0, "fresh ops"};
    ops_engine_run(rc->a->iut, reqs, l.n, rc_timeout_run(rc), res, &sum, &prog);
    for (size_t start = 0; start < l.n;)
        start = record_group(rc, &l, res, start);
    if (sum.verb_unsupported)
        fprintf(rc->out, "  note: the IUT does not implement the ops verb: every fresh op case is skipped\n");
    else {
        const char *why = sum.end_problem ? sum.end_problem : sum.problem;
        results_add(&rc->res, "protocol", "protocol", FRESH_OPS_SESSION_CASE, why ? V_ERROR : V_PASS, why, 1,
                    sum.seconds);
        if (why)
            fprintf(rc->out, "  ERROR %s: %s\n", FRESH_OPS_SESSION_CASE, why);
    }
    rc->n_fresh_ops = l.n;
    for (size_t i = 0; i < l.n; i++) {
        free(reqs[i].line);
        ops_res_free(&res[i]);
    }
    free(reqs);
    free(res);
    ops_summary_free(&sum);
    fresh_list_free(&l);
}

/* The linked reference's run of profile p under the fresh seed, step by
 * step through its one run loop's step (isotrain_profile.h): digest and
 * loss per step. A step that fails leaves the digests of the rest empty. */
static void reference_run(const it_profile *p, uint64_t seed, uint32_t steps, struct fresh_step *fs)
{
    it_train_config c = it_train_config_default(p);
    c.seed = seed;
    c.threads = p->threaded ? 2 : 1; /* the same bits as one (isotrain.h) */
    it_train_state *s = it_train_state_new(p);
    it_train_run run = {p, &c, s, &it_reducer_local, NULL};
    int ok = s && !(p->work_new && !(run.work = p->work_new(&run)));
    if (ok)
        it_train_start(p, &c, s);
    for (uint32_t t = 0; t <= steps; t++) {
        ok = ok && (t == 0 || it_train_step(&run) == IT_OK);
        fs[t].ref_sha256[0] = 0;
        if (ok)
            it_params_digest(s->params, p->nparams, fs[t].ref_sha256);
        fs[t].ref_has_loss = t > 0;
        fs[t].ref_loss = ok && t > 0 ? it_f32_bits(s->last_loss) : 0;
    }
    if (p->work_free && run.work)
        p->work_free(run.work);
    it_train_state_free(s);
}

typedef struct {
    const it_profile *p;
    uint64_t seed;
    uint32_t steps;
    struct fresh_step *fs;
} ref_job;

static void *reference_thread(void *arg)
{
    ref_job *j = arg;
    reference_run(j->p, j->seed, j->steps, j->fs);
    return NULL;
}

/* Why the state the IUT wrote at step k is not one to resume from, or NULL:
 * every file of spec §8.3 a regular file of exactly 4·P bytes. */
static char *own_state_problem(char *const *files, size_t nf, uint64_t size)
{
    for (size_t i = 0; i < nf; i++) {
        struct stat st;
        const char *base = strrchr(files[i], '/') + 1;
        if (lstat(files[i], &st) != 0)
            return xasprintf("the fresh-seed run did not write %s (--state-steps, P7 1.2.0)", base);
        if (!S_ISREG(st.st_mode) || (uint64_t)st.st_size != size)
            return xasprintf("%s is not a regular file of 4*P = %llu bytes (spec 8.3)", base, (unsigned long long)size);
    }
    return NULL;
}

/* Resume as a producer (P7 1.2.0; issue 27 item 6): an IUT that advertises
 * train_resume=1 wrote its own state of step k during its fresh-seed run
 * (x, --state-steps k); it is resumed from that state to step n under the
 * same seed, and every step must be the linked reference's (fs). A state
 * writer that loses a moment, or writes another step's parameters, FAILs. */
static void own_state_resume(run_ctx *rc, const train_vec *tv, const train_exec *x, uint32_t k, uint32_t n,
                             const char *seed, const struct fresh_step *fs, const char *suite)
{
    char id[96], err[512];
    snprintf(id, sizeof id, "fresh/%s/resume/%u-%u", tv->profile, (unsigned)k, (unsigned)n);
    char *files[3] = {NULL, NULL, NULL};
    size_t nf = fresh_windows_state_files(rc_runner_profile(rc, tv)->ref, x->ckdir, k, files);
    char *why = own_state_problem(files, nf, 4 * (uint64_t)tv->parameters);
    train_exec y;
    memset(&y, 0, sizeof y);
    int ran = 0;
    if (!why) {
        const train_request q = {
            .steps = n, .seed = seed, .from = k, .state_files = (const char *const *)files, .n_state = nf};
        if (rc_train_run(rc, tv, q, &y, err, sizeof err) != 0)
            why = xasprintf("runner: %s", err);
        else
            ran = 1;
    }
    if (ran && (!y.started || !y.r.exited_ok))
        why = xasprintf("the run resumed from its own state did not complete: %s", y.r.status_text);
    else if (ran && (!y.trace_ok || y.tr.n < (size_t)(n - k) + 1))
        why = xasprintf("the resumed run's trace: %s", y.trace_ok ? "it ends early" : y.trace_err);
    for (uint32_t t = k; ran && !why && t <= n; t++) {
        const trace_step *ts = &y.tr.s[t - k];
        if (t == k ? ts->has_digest && strcmp(ts->digest, fs[t].ref_sha256) != 0
                   : !y.ck[t].present || strcmp(y.ck[t].sha256, fs[t].ref_sha256) != 0 || ts->loss != fs[t].ref_loss)
            why = xasprintf("step %u of the run resumed from the IUT's own state of step %u differs from the linked "
                            "reference under seed %s (its state writer or reader loses something, spec 8.3-8.4)",
                            (unsigned)t, (unsigned)k, seed);
    }
    results_add(&rc->res, "fresh", suite, id, why ? V_FAIL : V_PASS, why, 1, ran ? y.r.seconds : 0);
    if (why)
        fprintf(rc->out, "    FAIL %s: %s\n", id, why);
    else
        fprintf(rc->out, "  fresh %s resumed from its own state of step %u to %u: passed (%.2f s)\n", tv->profile,
                (unsigned)k, (unsigned)n, y.r.seconds);
    free(why);
    for (size_t i = 0; i < nf; i++)
        free(files[i]);
    if (ran)
        train_exec_free(&y, 0);
}

/* A refusal is judged as the train level judges it (level_train.c): a
 * profile newer than the spec the IUT claims, refused with any normal
 * exit, is not implemented; exit 64 is "does not implement this
 * profile" (P7). Either is a SKIP of the run and of every step, never a
 * FAIL; verdict/requirements.c decides whether the skip narrows. Returns 1
 * when the run x was such a refusal (and recorded so). */
static int skipped_refusal(run_ctx *rc, const train_vec *tv, const train_exec *x, uint32_t n, const char *suite,
                           const char *run_id)
{
    const char *prof = tv->profile;
    const int refused = train_exec_refused(x);
    const int cannot_know = refused && req_beyond_iut(&rc->req, tv->spec_version);
    if (!cannot_know && !(refused && x->r.exit_code == 64))
        return 0;
    char *why = cannot_know ? xasprintf("not implemented: profile %s arrived in spec %s, the IUT claims %s and "
                                        "ended its fresh-seed run with %s",
                                        prof, tv->spec_version, rc->req.iut_text, x->r.status_text)
                            : xstrdup("the IUT does not implement the train verb or this profile (exit status 64, "
                                      "P1, P7)");
    results_add(&rc->res, "fresh", suite, run_id, V_SKIP, why, 1, x->r.seconds);
    for (uint32_t t = 0; t <= n; t++) {
        char id[64];
        snprintf(id, sizeof id, "fresh/%s/%u", prof, (unsigned)t);
        results_add(&rc->res, "fresh", suite, id, V_SKIP,
                    cannot_know ? "not implemented: the profile arrived after the spec the IUT claims"
                                : "the IUT does not implement the train verb or this profile (P1, P7)",
                    1, 0);
    }
    fprintf(rc->out, "  SKIP %s: %s\n", run_id, why);
    free(why);
    return 1;
}

/* Every step 0..n of the IUT's fresh-seed run x against the linked
 * reference's (fs, whose IUT side it fills in): a case per step, the
 * first four failures listed, then the profile's summary line. */
static void compare_steps(run_ctx *rc, const train_vec *tv, const train_exec *x, struct fresh_step *fs, uint32_t n,
                          const char *seed, const char *suite, const char *problem)
{
    const char *prof = tv->profile;
    size_t pass = 0, bad = 0;
    int listed = 0;
    for (uint32_t t = 0; t <= n; t++) {
        char id[64];
        snprintf(id, sizeof id, "fresh/%s/%u", prof, (unsigned)t);
        struct fresh_step *f = &fs[t];
        if (x->trace_ok && t < x->tr.n) {
            f->reached = 1;
            f->has_loss = t > 0 && x->tr.s[t].has_loss;
            f->loss = x->tr.s[t].loss;
        }
        if (x->ck[t].present && x->ck[t].size == 4 * tv->parameters)
            memcpy(f->sha256, x->ck[t].sha256, 65);
        char *why = NULL;
        /* P8: a step the run did not reach before its deadline is an ERROR, as in the train level */
        const int unreached = x->r.timed_out && !f->reached;
        if (unreached)
            why = xasprintf("not reached: %s", problem ? problem : x->r.status_text);
        else if (!f->sha256[0])
            why = xasprintf("no checkpoint step-%06u.bin of 4*P bytes", (unsigned)t);
        else if (strcmp(f->sha256, f->ref_sha256) != 0)
            why = xasprintf("parameters differ from the linked reference under seed %s: %s, expected %s", seed,
                            f->sha256, f->ref_sha256);
        else if (t > 0 && (!f->reached || f->loss != f->ref_loss))
            why = xasprintf("loss 0x%08x, the linked reference has 0x%08x", (unsigned)f->loss, (unsigned)f->ref_loss);
        results_add(&rc->res, "fresh", suite, id, !why ? V_PASS : unreached ? V_ERROR : V_FAIL, why, 1, 0);
        if (why) {
            bad++;
            if (listed++ < 4)
                fprintf(rc->out, "    %s %s: %s\n", unreached ? "ERROR" : "FAIL", id, why);
        } else
            pass++;
        free(why);
    }
    fprintf(rc->out, "  fresh %s seed %s  %zu steps passed", prof, seed, pass);
    if (bad)
        fprintf(rc->out, ", %zu failed", bad);
    fprintf(rc->out, " (run: %s, %.2f s)\n", x->r.status_text, x->r.seconds);
}

/* Without --seed (P2 train_seed=1) there is no fresh-seed run: a SKIP;
 * whether it narrows the verdict is verdict/requirements.c's to say. */
static void skip_unseeded(run_ctx *rc, const train_vec *tv, const char *suite, const char *run_id)
{
    /* required from spec 1.1 on; a run that certifies 1.0 records the skip
     * without narrowing the verdict */
    const char *why = req_beyond_iut(&rc->req, tv->spec_version)
                          ? "not implemented: the profile arrived after the spec the IUT claims"
                      : req_certified_has(&rc->req, REQ_FRESH_SEED_RUN)
                          ? "fresh-seed training not supported (spec 1.1.0 P7): the IUT's hello does not advertise "
                            "train_seed=1"
                          : "fresh-seed training is not a requirement of the spec certified here (it arrived in "
                            "1.1.0, P7); the IUT's hello does not advertise train_seed=1";
    results_add(&rc->res, "fresh", suite, run_id, V_SKIP, why, 1, 0);
    fprintf(rc->out, "  SKIP %s: %s\n", run_id, why);
}

/* The records of steps 0..n: the receipt's fresh_train record (rc's) for
 * the profile whose row keeps it, else the caller's to free (its steps are
 * cases only). */
static struct fresh_step *fresh_records(run_ctx *rc, int receipt_record, uint32_t n)
{
    struct fresh_step *fs = xcalloc((size_t)n + 1, sizeof *fs);
    for (uint32_t t = 0; t <= n; t++)
        fs[t].step = t;
    if (receipt_record) {
        rc->fresh_train_ran = 1;
        rc->n_fresh_steps = (size_t)n + 1;
        rc->fresh_steps = fs;
    }
    return fs;
}

/* The IUT's fresh-seed run of n steps (P7 --seed); with resume_at > 0 it
 * also writes its state of that step (--state-steps), to be resumed from. */
static int iut_fresh_run(run_ctx *rc, const train_vec *tv, uint32_t n, const char *seed, uint32_t resume_at,
                         train_exec *x, char *err, size_t cap)
{
    char state_step[16];
    snprintf(state_step, sizeof state_step, "%u", (unsigned)resume_at);
    const train_request q = {.steps = n, .seed = seed, .state_steps = resume_at ? state_step : NULL};
    return rc_train_run(rc, tv, q, x, err, cap);
}

/* The run as a case (PROFILE/run) and its steps against the reference's;
 * 1 when the run completed with a whole trace. */
static int judge_fresh_run(run_ctx *rc, const train_vec *tv, const train_exec *x, struct fresh_step *fs, uint32_t n,
                           const char *seed, const char *suite, const char *run_id)
{
    char *problem = NULL;
    if (!x->started || !x->r.exited_ok)
        problem = xasprintf("the fresh-seed run did not complete: %s", x->r.status_text);
    else if (!x->trace_ok)
        problem = xasprintf("garbage in the trace: %s", x->trace_err);
    else if (x->tr.n < (size_t)n + 1)
        problem = xasprintf("the trace ends at step %zu of %u", x->tr.n ? x->tr.n - 1 : 0, (unsigned)n);
    /* P8: a fresh-seed run past its deadline is an ERROR, never a FAIL */
    results_add(&rc->res, "fresh", suite, run_id, !problem ? V_PASS : x->r.timed_out ? V_ERROR : V_FAIL, problem, 1,
                x->r.seconds);
    compare_steps(rc, tv, x, fs, n, seed, suite, problem);
    const int whole = problem == NULL;
    free(problem);
    return whole;
}

static void fresh_train(run_ctx *rc, const train_vec *tv, const runner_profile *row)
{
    char suite[64], run_id[64], seed[24], err[512];
    snprintf(suite, sizeof suite, "fresh/train/%s", tv->profile);
    snprintf(run_id, sizeof run_id, "fresh/%s/run", tv->profile);
    if (!rc->train_seed) {
        skip_unseeded(rc, tv, suite, run_id);
        return;
    }
    /* the profile's fresh_steps (spec §11.9, P7; fresh/fresh.h says why
     * each is what it is), every step compared: the published run covers
     * the long run, this one shows the IUT trains from a seed nobody has
     * published */
    uint32_t n = row->ref->fresh_steps;
    if (rc->a->steps >= 0 && (uint64_t)rc->a->steps < n)
        n = (uint32_t)rc->a->steps;
    snprintf(seed, sizeof seed, "%llu", (unsigned long long)rc->run_seed);
    fprintf(rc->out, "level fresh: profile %s under --seed %s, %u steps, every step compared with the linked reference\n",
            tv->profile, seed, (unsigned)n);
    fflush(rc->out);
    struct fresh_step *fs = fresh_records(rc, row->fresh_record, n);
    /* the IUT's run is mostly another process's time: on two cores the
     * linked reference's run overlaps it */
    ref_job rj = {row->ref, rc->run_seed, n, fs};
    beside_job ref;
    beside_start(&ref, reference_thread, &rj);
    /* an IUT that resumes also writes its state halfway, to be resumed from it */
    const uint32_t k = hello_advertises(rc->hello_line, "train_resume=1") ? n / 2 : 0;
    train_exec x;
    const int started = iut_fresh_run(rc, tv, n, seed, k, &x, err, sizeof err);
    beside_finish(&ref);
    if (started != 0) {
        char *why = xasprintf("runner: %s", err);
        results_add(&rc->res, "fresh", suite, run_id, V_ERROR, why, 1, 0);
        free(why);
    } else {
        if (!skipped_refusal(rc, tv, &x, n, suite, run_id) && judge_fresh_run(rc, tv, &x, fs, n, seed, suite, run_id) &&
            k >= 1)
            own_state_resume(rc, tv, &x, k, n, seed, fs, suite);
        train_exec_free(&x, 0);
    }
    if (!row->fresh_record)
        free(fs);
}

/* P2: "train_seed=1" among hello's keys (spec 1.1.0). */
static int hello_train_seed(const char *hello)
{
    return hello_advertises(hello, "train_seed=1");
}

void level_fresh_run(run_ctx *rc)
{
    double t0 = now_s();
    const conform_args *a = rc->a;
    rc->train_seed = hello_train_seed(rc->hello_line);
    if (cli_level_on(a, "ops"))
        fresh_ops(rc);
    if (cli_level_on(a, "train"))
        for (size_t i = 0; i < rc->vs.n_trains; i++) {
            const train_vec *tv = &rc->vs.trains[i];
            if ((a->profile && strcmp(a->profile, tv->profile) != 0) || !cli_filter_match(a, tv->profile))
                continue;
            const runner_profile *row = rc_runner_profile(rc, tv);
            if (rc->recipe_name && !hello_advertises(rc->hello_line, "train_recipe=1"))
                continue; /* the train level records the recipe's run as not implemented (P7) */
            if (!row) {
                fprintf(rc->out, "  fresh %s: the runner links no reference for this profile\n", tv->profile);
                continue;
            }
            fresh_train(rc, tv, row);
            if (rc->recipe_name)
                recipe_refusal_run(rc, tv); /* a corpus of another digest must be refused (P7 1.3.0) */
        }
    req_apply(&rc->req, &rc->res); /* verdict/requirements.h */
    tally t = results_tally(&rc->res, "fresh");
    rc->lv_fresh = t.passed + t.failed + t.errors + t.skipped ? level_from_cases(&rc->res, "fresh", FRESH_OPS_SESSION_CASE)
                                                               : L_NOT_RUN;
    rc->t_fresh = now_s() - t0;
    if (rc->lv_fresh != L_NOT_RUN)
        fprintf(rc->out, "level fresh: %s (%zu passed, %zu failed, %zu skipped) in %.1f s\n",
                level_verdict_name(rc->lv_fresh), t.passed, t.failed + t.errors, t.skipped, rc->t_fresh);
}
