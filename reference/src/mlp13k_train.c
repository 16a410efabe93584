/* Profile mlp13k's step (spec §11.5-§11.6) for the run loop (run.c), and
 * the library's mlp13k entry points as views of it. */
#include <stdio.h>

#include "isotrain.h"
#include "isotrain_profile.h"
#include "isotrain_reduce.h"
#include "profile_steps.h"

/* §11.5-§11.6: the batch of `step` and its loss and gradient; with the
 * local reducer the kernel set's loop, else every sum through rd */
it_status it_mlp13k_step_loss(const it_train_run *run, uint32_t step, float *loss)
{
    const it_mlp13k_recipe r = {run->cfg->seed, run->cfg->lr, run->cfg->corpus, run->cfg->corpus_len};
    unsigned char xs[IT_MLP13K_BATCH], ys[IT_MLP13K_BATCH];
    it_mlp13k_batch(&r, step, xs, ys);
    *loss = run->rd == &it_reducer_local
                ? it_mlp13k_loss_grad(run->s->params, xs, ys, IT_MLP13K_BATCH, run->s->grads)
                : it_mlp13k_loss_grad_reduced(run->s->params, xs, ys, IT_MLP13K_BATCH, run->s->grads, run->rd);
    return IT_OK;
}

/* ---- the typed entry points (isotrain.h): it_mlp13k_state viewed as an
 * it_train_state ---- */

static it_train_config config(const it_mlp13k_recipe *r)
{
    it_train_config c = it_train_config_default(&it_profile_mlp13k);
    c.seed = r->seed;
    c.lr = r->lr;
    c.corpus = r->corpus;
    c.corpus_len = r->corpus_len;
    return c;
}

static const it_typed_layout LAYOUT = {{
    offsetof(it_mlp13k_state, params), offsetof(it_mlp13k_state, grads), IT_NO_FIELD, IT_NO_FIELD, IT_NO_FIELD,
    offsetof(it_mlp13k_state, step), offsetof(it_mlp13k_state, last_loss), IT_NO_FIELD, IT_NO_FIELD,
    offsetof(it_mlp13k_state, bad_index)}};

void it_mlp13k_start(const it_mlp13k_recipe *r, it_mlp13k_state *s)
{
    it_train_config c = config(r);
    it_typed_start(&it_profile_mlp13k, &LAYOUT, &c, s);
}

it_status it_mlp13k_step(const it_mlp13k_recipe *r, it_mlp13k_state *s)
{
    it_train_config c = config(r);
    return it_typed_step(&it_profile_mlp13k, &LAYOUT, &c, s);
}

/* spec §9.2 */
void it_trace_line(const it_mlp13k_state *s, char *buf, size_t cap)
{
    char digest[65];
    it_params_digest(s->params, IT_MLP13K_NPARAMS, digest);
    if (s->step == 0)
        snprintf(buf, cap, "step=0 digest=%s\n", digest);
    else
        snprintf(buf, cap, "step=%u loss=0x%08x loss_dec=%.9g digest=%s\n", (unsigned)s->step,
                 (unsigned)it_f32_bits(s->last_loss), (double)s->last_loss, digest);
}

it_status it_mlp13k_run(const it_mlp13k_recipe *r, const it_run_options *o, it_mlp13k_state *s, char *err,
                        size_t cap)
{
    return it_mlp13k_run_reduced(r, o, NULL, s, err, cap);
}

it_status it_mlp13k_run_reduced(const it_mlp13k_recipe *r, const it_run_options *o, const it_reducer *rd,
                                it_mlp13k_state *s, char *err, size_t cap)
{
    it_train_config c = config(r);
    return it_typed_run(&it_profile_mlp13k, &LAYOUT, &c, o, rd, s, err, cap);
}
