/* level_train.c — the train level (spec/iut-protocol.md P7, P8): one training
 * run per profile with every step checkpointed, the trace parsed strictly,
 * every checkpoint hashed by the runner, each step compared with the vectors
 * (vectors/FORMAT.md §3). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "protocol/iut_process.h"
#include "levels/localize.h"
#include "levels/time_budget.h"
#include "levels/levels.h"
#include "protocol/trace.h"
#include "protocol/train_exec.h"
#include "core/ulp.h"

/* A profile newer than the spec the IUT claims is one it cannot know.
 * Before exit 64 arrived (P7, 1.1.0) such an IUT could refuse it only with
 * some non-zero status (1.0.0 said "non-zero"): whatever status it exits
 * with, the profile is not implemented, a SKIP, never a FAIL. 2 then (the
 * reason in rep->problem), 1 for exit 64 otherwise, else 0. */
static int not_implemented(run_ctx *rc, const train_vec *tv, train_exec *x, train_report *rep)
{
    const iut_result *r = &x->r;
    int unsupported = x->started && r->exit_code == 64;
    int normal_exit = train_exec_refused(x);
    int beyond = req_beyond_iut(&rc->req, tv->spec_version);
    if (beyond && normal_exit && !req_iut_has(&rc->req, REQ_EXIT_64_PROFILE)) {
        rep->problem = xasprintf("not implemented: profile %s arrived in spec %s, the IUT claims %s and ended "
                                 "with %s (P7: exit 64 arrived in 1.1.0; 1.0.0 said only \"non-zero\")",
                                 tv->profile, tv->spec_version, rc->req.iut_text, r->status_text);
        return 2;
    }
    if (beyond && unsupported) {
        rep->problem = xasprintf("not implemented: profile %s arrived in spec %s, the IUT claims %s and ended "
                                 "with exit status 64 (P7)",
                                 tv->profile, tv->spec_version, rc->req.iut_text);
        return 2;
    }
    return unsupported;
}

/* How the run ended, as problems of the run case. */
static void exit_problem(double deadline, const train_exec *x, const train_report *rep, int unsupported, sbuf *pb)
{
    const iut_result *r = &x->r;
    if (!x->started || r->exited_ok || unsupported == 2)
        return;
    if (r->timed_out)
        sbuf_item_printf(pb, "TIME-OUT: the training run hung: no exit within %g s (time-out, P8); the IUT was killed. "
                "This says nothing about its results: a correct but slow IUT, on a loaded machine or "
                "an emulator, needs a longer one: --timeout-run S or --slowdown F (--timeout-run S is "
                "used as given, --slowdown F multiplies the deadline; conformance/README.md \"Time-outs\")",
            deadline);
    else if (r->killed_reason)
        sbuf_item_printf(pb, "%s; the IUT was killed", r->killed_reason);
    else if (r->signal)
        sbuf_item_printf(pb, "the IUT crashed: %s", r->status_text);
    else if (unsupported)
        sbuf_item_printf(pb, "the IUT does not implement the train verb or this profile (exit status 64, P1, P7)");
    else
        sbuf_item_printf(pb, "the IUT exited non-zero: %s", r->status_text);
    if (rep->failure)
        sbuf_item_printf(pb, "it reports %s (spec §10)", rep->failure);
}

/* The trace, strictly, as problems of the run case (its header was
 * checked against the request by rc_train_run). */
static void trace_problem(const train_exec *x, uint32_t n, int unsupported, sbuf *pb)
{
    const trace_doc *tr = &x->tr;
    if (!x->trace_exists) {
        if (!unsupported)
            sbuf_item_printf(pb, "no trace file was written (P7)");
        return;
    }
    if (!x->trace_ok)
        sbuf_item_printf(pb, "%s: %s", x->trace_read ? "garbage in the trace" : "the trace cannot be read (P8)", x->trace_err);
    if (x->trace_ok && tr->n < (size_t)n + 1 && !pb->len)
        sbuf_item_printf(pb, "the trace ends at step %zu of %u", tr->n ? tr->n - 1 : 0, (unsigned)n);
}

