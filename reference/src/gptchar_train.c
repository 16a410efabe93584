/* Profile gptchar's step (spec §14.5-§14.6) for the run loop (run.c),
 * whose row (profiles.c) says the rest: AdamW with the gradient clipped to
 * global norm 1 (§7.3), the schedule (§7.4), decay on the matrices (§14.7).
 * And the library's gptchar entry points as views of it. */
#include <stdlib.h>

#include "isotrain.h"
#include "isotrain_profile.h"
#include "isotrain_reduce.h"
#include "profile_steps.h"

/* a run's buffers: the activations of a step and the step's batch (one per
 * run: two runs in one process share nothing) */
typedef struct {
    it_gptchar_work *w;
    int owned; /* w is this run's (not the caller's of it_gptchar_step_work) */
    uint32_t x[IT_GC_ROWS], y[IT_GC_ROWS];
} gc_run_work;

void *it_gptchar_run_work_new(const it_train_run *run)
{
    (void)run;
    gc_run_work *g = malloc(sizeof *g);
    if (!g || !(g->w = it_gptchar_work_new(IT_GC_SEQS))) {
        free(g);
        return NULL;
    }
    g->owned = 1;
    return g;
}

void it_gptchar_run_work_free(void *work)
{
    gc_run_work *g = work;
    if (g && g->owned)
        it_gptchar_work_free(g->w);
    free(g);
}

/* §14.5-§14.6, every sum through the run's reducer (a data-parallel run,
 * spec §15: this process's sequences only) */
it_status it_gptchar_step_loss(const it_train_run *run, uint32_t step, float *loss)
{
    gc_run_work *g = run->work;
    it_gptchar_batch(run->cfg->seed, step, g->x, g->y);
    if (g->owned) /* a caller's workspace keeps the caller's thread count */
        it_gptchar_work_threads(g->w, run->cfg->threads);
    if (run->rd == &it_reducer_local)
        return it_gptchar_loss_grad_work(g->w, run->s->params, g->x, g->y, IT_GC_SEQS, run->s->grads, NULL, NULL,
                                         loss);
    return it_gptchar_loss_grad_reduced(g->w, run->s->params, g->x, g->y, IT_GC_SEQS, run->s->grads,
                                        run->cfg->threads, loss, run->rd);
}

/* ---- the typed entry points (isotrain.h): it_gptchar_state viewed as an
 * it_train_state ---- */

static it_train_config config(const it_gptchar_recipe *r)
{
    it_train_config c = it_train_config_default(&it_profile_gptchar);
    c.seed = r->seed;
    return c;
}

static const it_typed_layout LAYOUT = {{
    offsetof(it_gptchar_state, params), offsetof(it_gptchar_state, grads), offsetof(it_gptchar_state, m),
    offsetof(it_gptchar_state, v), offsetof(it_gptchar_state, clock), offsetof(it_gptchar_state, step),
    offsetof(it_gptchar_state, last_loss), offsetof(it_gptchar_state, last_lr),
    offsetof(it_gptchar_state, last_norm), offsetof(it_gptchar_state, bad_index)}};

void it_gptchar_start(const it_gptchar_recipe *r, it_gptchar_state *s)
{
    it_train_config c = config(r);
    it_typed_start(&it_profile_gptchar, &LAYOUT, &c, s);
}

it_status it_gptchar_step_work(const it_gptchar_recipe *r, it_gptchar_state *s, it_gptchar_work *w)
{
    it_train_config c = config(r);
    gc_run_work g; /* on the stack: this entry point allocates nothing (4 KiB of batch) */
    g.w = w;
    g.owned = 0;
    it_train_run run = {&it_profile_gptchar, &c, NULL, &it_reducer_local, &g};
    return it_typed_step_run(&run, &LAYOUT, s);
}

it_status it_gptchar_step(const it_gptchar_recipe *r, it_gptchar_state *s)
{
    it_train_config c = config(r);
    return it_typed_step(&it_profile_gptchar, &LAYOUT, &c, s);
}

it_status it_gptchar_run(const it_gptchar_recipe *r, const it_run_options *o, it_gptchar_state *s, char *err,
                         size_t cap)
{
    it_train_config c = config(r);
    return it_typed_run(&it_profile_gptchar, &LAYOUT, &c, o, NULL, s, err, cap);
}
