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

static it_train_state view(it_gptchar_state *s)
{
    it_train_state v = {s->params, s->grads, s->m, s->v, s->clock, s->step, s->last_loss, s->last_lr,
                        s->last_norm, s->bad_index};
    return v;
}

static void unview(const it_train_state *v, it_gptchar_state *s)
{
    s->clock = v->clock;
    s->step = v->step;
    s->last_loss = v->last_loss;
    s->last_lr = v->last_lr;
    s->last_norm = v->last_norm;
    s->bad_index = v->bad_index;
}

void it_gptchar_start(const it_gptchar_recipe *r, it_gptchar_state *s)
{
    it_train_config c = config(r);
    it_train_state v = view(s);
    it_train_start(&it_profile_gptchar, &c, &v);
    unview(&v, s);
}

it_status it_gptchar_step_work(const it_gptchar_recipe *r, it_gptchar_state *s, it_gptchar_work *w)
{
    it_train_config c = config(r);
    it_train_state v = view(s);
    gc_run_work g; /* on the stack: this entry point allocates nothing (4 KiB of batch) */
    g.w = w;
    g.owned = 0;
    it_train_run run = {&it_profile_gptchar, &c, &v, &it_reducer_local, &g};
    it_status st = it_train_step(&run);
    unview(&v, s);
    return st;
}

it_status it_gptchar_step(const it_gptchar_recipe *r, it_gptchar_state *s)
{
    it_train_config c = config(r);
    it_train_state v = view(s);
    it_status st = it_train_step_alone(&it_profile_gptchar, &c, &v);
    unview(&v, s);
    return st;
}

it_status it_gptchar_run(const it_gptchar_recipe *r, const it_run_options *o, it_gptchar_state *s, char *err,
                         size_t cap)
{
    it_train_config c = config(r);
    it_train_state v = view(s);
    it_status st = it_train_run_profile(&it_profile_gptchar, &c, o, NULL, &v, err, cap);
    unview(&v, s);
    return st;
}