/* A profile the IUT does not implement: the run and every step SKIP. */
static void skip_profile(run_ctx *rc, const train_vec *tv, const char *suite, const train_report *rep, int unsupported)
{
    char run_id[160];
    snprintf(run_id, sizeof run_id, "%s/run", tv->profile);
    results_add(&rc->res, "train", suite, run_id, V_SKIP, rep->problem, 1, rep->seconds);
    for (uint32_t s = 0; s <= tv->steps; s++) {
        char id[160];
        snprintf(id, sizeof id, "%s/%u", tv->profile, (unsigned)s);
        results_add(&rc->res, "train", suite, id, V_SKIP,
                    unsupported == 2 ? "not implemented: the profile arrived after the spec the IUT claims"
                                     : "the IUT does not implement the train verb or this profile (P1, P7)",
                    1, 0);
    }
    fprintf(rc->out, "  SKIP %s: %s\n", tv->profile, rep->problem);
}

/* What the first differing steps were, for localization. */
typedef struct {
    int first_bad, first_loss_bad, listed;
    size_t n_fail, n_pass;
} step_tally;

/* Step s's loss against the vectors' (step 0 has none). */
static void judge_loss(const trace_step *ts, const trace_vec *want, uint32_t s, step_tally *st, sbuf *why)
{
    if (s == 0)
        return;
    if (f32_bits_nan(ts->loss))
        sbuf_item_printf(why, "the loss is NaN (0x%08x) at step %u: a non-finite loss ends a run (spec §10)", (unsigned)ts->loss,
            (unsigned)s);
    else if (!f32_same(ts->loss, want->loss)) {
        char g[48], e[48];
        f32_describe(ts->loss, g, sizeof g);
        f32_describe(want->loss, e, sizeof e);
        uint64_t u = ulp_distance(ts->loss, want->loss);
        sbuf_item_printf(why, "loss %s, expected %s (%llu ULP)", g, e, (unsigned long long)u);
    }
    if (!f32_same(ts->loss, want->loss) && st->first_loss_bad < 0)
        st->first_loss_bad = (int)s;
}

/* Step s's checkpoint file, hashed by the runner, against the vectors'. */
static void judge_checkpoint(const train_vec *tv, const train_exec *x, uint32_t s, step_tally *st, sbuf *why)
{
    const ckpt_file *ck = &x->ck[s];
    const trace_step *ts = &x->tr.s[s];
    int params_bad = 1;
    if (!ck->present)
        sbuf_item_printf(why, "checkpoint step-%06u.bin is missing (P7: --checkpoint-steps all)", (unsigned)s);
    else if (ck->problem)
        sbuf_item_printf(why, "checkpoint %s (P8: a regular file of exactly 4*P bytes)", ck->problem);
    else if (ck->size != 4 * tv->parameters)
        sbuf_item_printf(why, "checkpoint step-%06u.bin has %llu bytes, expected exactly 4*P = %llu (%s)", (unsigned)s,
            (unsigned long long)ck->size, (unsigned long long)(4 * tv->parameters),
            ck->size < 4 * tv->parameters ? "truncated" : "oversized");
    else {
        params_bad = strcmp(ck->sha256, tv->trace[s].digest) != 0;
        if (params_bad)
            sbuf_item_printf(why, "parameters differ: the checkpoint hashes to %s, expected %s", ck->sha256, tv->trace[s].digest);
        if (ts->has_digest && strcmp(ts->digest, ck->sha256) != 0)
            sbuf_item_printf(why, "the trace's digest %s disagrees with the checkpoint file's SHA-256 %s (the runner hashes the file itself)",
                ts->digest, ck->sha256);
    }
    if (params_bad && st->first_bad < 0)
        st->first_bad = (int)s;
}

