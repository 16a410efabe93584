/* Training runs of profile gptchar (spec §14.7-§14.8): AdamW with the
 * gradient clipped to global norm 1 (§7.3), the learning rate of the
 * schedule (§7.4), weight decay on the matrices only; from step 0 or from a
 * saved state (§8.4). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "isotrain.h"

/* spec §14.1 */
#define LR_MAX_BITS 0x3b449ba6u    /* RN(3e-3) */
#define BETA1_BITS 0x3f666666u     /* RN(0.9) */
#define BETA2_BITS 0x3f733333u     /* RN(0.95) */
#define ADAM_EPS_BITS 0x322bcc77u  /* RN(1e-8) */
#define WD_BITS 0x3dcccccdu        /* RN(0.1) */
#define CLIP_MAX_BITS 0x3f800000u  /* 1 */
#define CLIP_EPS_BITS 0x358637bdu  /* RN(1e-6) */

static it_adamw_consts consts(float lr)
{
    it_adamw_consts c;
    c.lr = lr;
    c.beta1 = it_f32_from_bits(BETA1_BITS);
    c.beta2 = it_f32_from_bits(BETA2_BITS);
    c.eps = it_f32_from_bits(ADAM_EPS_BITS);
    c.decay = 1.0f; /* set per tensor */
    c.one_minus_beta1 = 1.0f - c.beta1; /* exact (Sterbenz) */
    c.one_minus_beta2 = 1.0f - c.beta2;
    return c;
}

/* spec §14.7: weight decay on wte, wpe and the linear weights, none on
 * LayerNorm parameters or biases (a decay factor of 1 is exact) */
static int decayed(const it_tensor_info *ti)
{
    size_t len = strlen(ti->name);
    return ti->cols > 1 && !(len >= 2 && strcmp(ti->name + len - 2, "_b") == 0);
}

static int is_finite(float f) { return (it_f32_bits(f) & 0x7f800000u) != 0x7f800000u; }

static it_status fail(char *err, size_t cap, it_status st, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, cap, fmt, ap);
    va_end(ap);
    return st;
}

/* The trace line and the files of a step (§9.2, §9.3, §8.3); the first line
 * (step 0, or the state a resumed run starts from, §9.4) has no loss. */
static it_status emit(const it_run_options *o, const it_gptchar_state *s, int first, char *err, size_t cap)
{
    if (o->trace) {
        char digest[65];
        it_params_digest(s->params, IT_GC_NPARAMS, digest);
        int w = first ? fprintf(o->trace, "step=%u digest=%s\n", (unsigned)s->step, digest)
                    : fprintf(o->trace, "step=%u loss=0x%08x loss_dec=%.9g digest=%s\n", (unsigned)s->step,
                              (unsigned)it_f32_bits(s->last_loss), (double)s->last_loss, digest);
        if (w < 0 || fflush(o->trace) != 0)
            return fail(err, cap, IT_ERR_IO, "cannot write trace line for step %u", (unsigned)s->step);
    }
    return it_run_write_step(o, s->step, IT_GC_NPARAMS, s->params, s->m, s->v, err, cap);
}

/* spec §14.7: one update from the gradient in s->grads */
static void update(it_gptchar_state *s)
{
    s->last_norm = it_clip_grad_norm(s->grads, IT_GC_NPARAMS, it_f32_from_bits(CLIP_MAX_BITS),
                                     it_f32_from_bits(CLIP_EPS_BITS));
    const float lr = it_lr_schedule(s->step + 1, IT_GC_WARMUP, IT_GC_STEPS, it_f32_from_bits(LR_MAX_BITS));
    s->last_lr = lr;
    it_adamw_consts c = consts(lr);
    const float wd = it_f32_from_bits(WD_BITS);
    const float lr_wd = lr * wd;
    const float decay = 1.0f - lr_wd;
    float bc1, bc2;
    it_adamw_tick(&c, &s->clock, &bc1, &bc2);
    for (size_t t = 0; t < IT_GC_NTENSORS; t++) {
        const it_tensor_info *ti = &it_gptchar_tensors[t];
        c.decay = decayed(ti) ? decay : 1.0f;
        it_adamw_update(&c, bc1, bc2, s->params + ti->offset, s->grads + ti->offset, s->m + ti->offset,
                        s->v + ti->offset, ti->rows * ti->cols);
    }
}

