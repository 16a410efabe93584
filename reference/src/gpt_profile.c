/* A recipe's profile row (spec §16.5), made at run time: the run loop
 * (run.c) trains it as it trains gptchar's row, which is the same row at
 * §14's values. */
#include <stdlib.h>
#include <string.h>

#include "isotrain_gpt.h"
#include "isotrain_profile.h"

typedef struct {
    it_gptchar_work *w;
    uint32_t *x, *y; /* the step's batch */
} gpt_run_work;

/* the recipe behind a row this file made (its first member is the row) */
static const it_gpt_profile *of(const it_train_run *run) { return (const it_gpt_profile *)run->profile; }

static void work_free(void *work)
{
    gpt_run_work *g = work;
    if (!g)
        return;
    it_gptchar_work_free(g->w);
    free(g->x);
    free(g->y);
    free(g);
}

static void *work_new(const it_train_run *run)
{
    const it_gpt_recipe *r = of(run)->r;
    gpt_run_work *g = calloc(1, sizeof *g);
    if (!g)
        return NULL;
    g->w = it_gpt_work_new(&r->shape, &r->d, r->shape.batch);
    g->x = malloc(sizeof(uint32_t) * r->d.rows);
    g->y = malloc(sizeof(uint32_t) * r->d.rows);
    if (!g->w || !g->x || !g->y) {
        work_free(g);
        return NULL;
    }
    return g;
}

/* §16.5: the batch of the step, its loss and gradient */
static it_status step_loss(const it_train_run *run, uint32_t step, float *loss)
{
    const it_gpt_recipe *r = of(run)->r;
    gpt_run_work *g = run->work;
    it_gpt_batch(run->cfg->corpus, run->cfg->corpus_len, r->token_of, r->shape.context, r->shape.batch,
                 r->sampling_stream, run->cfg->seed, step, g->x, g->y);
    it_gptchar_work_threads(g->w, run->cfg->threads);
    return it_gptchar_loss_grad_reduced(g->w, run->s->params, g->x, g->y, r->shape.batch, run->s->grads,
                                        run->cfg->threads, loss, run->rd);
}

/* §16.5, P7: the runner's fresh-seed run of a member is min(steps, W + 3):
 * three updates past the warm-up, where a schedule length taken from
 * --steps shows (gptchar's 53 = its W + 3, §14.9), and never the whole of a
 * long recipe's run, which the golden run (or its windows) already covers. */
uint32_t it_gpt_fresh_steps(const it_gpt_recipe *r)
{
    uint64_t past_warmup = (uint64_t)r->warmup + 3u;
    return past_warmup < r->steps ? (uint32_t)past_warmup : r->steps;
}

int it_gpt_profile_make(const it_gpt_recipe *r, it_gpt_profile *out)
{
    memset(out, 0, sizeof *out);
    if (it_gpt_tensors_make(&r->shape, &r->d, &out->tensors))
        return 1;
    out->r = r;
    it_profile *p = &out->p;
    p->name = r->name;
    p->since = "1.3.0";
    p->clause = "16";
    p->tensors = out->tensors.t;
    p->ntensors = out->tensors.n;
    p->nparams = r->d.nparams;
    p->seed = r->seed;
    p->optimizer = IT_OPT_ADAMW;
    p->lr_bits = r->lr_bits;
    p->beta1_bits = r->beta1_bits;
    p->beta2_bits = r->beta2_bits;
    p->eps_bits = r->eps_bits;
    p->wd_bits = r->wd_bits;
    p->clip_max_bits = r->clip_bits;
    p->clip_eps_bits = 0x358637bdu; /* §16.3: the family's ε_c, RN(1e-6) */
    p->schedule = IT_LR_WARMUP_LINEAR;
    p->warmup = r->warmup;
    p->schedule_length = r->schedule_length; /* §16.2: S, never the run's steps */
    p->corpus = r->corpus;
    p->corpus_len = &r->corpus_len;
    p->steps = r->steps;
    p->checkpoint_steps = r->checkpoint_steps;
    p->n_checkpoint_steps = r->n_checkpoint_steps;
    p->fresh_steps = it_gpt_fresh_steps(r);
    p->batch_rows = r->shape.batch;
    p->row_noun = "sequences";
    p->threaded = 1;
    p->work_new = work_new;
    p->work_free = work_free;
    p->loss_grad = step_loss;
    return 0;
}

void it_gpt_profile_free(it_gpt_profile *g)
{
    it_gpt_tensors_free(&g->tensors);
    memset(g, 0, sizeof *g);
}
