/* level_windows.c — windows of the train level (spec §8.4, §14.10;
 * spec/iut-protocol.md P7 1.2.0-1.2.1; vectors/FORMAT.md §6): the IUT is
 * resumed from the state of step `from` and run to step `to`; every step's
 * loss bits and checkpoint digest are compared with what the run must give.
 * Two kinds (DESIGN.md "Windows must be earned"):
 * - fresh windows (fresh/fresh_windows.h), for every profile the runner
 *   links: a seed and three starts drawn from the run seed, the start states
 *   made by the linked reference; only these certify (`matrix`'s rule,
 *   report/matrix/receipt_trust.c), since the IUT cannot have computed them
 *   in advance;
 * - golden windows, from the states a vector set ships: they check that
 *   resuming a published run gives it, but their end states ship too, so a
 *   table could pass them and they certify nothing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/ulp.h"
#include "fresh/fresh_windows.h"
#include "isotrain.h"
#include "levels/levels.h"
#include "levels/localize.h"
#include "levels/runner_profiles.h"
#include "levels/time_budget.h"
#include "protocol/train_exec.h"

/* P2 (1.2.0): "train_resume=1" among hello's keys */
static int hello_train_resume(const char *hello)
{
    return hello_advertises(hello, "train_resume=1");
}

/* What a window's steps must be: want[i] is step from + i (its loss from
 * i = 1 on, its digest always). */
typedef struct {
    const char *suite, *id, *seed; /* seed: NULL for the profile's own */
    uint64_t seed_value;           /* the training seed either way */
    uint32_t from, to;
    const fresh_wstep *want;
    const char *start_dir; /* the start state's files (spec §8.3 names) */
} window_job;

/* Where a failed window departs, as a golden run's failure is told
 * (conformance/README.md "Where a run differs", levels/localize.h): the
 * first step whose checkpoint differs, the first differing tensor and
 * element with the ULP distance, the count per tensor and the histogram,
 * then the op replay of that step from the linked reference's state before
 * it, resumed from the window's own start state. Appends to where, and the
 * same as JSON to *json (NULL when nothing is localized). */
static void window_localize(run_ctx *rc, const window_job *j, const train_vec *tv, const train_exec *x, sbuf *where,
                            cJSON **json)
{
    uint32_t s = j->from + 1;
    while (s <= j->to && x->ck[s].present && !strcmp(x->ck[s].sha256, j->want[s - j->from].digest))
        s++;
    if (s > j->to || x->ck_fd < 0)
        return;
    localize_origin o = {j->seed_value, j->start_dir, j->from, j->want[s - j->from].digest};
    train_report rep;
    memset(&rep, 0, sizeof rep);
    sbuf_init(&rep.loc_text);
    localize_window(rc, tv, x->ck_fd, s, &o, &rep);
    if (rep.loc_text.len)
        sbuf_adds(where, rep.loc_text.p);
    *json = rep.loc_json;
    sbuf_free(&rep.loc_text);
}

/* Why the resumed run x departs from the job, or NULL (the caller frees). */
static char *window_problems(const window_job *j, const train_exec *x)
{
    if (!x->started || !x->r.exited_ok)
        return xasprintf("the resumed run did not complete: %s%s%s", x->r.status_text, x->failure ? "; " : "",
                         x->failure ? x->failure : "");
    if (!x->trace_ok)
        return xasprintf("garbage in the trace: %s", x->trace_err);
    if (x->tr.n < (size_t)(j->to - j->from) + 1)
        return xasprintf("the trace ends at step %u of %u", (unsigned)(j->from + (x->tr.n ? x->tr.n - 1 : 0)),
                         (unsigned)j->to);
    sbuf why;
    sbuf_init(&why);
    for (uint32_t s = j->from; s <= j->to; s++) {
        const trace_step *ts = &x->tr.s[s - j->from];
        const fresh_wstep *want = &j->want[s - j->from];
        const ckpt_file *ck = &x->ck[s];
        if (s > j->from && !f32_same(ts->loss, want->loss)) {
            float got = it_f32_from_bits(ts->loss), exp = it_f32_from_bits(want->loss);
            sbuf_printf(&why, "%sstep %u: loss 0x%08x (%.9g), expected 0x%08x (%.9g), %llu ULP", why.len ? "; " : "",
                        (unsigned)s, (unsigned)ts->loss, got, (unsigned)want->loss, exp,
                        (unsigned long long)ulp_distance(ts->loss, want->loss));
        }
        if (s > j->from && (!ck->present || ck->problem || strcmp(ck->sha256, want->digest) != 0))
            sbuf_printf(&why, "%sstep %u: the checkpoint %s", why.len ? "; " : "", (unsigned)s,
                        !ck->present ? "is missing"
                        : ck->problem ? ck->problem
                                      : "differs from the expected digest");
        if (s == j->from && ts->has_digest && strcmp(ts->digest, want->digest) != 0)
            sbuf_printf(&why, "%sthe first line's digest is not the state's (step %u): the IUT read another state",
                        why.len ? "; " : "", (unsigned)s);
    }
    return why.len ? sbuf_take(&why) : (sbuf_free(&why), NULL);
}

