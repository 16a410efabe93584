/* level_windows.c — windows of the train level (spec §8.4, §14.10;
 * spec/iut-protocol.md P7 1.2.0; vectors/FORMAT.md §6): for a profile whose
 * vector set ships golden states, the IUT is resumed from the state of step
 * `from` and run to step `to`; every step's loss bits and checkpoint digest
 * are compared with the golden trace. Windows spread over a run let a slow
 * (emulated) host certify its start, middle and end; natively they check
 * that resuming gives the uninterrupted run. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/ulp.h"
#include "levels/levels.h"
#include "protocol/train_exec.h"

/* P2 (1.2.0): "train_resume=1" among hello's keys */
static int hello_train_resume(const char *hello)
{
    for (const char *p = hello; p && (p = strstr(p, "train_resume=1")) != NULL; p++)
        if ((p == hello || p[-1] == ' ') && (p[14] == 0 || p[14] == ' ' || p[14] == '\n'))
            return 1;
    return 0;
}

static void one_window(run_ctx *rc, const train_vec *tv, const window_vec *w, const char *suite)
{
    char id[160], err[512];
    char *files[3] = {NULL, NULL, NULL};
    for (size_t k = 0; k < w->n_files; k++)
        files[k] = xasprintf("%s/windows/%s", rc->vs.dir, w->files[k]);
    train_exec x;
    snprintf(id, sizeof id, "%s/window/%u-%u", tv->profile, (unsigned)w->from, (unsigned)w->to);
    int rc_run = train_exec_run_resume(rc->a->iut, tv->profile, w->to, NULL, w->from, (const char *const *)files,
                                       w->n_files, 4 * tv->parameters, rc_timeout_run(rc), &x, err, sizeof err);
    for (size_t k = 0; k < w->n_files; k++)
        free(files[k]);
    if (rc_run != 0) {
        char *why = xasprintf("runner: %s", err);
        results_add(&rc->res, "train", suite, id, V_ERROR, why, 1, 0);
        fprintf(rc->out, "    ERROR %s: %s\n", id, why);
        free(why);
        return;
    }
    char *problem = NULL;
    if (!x.started || !x.r.exited_ok)
        problem = xasprintf("the resumed run did not complete: %s%s%s", x.r.status_text, x.failure ? "; " : "",
                            x.failure ? x.failure : "");
    else if (!x.trace_ok)
        problem = xasprintf("garbage in the trace: %s", x.trace_err);
    else if (x.tr.n < (size_t)(w->to - w->from) + 1)
        problem = xasprintf("the trace ends at step %u of %u", (unsigned)(w->from + (x.tr.n ? x.tr.n - 1 : 0)),
                            (unsigned)w->to);
    size_t pass = 0, bad = 0;
    sbuf why;
    sbuf_init(&why);
    if (problem)
        sbuf_adds(&why, problem);
    for (uint32_t s = w->from; !problem && s <= w->to; s++) {
        const trace_step *ts = &x.tr.s[s - w->from];
        const trace_vec *want = &tv->trace[s];
        const ckpt_file *ck = &x.ck[s];
        int ok = 1;
        if (s > w->from && !f32_same(ts->loss, want->loss)) {
            sbuf_printf(&why, "%sstep %u: loss 0x%08x, expected 0x%08x", why.len ? "; " : "", (unsigned)s,
                        (unsigned)ts->loss, (unsigned)want->loss);
            ok = 0;
        }
        if (s > w->from && (!ck->present || ck->problem || strcmp(ck->sha256, want->digest) != 0)) {
            sbuf_printf(&why, "%sstep %u: the checkpoint %s", why.len ? "; " : "", (unsigned)s,
                        !ck->present ? "is missing"
                        : ck->problem ? ck->problem
                                      : "differs from the golden digest");
            ok = 0;
        }
        if (s == w->from && ts->has_digest && strcmp(ts->digest, want->digest) != 0) {
            sbuf_printf(&why, "%sthe first line's digest is not the state's (step %u): the IUT read another state",
                        why.len ? "; " : "", (unsigned)s);
            ok = 0;
        }
        if (ok)
            pass++;
        else
            bad++;
    }
    results_add(&rc->res, "train", suite, id, why.len ? V_FAIL : V_PASS, why.len ? why.p : NULL, 1, x.r.seconds);
    if (why.len)
        fprintf(rc->out, "    FAIL %s: %s\n", id, why.p);
    else
        fprintf(rc->out, "  %-24s window %u -> %u: %zu steps passed (%.2f s)\n", tv->profile, (unsigned)w->from,
                (unsigned)w->to, pass, x.r.seconds);
    (void)bad;
    sbuf_free(&why);
    free(problem);
    train_exec_free(&x, rc->a->keep_work);
}

void level_windows_run(run_ctx *rc, const train_vec *tv)
{
    const window_set *ws = vectors_windows(&rc->vs, tv->profile);
    char suite[160];
    snprintf(suite, sizeof suite, "train/%s/windows", tv->profile);
    if (!ws) {
        fprintf(rc->out, "  %s: the vector set has no windows for this profile (FORMAT.md §6)\n", tv->profile);
        return;
    }
    if (!hello_train_resume(rc->hello_line)) {
        for (size_t i = 0; i < ws->n; i++) {
            char id[160];
            snprintf(id, sizeof id, "%s/window/%u-%u", tv->profile, (unsigned)ws->w[i].from, (unsigned)ws->w[i].to);
            results_add(&rc->res, "train", suite, id, V_SKIP,
                        "resuming not supported (spec 1.2.0 P7): the IUT's hello does not advertise train_resume=1", 1, 0);
        }
        fprintf(rc->out, "  SKIP %s windows: hello has no train_resume=1 (P2, P7)\n", tv->profile);
        return;
    }
    fprintf(rc->out, "level train: profile %s, %zu windows from golden states\n", tv->profile, ws->n);
    fflush(rc->out);
    for (size_t i = 0; i < ws->n; i++)
        one_window(rc, tv, &ws->w[i], suite);
}
