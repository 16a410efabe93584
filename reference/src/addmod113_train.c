/* Profile addmod113's step (spec §13.5-§13.7) for the run loop (run.c):
 * the full batch of the training pairs, the evaluation fields of the trace;
 * and the library's addmod113 entry points as views of it. */
#include <stdio.h>
#include <stdlib.h>

#include "isotrain.h"
#include "isotrain_profile.h"
#include "isotrain_reduce.h"
#include "profile_steps.h"

#define INV_NTRAIN_BITS 0x3988daa5u /* RN(1/3831) */
#define INV_NTEST_BITS 0x38eaa21du  /* RN(1/8938) */

/* a run's buffers: the activations of this process's pairs in one piece
 * (isotrain_reduce.h) and the permutation of the run's seed (§13.3) */
typedef struct {
    it_addmod113_work *w;
    uint32_t perm[IT_AM_PAIRS];
} am_run_work;

void *it_addmod113_run_work_new(const it_train_run *run)
{
    am_run_work *a = malloc(sizeof *a);
    size_t lo, hi;
    run->rd->rows(run->rd, IT_AM_NTRAIN, &lo, &hi);
    if (!a || !(a->w = it_addmod113_work_new(hi - lo))) {
        free(a);
        return NULL;
    }
    it_addmod113_permutation(run->cfg->seed, a->perm);
    return a;
}

void it_addmod113_run_work_free(void *work)
{
    am_run_work *a = work;
    if (a)
        it_addmod113_work_free(a->w);
    free(a);
}

/* §13.5: every step the same batch, the training pairs in training order */
it_status it_addmod113_step_loss(const it_train_run *run, uint32_t step, float *loss)
{
    (void)step;
    am_run_work *a = run->work;
    *loss = it_addmod113_loss_grad_reduced(a->w, run->s->params, a->perm, IT_AM_NTRAIN, run->s->grads,
                                           run->cfg->threads, run->rd);
    return IT_OK;
}

/* §13.7: the optional evaluation keys */
void it_addmod113_trace_eval(const it_train_run *run, char *buf, size_t cap)
{
    am_run_work *a = run->work;
    float trl, tel;
    uint32_t trc, tec;
    it_addmod113_eval_work(a->w, run->s->params, a->perm, IT_AM_NTRAIN, it_f32_from_bits(INV_NTRAIN_BITS), &trl,
                           &trc, run->cfg->threads);
    it_addmod113_eval_work(a->w, run->s->params, a->perm + IT_AM_NTRAIN, IT_AM_NTEST,
                           it_f32_from_bits(INV_NTEST_BITS), &tel, &tec, run->cfg->threads);
    snprintf(buf, cap, " train_loss=0x%08x train_correct=%u test_loss=0x%08x test_correct=%u",
             (unsigned)it_f32_bits(trl), (unsigned)trc, (unsigned)it_f32_bits(tel), (unsigned)tec);
}

/* ---- the typed entry points (isotrain.h) ---- */

it_status it_addmod113_run(const it_addmod113_recipe *r, const it_run_options *o, it_addmod113_state *s,
                           char *err, size_t cap)
{
    return it_addmod113_run_reduced(r, o, NULL, s, err, cap);
}

it_status it_addmod113_run_reduced(const it_addmod113_recipe *r, const it_run_options *o, const it_reducer *rd,
                                   it_addmod113_state *s, char *err, size_t cap)
{
    it_train_config c = it_train_config_default(&it_profile_addmod113);
    c.seed = r->seed;
    c.threads = r->threads;
    c.eval = r->eval;
    it_train_state v = {s->params, s->grads, s->m, s->v, s->clock, 0, 0.0f, 0.0f, 0.0f, 0};
    it_status st = it_train_run_profile(&it_profile_addmod113, &c, o, rd, &v, err, cap);
    it_addmod113_permutation(r->seed, s->perm);
    s->clock = v.clock;
    s->step = v.step;
    s->last_loss = v.last_loss;
    s->bad_index = v.bad_index;
    return st;
}