/* Every step 0..tv->steps a case: not run, not reached, or judged. */
static step_tally judge_steps(run_ctx *rc, const train_vec *tv, const train_exec *x, uint32_t n, const char *suite,
                              const train_report *rep)
{
    step_tally st = {-1, -1, 0, 0, 0};
    for (uint32_t s = 0; s <= tv->steps; s++) {
        char id[160];
        snprintf(id, sizeof id, "%s/%u", tv->profile, (unsigned)s);
        if (s > n) {
            results_add(&rc->res, "train", suite, id, V_SKIP, "not run (--steps)", 1, 0);
            continue;
        }
        if (s >= x->tr.n) {
            char *why = xasprintf("not reached: %s", rep->problem ? rep->problem : "the trace ends before this step");
            results_add(&rc->res, "train", suite, id, rep->problem ? V_ERROR : V_FAIL, why, 1, 0);
            free(why);
            st.n_fail++;
            continue;
        }
        sbuf why;
        sbuf_init(&why);
        judge_loss(&x->tr.s[s], &tv->trace[s], s, &st, &why);
        judge_checkpoint(tv, x, s, &st, &why);
        if (why.len) {
            results_add(&rc->res, "train", suite, id, V_FAIL, why.p, 1, 0);
            st.n_fail++;
            if (st.listed++ < 4)
                fprintf(rc->out, "    FAIL %s: %s\n", id, why.p);
        } else {
            results_add(&rc->res, "train", suite, id, V_PASS, NULL, 1, 0);
            st.n_pass++;
        }
        sbuf_free(&why);
    }
    return st;
}

/* The vectors' checkpoint steps, as a table people can compare across hosts. */
static void checkpoint_table(run_ctx *rc, const train_vec *tv, const train_exec *x, uint32_t n, train_report *rep)
{
    const trace_doc *tr = &x->tr;
    rep->ck = xcalloc(tv->n_ck ? tv->n_ck : 1, sizeof *rep->ck);
    rep->n_ck = tv->n_ck;
    for (size_t i = 0; i < tv->n_ck; i++) {
        uint32_t s = tv->ck_steps[i];
        struct ck_seen *cs = &rep->ck[i];
        cs->step = s;
        if (s > n || s >= tr->n)
            continue;
        const ckpt_file *ck = &x->ck[s];
        int same = ck->present && !ck->problem && ck->size == 4 * tv->parameters && !strcmp(ck->sha256, tv->trace[s].digest);
        cs->reached = 1;
        cs->has_loss = s > 0;
        cs->loss = s > 0 ? tr->s[s].loss : 0;
        cs->present = ck->present && !ck->problem && ck->size == 4 * tv->parameters;
        if (ck->present && !ck->problem)
            snprintf(cs->sha256, sizeof cs->sha256, "%s", ck->sha256);
        cs->same = same;
        char loss[24] = "(init)    ";
        if (s > 0)
            snprintf(loss, sizeof loss, "0x%08x", (unsigned)tr->s[s].loss);
        fprintf(rc->out, "    step %3u  loss %s  sha256 %s  %s\n", (unsigned)s, loss,
                cs->sha256[0] ? cs->sha256 : ck->present ? "(unusable checkpoint)" : "(no checkpoint)", same ? "= vectors" : "!= vectors");
    }
}

/* Every step for the receipt (verify checks each verdict against the vectors). */
static void steps_seen(const train_vec *tv, const train_exec *x, uint32_t n, train_report *rep)
{
    const trace_doc *tr = &x->tr;
    rep->n_steps_seen = (size_t)n + 1;
    rep->steps_seen = xcalloc(rep->n_steps_seen, sizeof *rep->steps_seen);
    for (uint32_t s = 0; s <= n && s < tr->n; s++) {
        struct step_seen *ss = &rep->steps_seen[s];
        ss->reached = 1;
        ss->has_loss = s > 0 && tr->s[s].has_loss;
        ss->loss = tr->s[s].loss;
        ss->present = x->ck[s].present && x->ck[s].size == 4 * tv->parameters;
        if (ss->present)
            memcpy(ss->sha256, x->ck[s].sha256, 65);
    }
}