/* Resumes the IUT from the state files and judges the window: one case. */
static void run_window(run_ctx *rc, const train_vec *tv, const window_job *j, const char *const *files,
                       size_t n_files)
{
    char err[512];
    train_exec x;
    const train_request q = {
        .steps = j->to, .seed = j->seed, .from = j->from, .state_files = files, .n_state = n_files};
    int rc_run = rc_train_run(rc, tv, q, &x, err, sizeof err);
    if (rc_run != 0) {
        char *why = xasprintf("runner: %s", err);
        results_add(&rc->res, "train", j->suite, j->id, V_ERROR, why, 1, 0);
        fprintf(rc->out, "    ERROR %s: %s\n", j->id, why);
        free(why);
        return;
    }
    char *why = window_problems(j, &x), *reason = why;
    sbuf where;
    sbuf_init(&where);
    cJSON *loc = NULL;
    if (why)
        window_localize(rc, j, tv, &x, &where, &loc);
    cJSON_Delete(loc); /* the reason below carries the same text into the receipt */
    if (where.len) { /* the case's reason carries it too: the receipt's record */
        reason = xasprintf("%s; where it differs: %s", why, where.p);
        for (char *c = reason; *c; c++)
            if (*c == '\n')
                *c = ' ';
    }
    /* P8: a window past its deadline is an ERROR (it says nothing about the results) */
    verdict v = !why ? V_PASS : x.r.timed_out ? V_ERROR : V_FAIL;
    results_add(&rc->res, "train", j->suite, j->id, v, reason, 1, x.r.seconds);
    if (why)
        fprintf(rc->out, "    %s %s: %s\n%s%s", v == V_ERROR ? "ERROR" : "FAIL", j->id, why,
                where.len ? "      where it differs:\n" : "",
                where.len ? where.p : "");
    else
        fprintf(rc->out, "  %-24s window %u -> %u%s%s: %u steps passed (%.2f s)\n", tv->profile, (unsigned)j->from,
                (unsigned)j->to, j->seed ? " under seed " : "", j->seed ? j->seed : "",
                (unsigned)(j->to - j->from + 1), x.r.seconds);
    if (reason != why)
        free(reason);
    sbuf_free(&where);
    free(why);
    train_exec_free(&x, rc->a->keep_work);
}

static void skip_all(run_ctx *rc, const char *suite, char ids[][160], size_t n, const char *why)
{
    for (size_t i = 0; i < n; i++)
        results_add(&rc->res, "train", suite, ids[i], V_SKIP, why, 1, 0);
}

#define NO_RESUME "resuming not supported (spec 1.2.0 P7): the IUT's hello does not advertise train_resume=1"

/* The golden windows a vector set ships (FORMAT.md §6). */
static void golden_windows(run_ctx *rc, const train_vec *tv, const window_set *ws)
{
    char suite[160], ids[16][160];
    snprintf(suite, sizeof suite, "train/%s/windows", tv->profile);
    size_t n = ws->n < 16 ? ws->n : 16;
    for (size_t i = 0; i < n; i++)
        snprintf(ids[i], sizeof ids[i], "%s/window/%u-%u", tv->profile, (unsigned)ws->w[i].from,
                 (unsigned)ws->w[i].to);
    if (!hello_train_resume(rc->hello_line)) {
        skip_all(rc, suite, ids, n, NO_RESUME);
        fprintf(rc->out, "  SKIP %s windows: hello has no train_resume=1 (P2, P7)\n", tv->profile);
        return;
    }
    fprintf(rc->out, "level train: profile %s, %zu windows from golden states (they check resuming; their end "
                     "states ship, so they certify nothing)\n", tv->profile, n);
    fflush(rc->out);
    for (size_t i = 0; i < n; i++) {
        const window_vec *w = &ws->w[i];
        char *files[3] = {NULL, NULL, NULL};
        for (size_t k = 0; k < w->n_files && k < 3; k++)
            files[k] = xasprintf("%s/windows/%s", rc->vs.dir, w->files[k]);
        fresh_wstep *want = xcalloc((size_t)(w->to - w->from) + 1, sizeof *want);
        for (uint32_t s = w->from; s <= w->to; s++) {
            want[s - w->from].loss = tv->trace[s].loss;
            memcpy(want[s - w->from].digest, tv->trace[s].digest, 65);
        }
        /* the shipped states sit side by side in one folder (FORMAT.md §6) */
        char *start_dir = xstrdup(files[0] ? files[0] : rc->vs.dir);
        char *slash = strrchr(start_dir, '/');
        if (slash)
            *slash = '\0';
        window_job j = {suite, ids[i], NULL, IT_GC_SEED /* every profile's published seed */, w->from, w->to, want,
                        start_dir};
        run_window(rc, tv, &j, (const char *const *)files, w->n_files < 3 ? w->n_files : 3);
        free(start_dir);
        free(want);
        for (size_t k = 0; k < 3; k++)
            free(files[k]);
    }
}