void it_gptchar_start(const it_gptchar_recipe *r, it_gptchar_state *s)
{
    it_gptchar_init(r->seed, s->params);
    memset(s->m, 0, sizeof s->m); /* moments start at +0 (§7.2) */
    memset(s->v, 0, sizeof s->v);
    s->clock.beta1_pow = 1.0f;
    s->clock.beta2_pow = 1.0f;
    s->clock.t = 0;
    s->step = 0;
    s->last_loss = 0.0f;
    s->last_lr = 0.0f;
    s->last_norm = 0.0f;
    s->bad_index = 0;
}

/* spec §14.5-§14.7 with §10's checks: the loss before the update, every
 * parameter after it */
it_status it_gptchar_step_work(const it_gptchar_recipe *r, it_gptchar_state *s, it_gptchar_work *w)
{
    static uint32_t x[IT_GC_ROWS], y[IT_GC_ROWS];
    it_gptchar_batch(r->seed, s->step + 1, x, y);
    float loss;
    it_status st = it_gptchar_loss_grad_work(w, s->params, x, y, IT_GC_SEQS, s->grads, NULL, NULL, &loss);
    if (st != IT_OK)
        return st;
    s->last_loss = loss;
    if (!is_finite(loss))
        return IT_ERR_NONFINITE_LOSS;
    update(s);
    s->step++;
    for (size_t i = 0; i < IT_GC_NPARAMS; i++)
        if (!is_finite(s->params[i])) {
            s->bad_index = i;
            return IT_ERR_NONFINITE_PARAM;
        }
    return IT_OK;
}

it_status it_gptchar_step(const it_gptchar_recipe *r, it_gptchar_state *s)
{
    it_gptchar_work *w = it_gptchar_work_new(IT_GC_SEQS);
    if (!w)
        return IT_ERR_IO;
    it_status st = it_gptchar_step_work(r, s, w);
    it_gptchar_work_free(w);
    return st;
}

static it_status run(const it_gptchar_recipe *r, const it_run_options *o, it_gptchar_state *s, it_gptchar_work *w,
                     char *err, size_t cap)
{
    it_gptchar_start(r, s);
    if (o->resume_dir) {
        /* spec §8.4: the state of step k; the running products are k ticks */
        it_status st = it_state_read(o->resume_dir, o->from_step, IT_GC_NPARAMS, s->params, s->m, s->v, err, cap);
        if (st != IT_OK)
            return st;
        it_adamw_consts c = consts(0.0f);
        float bc1, bc2;
        for (uint32_t k = 0; k < o->from_step; k++)
            it_adamw_tick(&c, &s->clock, &bc1, &bc2);
        s->step = o->from_step;
    }
    if (o->trace && fprintf(o->trace, "# isotrain-trace v1 profile=gptchar steps=%u\n", (unsigned)o->steps) < 0)
        return fail(err, cap, IT_ERR_IO, "cannot write trace header");
    it_status st = emit(o, s, 1, err, cap);
    while (st == IT_OK && s->step < o->steps) {
        st = it_gptchar_step_work(r, s, w);
        if (st == IT_ERR_NONFINITE_LOSS)
            return fail(err, cap, st, "step %u: loss is not finite (bits 0x%08x)", (unsigned)s->step + 1,
                        (unsigned)it_f32_bits(s->last_loss));
        if (st == IT_ERR_NONFINITE_PARAM)
            return fail(err, cap, st, "step %u: parameter %zu is not finite", (unsigned)s->step, s->bad_index);
        if (st != IT_OK)
            return fail(err, cap, st, "step %u: the workspace does not hold a step's batch", (unsigned)s->step + 1);
        st = emit(o, s, 0, err, cap);
    }
    return st;
}

it_status it_gptchar_run(const it_gptchar_recipe *r, const it_run_options *o, it_gptchar_state *s, char *err,
                         size_t cap)
{
    err[0] = '\0';
    it_fpenv_report env;
    if (it_fpenv_probe(&env) != 0)
        return fail(err, cap, IT_ERR_FPENV,
                    "floating-point environment is not IEEE default (ftz=%d daz=%d rounding=%d); "
                    "spec 2.1-2.2 require round-to-nearest-even with subnormals kept",
                    env.ftz, env.daz, env.rounding);
    /* every buffer of every step, allocated once for the run */
    it_gptchar_work *w = it_gptchar_work_new(IT_GC_SEQS);
    if (!w)
        return fail(err, cap, IT_ERR_IO, "out of memory for the activations of %u sequences", (unsigned)IT_GC_SEQS);
    it_status st = run(r, o, s, w, err, cap);
    it_gptchar_work_free(w);
    return st;
}