/* The run case, every step, the table, and where it differs. */
static void judge_run(run_ctx *rc, const train_vec *tv, train_exec *x, uint32_t n, const char *suite,
                      train_report *rep, sbuf *run_problem)
{
    char run_id[160];
    snprintf(run_id, sizeof run_id, "%s/run", tv->profile);
    rep->problem = run_problem->len ? xstrdup(run_problem->p) : NULL;
    /* P8 ("past a deadline the IUT is killed and the case is an ERROR"): a
     * time-out says nothing about the results, so the run case is an ERROR,
     * never a FAIL; the run still FAILs (P10: a case failed or errored). */
    verdict v = !rep->problem ? V_PASS : x->r.timed_out ? V_ERROR : V_FAIL;
    results_add(&rc->res, "train", suite, run_id, v, rep->problem, 1, rep->seconds);
    if (rep->problem)
        fprintf(rc->out, "    %s %s: %s\n", v == V_ERROR ? "ERROR" : "FAIL", run_id, rep->problem);
    step_tally st = judge_steps(rc, tv, x, n, suite, rep);
    if (st.listed > 4)
        fprintf(rc->out, "    ... %d more failing steps (the receipt and JUnit list every step)\n", st.listed - 4);
    fprintf(rc->out, "  %-24s %zu step%s passed", tv->profile, st.n_pass, st.n_pass == 1 ? "" : "s");
    if (st.n_fail)
        fprintf(rc->out, ", %zu failed", st.n_fail);
    fprintf(rc->out, " (run: %s, %.2f s)\n", rep->status, rep->seconds);
    checkpoint_table(rc, tv, x, n, rep);
    steps_seen(tv, x, n, rep);
    rep->first_bad_step = st.first_bad;
    if (st.first_bad >= 0)
        localize_train(rc, tv, x->ck_fd, x->trace_exists ? &x->tr : NULL, (uint32_t)st.first_bad, rep);
    else if (st.first_loss_bad >= 0)
        localize_loss_only(tv, &x->tr, (uint32_t)st.first_loss_bad, rep);
    if (rep->loc_text.len) {
        fprintf(rc->out, "  where it differs:\n%s", rep->loc_text.p);
        fflush(rc->out);
    }
}

/* The report's start, before the run: the steps asked for and the vectors',
 * and the run's deadline (levels/time_budget.h) into *deadline. */
static uint32_t begin_report(run_ctx *rc, const train_vec *tv, train_report *rep, double *deadline)
{
    uint32_t n = tv->steps;
    if (rc->a->steps >= 0 && (uint64_t)rc->a->steps < n)
        n = (uint32_t)rc->a->steps;
    rep->profile = xstrdup(tv->profile);
    rep->steps_requested = n;
    rep->steps_in_vectors = tv->steps;
    rep->first_bad_step = -1;
    sbuf_init(&rep->loc_text);
    *deadline = rc_timeout_train(rc, tv->profile, n);
    fprintf(rc->out, "level train: profile %s, %u steps%s, checkpoint every step, time-out %g s\n", tv->profile,
            (unsigned)n, n < tv->steps ? " (--steps: the rest are skipped)" : "", *deadline);
    fflush(rc->out);
    return n;
}

/* The train level for one profile (spec §1.4, §9, §10; P7, P8; FORMAT.md §3):
 * the run is the case PROFILE/run, every step 0..N a case PROFILE/t. */
