/* The one run loop of every profile (spec §9 traces, §10 failures, §8.3-§8.4
 * state and resume, §7 updates): what a profile row (isotrain_profile.h)
 * does not say itself is done here, the same way for every row. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "isotrain.h"
#include "isotrain_profile.h"

const char *it_status_name(it_status s)
{
    switch (s) {
    case IT_OK: return "ok";
    case IT_ERR_NONFINITE_LOSS: return "nonfinite-loss";
    case IT_ERR_NONFINITE_PARAM: return "nonfinite-param";
    case IT_ERR_FPENV: return "fpenv-flush";
    case IT_ERR_IO: return "io-error";
    case IT_ERR_ARG: return "bad-argument";
    }
    return "unknown";
}

static int is_finite(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u); /* inline: this runs on every parameter of every step */
    return (u & 0x7f800000u) != 0x7f800000u;
}

it_train_config it_train_config_default(const it_profile *p)
{
    it_train_config c;
    c.seed = p->seed;
    c.lr = it_f32_from_bits(p->lr_bits);
    c.corpus = p->corpus;
    c.corpus_len = p->corpus_len ? *p->corpus_len : 0;
    c.threads = 1;
    c.eval = p->n_eval_steps > 0;
    return c;
}

it_train_state *it_train_state_new(const it_profile *p)
{
    it_train_state *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    size_t arrays = p->optimizer == IT_OPT_ADAMW ? 4 : 2;
    float *a = calloc(arrays * p->nparams, sizeof *a);
    if (!a) {
        free(s);
        return NULL;
    }
    s->params = a;
    s->grads = a + p->nparams;
    s->m = arrays == 4 ? a + 2 * p->nparams : NULL;
    s->v = arrays == 4 ? a + 3 * p->nparams : NULL;
    return s;
}

void it_train_state_free(it_train_state *s)
{
    if (s)
        free(s->params);
    free(s);
}

/* §11.4, §13.4, §14.4 by the tensors' init columns; §7.2: moments +0 */
void it_train_start(const it_profile *p, const it_train_config *cfg, it_train_state *s)
{
    it_tensors_init(p->tensors, p->ntensors, cfg->seed, s->params);
    if (s->m)
        memset(s->m, 0, p->nparams * sizeof *s->m);
    if (s->v)
        memset(s->v, 0, p->nparams * sizeof *s->v);
    s->clock.beta1_pow = 1.0f;
    s->clock.beta2_pow = 1.0f;
    s->clock.t = 0;
    s->step = 0;
    s->last_loss = 0.0f;
    s->last_lr = 0.0f;
    s->last_norm = 0.0f;
    s->bad_index = 0;
}

/* §7.2 and the profile's §N.1 constants; decay = 1 - lr*wd, one rounding */
static it_adamw_consts adamw_consts(const it_profile *p, float lr)
{
    it_adamw_consts c;
    c.lr = lr;
    c.beta1 = it_f32_from_bits(p->beta1_bits);
    c.beta2 = it_f32_from_bits(p->beta2_bits);
    c.eps = it_f32_from_bits(p->eps_bits);
    c.decay = 1.0f - lr * it_f32_from_bits(p->wd_bits);
    c.one_minus_beta1 = 1.0f - c.beta1; /* exact (Sterbenz) */
    c.one_minus_beta2 = 1.0f - c.beta2;
    return c;
}

/* §7.3 clipping and §7.4's learning rate of the coming step, when the row
 * has them */
static float step_lr(const it_train_run *run)
{
    const it_profile *p = run->profile;
    it_train_state *s = run->s;
    if (p->clip_max_bits)
        s->last_norm = it_clip_grad_norm(s->grads, p->nparams, it_f32_from_bits(p->clip_max_bits),
                                         it_f32_from_bits(p->clip_eps_bits));
    float lr = run->cfg->lr;
    if (p->schedule == IT_LR_WARMUP_LINEAR)
        lr = it_lr_schedule(s->step + 1, p->warmup, p->schedule_length ? p->schedule_length : p->steps, lr);
    s->last_lr = lr;
    return lr;
}

/* §7.2 over runs of tensors with the same decay column (elementwise: the
 * split changes nothing); a threaded profile through the kernel set's
 * AdamW, the others through the definition (adamw.c): the same bits. */
