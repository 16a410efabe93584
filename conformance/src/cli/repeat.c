/* repeat.c — `isotrain-conform repeat`: the cheap check of the design brief
 * ("run the same seed twice and compare step by step"). Trains N times with
 * every step checkpointed and says whether all runs are bit-identical, by the
 * loss bits of the traces and the runner's own SHA-256 of every checkpoint
 * file (spec/iut-protocol.md P7). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "isotrain.h"
#include "protocol/iut_keeper.h"
#include "protocol/iut_process.h"
#include "protocol/iut_target.h"
#include "protocol/train_exec.h"
#include "core/util.h"

/* Why a run cannot be compared, or NULL. */
static char *run_problem(const train_exec *x)
{
    if (!x->started)
        return xasprintf("could not start: %s", x->r.status_text);
    if (!x->r.exited_ok)
        return xasprintf("%s%s%s", x->r.status_text, x->failure ? "; " : "", x->failure ? x->failure : "");
    if (!x->trace_exists)
        return xstrdup("no trace file was written");
    if (!x->trace_ok)
        return xasprintf("%s: %s", x->trace_read ? "garbage in the trace" : "the trace cannot be read", x->trace_err);
    if (x->tr.n != (size_t)x->steps + 1)
        return xasprintf("the trace ends at step %zu of %u", x->tr.n ? x->tr.n - 1 : 0, (unsigned)x->steps);
    for (uint32_t s = 0; s <= x->steps; s++)
        if (!x->ck[s].present)
            return xasprintf("checkpoint step-%06u.bin is missing", (unsigned)s);
        else if (x->ck[s].problem)
            return xasprintf("checkpoint %s", x->ck[s].problem);
    return NULL;
}

/* 1 if run r differs from run 1, said at its first differing step. */
static int differs(const train_exec *x, size_t r, uint32_t steps)
{
    for (uint32_t s = 0; s <= steps; s++) {
        const trace_step *p = &x[0].tr.s[s], *q = &x[r].tr.s[s];
        int loss_diff = p->has_loss && p->loss != q->loss;
        int file_diff = strcmp(x[0].ck[s].sha256, x[r].ck[s].sha256) != 0;
        if (!loss_diff && !file_diff)
            continue;
        printf("repeat: NOT identical: run %zu differs from run 1 first at step %u (%s)\n", r + 1, (unsigned)s,
               loss_diff && file_diff ? "loss bits and checkpoint" : loss_diff ? "loss bits" : "checkpoint bytes");
        if (loss_diff)
            printf("  loss: run 1 %08x, run %zu %08x\n", (unsigned)p->loss, r + 1, (unsigned)q->loss);
        printf("  checkpoint sha256: run 1 %s, run %zu %s\n", x[0].ck[s].sha256, r + 1, x[r].ck[s].sha256);
        return 1;
    }
    return 0;
}

/* Runs 2..N against run 1; 0 all identical, 1 not. */
static int compare_runs(const train_exec *x, size_t runs, long steps)
{
    for (size_t r = 1; r < runs; r++)
        if (differs(x, r, (uint32_t)steps))
            return 1;
    printf("repeat: all %zu runs are bit-identical at every step 0..%ld (loss bits and the runner's SHA-256 of every checkpoint file)\n",
           runs, steps);
    return 0;
}

/* The N runs into x; 0, 1 if one could not be run (x freed then), 2 if
 * one failed (said). */
static int train_all(const conform_args *a, long steps, train_exec *x, size_t runs)
{
    /* any model: a checkpoint is capped where the IUT's file size limit is */
    uint64_t ck_cap = IUT_FILE_SIZE_LIMIT;
    double timeout = a->timeout_run * a->slowdown;
    int bad = 0;
    for (size_t r = 0; r < runs; r++) {
        char err[512];
        const train_request q = {
            .what = {.profile = a->profile}, .steps = (uint32_t)steps, .ck_size = ck_cap, .timeout = timeout};
        if (train_exec_run(a->iut, &q, &x[r], err, sizeof err) != 0) {
            fprintf(stderr, "isotrain-conform repeat: %s\n", err);
            for (size_t k = 0; k < r; k++)
                train_exec_free(&x[k], 0);
            return 1;
        }
        char *why = run_problem(&x[r]);
        printf("  run %zu: %s, %zu trace steps, %.2f s%s%s\n", r + 1, x[r].r.status_text, x[r].tr.n, x[r].r.seconds,
               why ? ": FAILED: " : "", why ? why : "");
        bad |= why != NULL;
        free(why);
        fflush(stdout);
    }
    return bad ? 2 : 0;
}

/* Design brief: "runs one command twice" (N times here), P7 runs, the
 * runner's own hashes. */
int repeat_command(const conform_args *a)
{
    long steps = a->steps;
    if (steps < 0) {
        if (strcmp(a->profile, "mlp13k") != 0) {
            fprintf(stderr, "isotrain-conform repeat: --steps is required for profile %s\n", a->profile);
            return 2;
        }
        steps = IT_MLP13K_STEPS;
    }
    /* the argv form: every run executes the file hashed here (iut_target.h) */
    iut_target t;
    int bound = 0;
    if (a->n_iut_argv) {
        char terr[512];
        if (iut_target_open(&t, (char *const *)a->iut_argv, a->n_iut_argv, terr, sizeof terr) != 0) {
            fprintf(stderr, "isotrain-conform repeat: %s\n", terr);
            return 2;
        }
        iut_target_register(&t);
        bound = 1;
    }
    size_t runs = (size_t)a->runs;
    train_exec *x = xcalloc(runs, sizeof *x);
    printf("repeat: %zu runs of '%s' train --profile %s --steps %ld --checkpoint-steps all\n", runs, a->iut, a->profile,
           steps);
    int ran = train_all(a, steps, x, runs), rc = 1;
    if (ran == 1) {
        free(x);
        if (bound)
            iut_target_free(&t);
        return 1;
    }
    if (ran == 2)
        printf("repeat: not comparable: a run failed (see above)\n");
    else
        rc = compare_runs(x, runs, steps);
    for (size_t r = 0; r < runs; r++) {
        if (a->keep_work)
            printf("  work directory of run %zu kept: %s\n", r + 1, x[r].dir);
        train_exec_free(&x[r], a->keep_work);
    }
    free(x);
    if (bound) {
        if (iut_target_recheck(&t) != 0) { /* bit-identical runs of what was hashed, or no answer */
            printf("repeat: %s\n", t.changed);
            rc = 1;
        }
        iut_target_free(&t);
    }
    return rc;
}