static void train_profile(run_ctx *rc, const train_vec *tv, train_report *rep)
{
    const conform_args *a = rc->a;
    char suite[160], err[512];
    snprintf(suite, sizeof suite, "train/%s", tv->profile);
    double deadline;
    uint32_t n = begin_report(rc, tv, rep, &deadline);
    if (rc->recipe_name && !hello_advertises(rc->hello_line ? rc->hello_line : "", "train_recipe=1")) {
        rep->problem = xstrdup("not implemented: hello does not advertise train_recipe=1 (P2), and a runner MUST NOT "
                               "pass --recipe to such an IUT (P7)");
        snprintf(rep->status, sizeof rep->status, "not started");
        skip_profile(rc, tv, suite, rep, 1);
        return;
    }
    train_exec x;
    /* a recipe set's run: `train --recipe FILE` (P7 1.3.0), its traces
     * named by the recipe's name */
    int started = rc_train_run(rc, tv, (train_request){.steps = n, .timeout = deadline}, &x, err, sizeof err);
    if (started != 0) {
        rep->problem = xasprintf("runner: %s", err);
        snprintf(rep->status, sizeof rep->status, "not started");
        char run_id[160];
        snprintf(run_id, sizeof run_id, "%s/run", tv->profile);
        results_add(&rc->res, "train", suite, run_id, V_ERROR, rep->problem, 1, 0);
        return;
    }
    const iut_result *r = &x.r;
    sbuf run_problem;
    sbuf_init(&run_problem);
    if (!x.started)
        sbuf_item_printf(&run_problem, "could not start the IUT: %s", r->status_text);
    rep->seconds = r->seconds;
    snprintf(rep->status, sizeof rep->status, "%s", r->status_text);
    rep->stderr_tail = xstrdup(r->err_tail ? r->err_tail : "");
    rep->stdout_tail = sanitized(r->out ? r->out : "", r->out_len, 4096);
    rep->failure = x.failure ? xstrdup(x.failure) : NULL;
    int unsupported = not_implemented(rc, tv, &x, rep);
    exit_problem(deadline, &x, rep, unsupported, &run_problem);
    trace_problem(&x, n, unsupported, &run_problem);
    if (unsupported == 2 || (unsupported && !x.trace_exists)) {
        if (!rep->problem)
            rep->problem = sbuf_take(&run_problem);
        skip_profile(rc, tv, suite, rep, unsupported);
    } else
        judge_run(rc, tv, &x, n, suite, rep, &run_problem);
    sbuf_free(&run_problem);
    if (a->keep_work) {
        rep->work_dir = xstrdup(x.dir);
        fprintf(rc->out, "  work directory kept: %s\n", x.dir);
    }
    train_exec_free(&x, a->keep_work);
}

/* The train level over every selected profile of the vectors. */
void level_train_run(run_ctx *rc)
{
    double t0 = now_s();
    const conform_args *a = rc->a;
    size_t selected = 0;
    for (size_t i = 0; i < rc->vs.n_trains; i++) {
        const train_vec *tv = &rc->vs.trains[i];
        if (a->profile && strcmp(a->profile, tv->profile) != 0)
            continue;
        if (!cli_filter_match(a, tv->profile))
            continue;
        selected++;
        rc->trains = xrealloc(rc->trains, (rc->n_trains + 1) * sizeof *rc->trains);
        train_report *rep = &rc->trains[rc->n_trains++];
        memset(rep, 0, sizeof *rep);
        train_profile(rc, tv, rep);
        if (a->windows)
            level_windows_run(rc, tv);
    }
    if (a->profile && !selected) {
        rc->lv_train = L_NOT_REACHED;
        rc->train_note = xasprintf("the vectors have no profile %s", a->profile);
        results_add(&rc->res, "train", "train", a->profile, V_ERROR, rc->train_note, 1, 0);
        fprintf(rc->out, "level train: %s\n", rc->train_note);
        return;
    }
    if (!selected) {
        rc->lv_train = L_NOT_RUN;
        fprintf(rc->out, "level train: not run (no profile selected)\n");
        return;
    }
    req_apply(&rc->req, &rc->res); /* verdict/requirements.h */
    tally t = results_tally(&rc->res, "train");
    rc->lv_train = level_from_tally(t);
    rc->t_train = now_s() - t0;
    fprintf(rc->out, "level train: %s (%zu passed, %zu failed, %zu skipped) in %.1f s\n",
            level_verdict_name(rc->lv_train), t.passed, t.failed + t.errors, t.skipped, rc->t_train);
}