static void adamw_update(const it_train_run *run, float lr)
{
    const it_profile *p = run->profile;
    it_train_state *s = run->s;
    it_adamw_consts c = adamw_consts(p, lr);
    const float decay = c.decay;
    float bc1, bc2;
    it_adamw_tick(&c, &s->clock, &bc1, &bc2);
    for (size_t t = 0; t < p->ntensors;) {
        size_t u = t + 1;
        while (u < p->ntensors && p->tensors[u].decay == p->tensors[t].decay)
            u++;
        const size_t off = p->tensors[t].offset, end = u < p->ntensors ? p->tensors[u].offset : p->nparams;
        c.decay = p->tensors[t].decay ? decay : 1.0f; /* a factor of 1 is exact: no decay */
        if (p->threaded)
            it_tensor_adamw_update(&c, bc1, bc2, s->params + off, s->grads + off, s->m + off, s->v + off,
                                   end - off, run->cfg->threads);
        else
            it_adamw_update(&c, bc1, bc2, s->params + off, s->grads + off, s->m + off, s->v + off, end - off);
        t = u;
    }
}

/* spec §N.6-§N.7 with §10's checks: the loss before the update, every
 * parameter after it */
it_status it_train_step(const it_train_run *run)
{
    const it_profile *p = run->profile;
    it_train_state *s = run->s;
    float loss;
    it_status st = p->loss_grad(run, s->step + 1, &loss);
    if (st != IT_OK)
        return st;
    s->last_loss = loss;
    if (!is_finite(loss))
        return IT_ERR_NONFINITE_LOSS;
    float lr = step_lr(run);
    if (p->optimizer == IT_OPT_SGD)
        it_sgd_update(s->params, s->grads, p->nparams, lr);
    else
        adamw_update(run, lr);
    s->step++;
    for (size_t i = 0; i < p->nparams; i++)
        if (!is_finite(s->params[i])) {
            s->bad_index = i;
            return IT_ERR_NONFINITE_PARAM;
        }
    return IT_OK;
}

static int eval_step(const it_profile *p, uint32_t step)
{
    for (size_t i = 0; i < p->n_eval_steps; i++)
        if (p->eval_steps[i] == step)
            return 1;
    return 0;
}

/* The trace line and the files of a step (§9.2, §9.3, §8.3). The first
 * line (step 0, or the state a resumed run starts from, §9.4) has no loss. */
static it_status emit(const it_train_run *run, const it_run_options *o, int first, char *err, size_t cap)
{
    const it_profile *p = run->profile;
    const it_train_state *s = run->s;
    if (o->trace) {
        char digest[65], extra[200] = "";
        it_params_digest(s->params, p->nparams, digest);
        if (run->cfg->eval && p->trace_extra && eval_step(p, s->step))
            p->trace_extra(run, extra, sizeof extra);
        int w = first ? fprintf(o->trace, "step=%u digest=%s%s\n", (unsigned)s->step, digest, extra)
                      : fprintf(o->trace, "step=%u loss=0x%08x loss_dec=%.9g digest=%s%s\n", (unsigned)s->step,
                                (unsigned)it_f32_bits(s->last_loss), (double)s->last_loss, digest, extra);
        if (w < 0 || fflush(o->trace) != 0)
            return (it_status)it_errf(err, cap, IT_ERR_IO, "cannot write trace line for step %u: %s", (unsigned)s->step,
                        strerror(errno));
    }
    return it_run_write_step(o, s->step, p->nparams, s->params, s->m, s->v, err, cap);
}

/* spec §8.4: the state of step k from its files; AdamW's running products
 * are k ticks from 1 (§7.2), everything else a function of the seed */
static it_status resume(const it_profile *p, const it_run_options *o, it_train_state *s, char *err, size_t cap)
{
    it_status st = it_state_read(o->resume_dir, o->from_step, p->nparams, s->params, s->m, s->v, err, cap);
    if (st != IT_OK)
        return st;
    if (p->optimizer == IT_OPT_ADAMW) {
        it_adamw_consts c = adamw_consts(p, 0.0f);
        float bc1, bc2;
        for (uint32_t k = 0; k < o->from_step; k++)
            it_adamw_tick(&c, &s->clock, &bc1, &bc2);
    }
    s->step = o->from_step;
    return IT_OK;
}