/* The fresh windows' plan of tv: a profile's by its row; a recipe's by
 * the recipe (its row's steps and seed, fresh_windows.h). */
static int plan_of(const run_ctx *rc, const train_vec *tv, const it_profile *row, fresh_window_plan *p)
{
    if (!rc->recipe_name)
        return fresh_windows_plan(rc->run_seed, tv->profile, tv->steps, p);
    return fresh_windows_plan_recipe(rc->run_seed, row->steps, row->seed, p);
}

/* The fresh windows of a profile (fresh/fresh_windows.h). */
static void fresh_windows(run_ctx *rc, const train_vec *tv)
{
    fresh_window_plan p;
    char suite[160], ids[FRESH_WINDOWS][160], seed[24], err[512];
    const runner_profile *rp = rc_runner_profile(rc, tv);
    const it_profile *row = rp ? rp->ref : NULL;
    if (!row || plan_of(rc, tv, row, &p) != 0) {
        fprintf(rc->out, "  %s: the runner draws no fresh windows for this profile\n", tv->profile);
        return;
    }
    snprintf(suite, sizeof suite, "train/%s/fresh-windows", tv->profile);
    snprintf(seed, sizeof seed, "%llu", (unsigned long long)p.seed);
    for (int w = 0; w < FRESH_WINDOWS; w++)
        snprintf(ids[w], sizeof ids[w], "%s/fresh-window/%u-%u", tv->profile, (unsigned)p.from[w], (unsigned)p.to[w]);
    if (!hello_train_resume(rc->hello_line)) {
        skip_all(rc, suite, ids, FRESH_WINDOWS, NO_RESUME);
        fprintf(rc->out, "  SKIP %s fresh windows: hello has no train_resume=1 (P2, P7)\n", tv->profile);
        return;
    }
    const char *tmp = getenv("TMPDIR");
    char *dir = xasprintf("%s/isotrain-windows-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    fresh_wstep *want[FRESH_WINDOWS];
    for (int w = 0; w < FRESH_WINDOWS; w++)
        want[w] = xcalloc((size_t)p.len + 1, sizeof *want[w]);
    double t0 = now_s();
    int ok = mkdtemp(dir) != NULL;
    if (!ok)
        snprintf(err, sizeof err, "cannot make a directory %s for the start states", dir);
    else
        ok = fresh_windows_reference(row, &p, dir, want, err, sizeof err) == 0;
    fprintf(rc->out, "level train: profile %s, %d fresh windows under seed %s (drawn from the run seed; start states "
                     "by the linked reference, %.1f s)\n", tv->profile, FRESH_WINDOWS, seed, now_s() - t0);
    fflush(rc->out);
    for (int w = 0; w < FRESH_WINDOWS; w++) {
        char *files[3] = {NULL, NULL, NULL};
        size_t nf = fresh_windows_state_files(row, dir, p.from[w], files);
        window_job j = {suite, ids[w], seed, p.seed, p.from[w], p.to[w], want[w], dir};
        if (ok)
            run_window(rc, tv, &j, (const char *const *)files, nf);
        else {
            char *why = xasprintf("runner: the linked reference: %s", err);
            results_add(&rc->res, "train", suite, ids[w], V_ERROR, why, 1, 0);
            fprintf(rc->out, "    ERROR %s: %s\n", ids[w], why);
            free(why);
        }
        for (size_t k = 0; k < nf; k++)
            free(files[k]);
        free(want[w]);
    }
    fresh_windows_cleanup(row, &p, dir);
    free(dir);
}

void level_windows_run(run_ctx *rc, const train_vec *tv)
{
    const window_set *ws = vectors_windows(&rc->vs, tv->profile);
    if (ws)
        golden_windows(rc, tv, ws);
    fresh_windows(rc, tv);
}