static it_status step_failure(const it_train_state *s, it_status st, char *err, size_t cap)
{
    if (st == IT_ERR_NONFINITE_LOSS)
        return (it_status)it_errf(err, cap, st, "step %u: loss is not finite (bits 0x%08x)", (unsigned)s->step + 1,
                    (unsigned)it_f32_bits(s->last_loss));
    if (st == IT_ERR_NONFINITE_PARAM)
        return (it_status)it_errf(err, cap, st, "step %u: parameter %zu is not finite", (unsigned)s->step, s->bad_index);
    return (it_status)it_errf(err, cap, st, "step %u: the workspace does not hold a step's batch", (unsigned)s->step + 1);
}

static it_status run_steps(const it_train_run *run, const it_run_options *o, char *err, size_t cap)
{
    const it_profile *p = run->profile;
    it_train_state *s = run->s;
    it_train_start(p, run->cfg, s);
    if (o->resume_dir) {
        it_status rs = resume(p, o, s, err, cap);
        if (rs != IT_OK)
            return rs;
    }
    if (o->trace && fprintf(o->trace, "# isotrain-trace v1 profile=%s steps=%u\n", p->name, (unsigned)o->steps) < 0)
        return (it_status)it_errf(err, cap, IT_ERR_IO, "cannot write trace header");
    it_status st = emit(run, o, 1, err, cap);
    while (st == IT_OK && s->step < o->steps) {
        st = it_train_step(run);
        if (st != IT_OK)
            return step_failure(s, st, err, cap);
        st = emit(run, o, 0, err, cap);
    }
    return st;
}

it_status it_fpenv_check(char *err, size_t cap)
{
    it_fpenv_report env;
    if (it_fpenv_probe(&env) != 0)
        return (it_status)it_errf(err, cap, IT_ERR_FPENV,
                    "floating-point environment is not IEEE default (ftz=%d daz=%d rounding=%d); "
                    "spec 2.1-2.2 require round-to-nearest-even with subnormals kept",
                    env.ftz, env.daz, env.rounding);
    return IT_OK;
}

it_status it_train_run_profile(const it_profile *p, const it_train_config *cfg, const it_run_options *o,
                               const it_reducer *rd, it_train_state *s, char *err, size_t cap)
{
    err[0] = '\0';
    if (it_fpenv_check(err, cap) != IT_OK)
        return IT_ERR_FPENV;
    /* §11.5 draws offsets in [0, len-1) with a 32-bit multiplier */
    if (cfg->corpus && (cfg->corpus_len < 2 || cfg->corpus_len - 1 > 0xffffffffu))
        return (it_status)it_errf(err, cap, IT_ERR_ARG, "corpus of %zu bytes: needs 2 to 2^32 bytes", cfg->corpus_len);
    it_train_run run = {p, cfg, s, rd ? rd : &it_reducer_local, NULL};
    /* every buffer of every step, allocated once for the run */
    if (p->work_new && !(run.work = p->work_new(&run)))
        return (it_status)it_errf(err, cap, IT_ERR_IO, "out of memory for the activations of a step's %s", p->row_noun);
    it_status st = run_steps(&run, o, err, cap);
    if (p->work_free)
        p->work_free(run.work);
    return st;
}

it_status it_train_step_alone(const it_profile *p, const it_train_config *cfg, it_train_state *s)
{
    it_train_run run = {p, cfg, s, &it_reducer_local, NULL};
    if (p->work_new && !(run.work = p->work_new(&run)))
        return IT_ERR_IO;
    it_status st = it_train_step(&run);
    if (p->work_free)
        p->work_free(run.work);
    return st;
}

int it_train_failure_step(it_status st, const it_train_state *s, uint32_t *step)
{
    switch (st) {
    case IT_ERR_NONFINITE_LOSS: *step = s->step + 1; return 1;
    case IT_ERR_NONFINITE_PARAM: *step = s->step; return 1;
    case IT_ERR_FPENV: *step = 0; return 1;
    default: return 0; /* I/O and usage errors are not run failures */
    }
}

/* §11.4, §13.4, §14.4: the init column of each tensor; a uniform tensor
 * draws from the stream of its checkpoint index (§6.2-§6.3) */
void it_tensors_init(const it_tensor_info *tensors, size_t ntensors, uint64_t seed, float *params)
{
    for (uint32_t k = 0; k < ntensors; k++) {
        const it_tensor_info *ti = &tensors[k];
        const float c = it_f32_from_bits(ti->init_bits);
        float *t = params + ti->offset;
        for (size_t i = 0; i < ti->rows * ti->cols; i++)
            t[i] = ti->init == IT_INIT_UNIFORM ? it_u32_to_symmetric(it_rng_u32(seed, k, i)) * c : c;
    }
}
