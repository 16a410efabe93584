/* Training runs of profile addmod113 (spec §13.6-§13.8): full batch AdamW,
 * the §9 trace with the evaluation fields of §13.7, the §10 checks. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "isotrain.h"
#include "isotrain_reduce.h"

/* spec §13.1 */
static const it_adamw_consts *consts(void)
{
    static it_adamw_consts c;
    c.lr = it_f32_from_bits(0x3a83126fu);              /* RN(1e-3) */
    c.beta1 = it_f32_from_bits(0x3f666666u);           /* RN(0.9) */
    c.beta2 = it_f32_from_bits(0x3f7ae148u);           /* RN(0.98) */
    c.eps = it_f32_from_bits(0x322bcc77u);             /* RN(1e-8) */
    c.decay = it_f32_from_bits(0x3f7fbe77u);           /* 1 - lr*1.0 = RN(1 - RN(1e-3)) */
    c.one_minus_beta1 = it_f32_from_bits(0x3dccccd0u); /* 1 - beta1, exact */
    c.one_minus_beta2 = it_f32_from_bits(0x3ca3d700u); /* 1 - beta2, exact */
    return &c;
}

#define INV_NTRAIN_BITS 0x3988daa5u /* RN(1/3831) */
#define INV_NTEST_BITS 0x38eaa21du  /* RN(1/8938) */

static int is_finite(float f) { return (it_f32_bits(f) & 0x7f800000u) != 0x7f800000u; }

static it_status fail(char *err, size_t cap, it_status st, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, cap, fmt, ap);
    va_end(ap);
    return st;
}

/* spec §13.7: the evaluation steps */
static int eval_step(uint32_t step) { return step == 0 || step == 100 || step == 200 || step == 300; }

static it_status emit(const it_addmod113_recipe *r, const it_run_options *o, it_addmod113_state *s,
                      it_addmod113_work *work, int first, char *err, size_t cap)
{
    if (o->trace) {
        char digest[65], extra[160] = "";
        it_params_digest(s->params, IT_AM_NPARAMS, digest);
        if (r->eval && eval_step(s->step)) {
            float trl, tel;
            uint32_t trc, tec;
            it_addmod113_eval_work(work, s->params, s->perm, IT_AM_NTRAIN, it_f32_from_bits(INV_NTRAIN_BITS), &trl,
                                   &trc, r->threads);
            it_addmod113_eval_work(work, s->params, s->perm + IT_AM_NTRAIN, IT_AM_NTEST,
                                   it_f32_from_bits(INV_NTEST_BITS), &tel, &tec, r->threads);
            snprintf(extra, sizeof extra, " train_loss=0x%08x train_correct=%u test_loss=0x%08x test_correct=%u",
                     (unsigned)it_f32_bits(trl), (unsigned)trc, (unsigned)it_f32_bits(tel), (unsigned)tec);
        }
        int w;
        if (s->step == 0 || first) /* step 0, or the state a resumed run starts from (§8.4) */
            w = fprintf(o->trace, "step=%u digest=%s%s\n", (unsigned)s->step, digest, extra);
        else
            w = fprintf(o->trace, "step=%u loss=0x%08x loss_dec=%.9g digest=%s%s\n", (unsigned)s->step,
                        (unsigned)it_f32_bits(s->last_loss), (double)s->last_loss, digest, extra);
        if (w < 0 || fflush(o->trace) != 0)
            return fail(err, cap, IT_ERR_IO, "cannot write trace line for step %u", (unsigned)s->step);
    }
    return it_run_write_step(o, s->step, IT_AM_NPARAMS, s->params, s->m, s->v, err, cap);
}

static it_status run(const it_addmod113_recipe *r, const it_run_options *o, const it_reducer *rd,
                     it_addmod113_state *s, it_addmod113_work *work, char *err, size_t cap)
{
    it_addmod113_permutation(r->seed, s->perm);
    s->clock.beta1_pow = 1.0f;
    s->clock.beta2_pow = 1.0f;
    s->clock.t = 0;
    s->step = 0;
    s->last_loss = 0.0f;
    if (o->resume_dir) {
        /* spec §8.4: parameters and moments of step k; the running products
         * are k ticks from 1 (§7.2), the permutation a function of the seed */
        it_status rs = it_state_read(o->resume_dir, o->from_step, IT_AM_NPARAMS, s->params, s->m, s->v, err, cap);
        if (rs != IT_OK)
            return rs;
        float bc1, bc2;
        for (uint32_t k = 0; k < o->from_step; k++)
            it_adamw_tick(consts(), &s->clock, &bc1, &bc2);
        s->step = o->from_step;
    } else {
        it_addmod113_init(r->seed, s->params);
        memset(s->m, 0, sizeof s->m); /* moments start at +0 (§7.2) */
        memset(s->v, 0, sizeof s->v);
    }
    if (o->trace && fprintf(o->trace, "# isotrain-trace v1 profile=addmod113 steps=%u\n", (unsigned)o->steps) < 0)
        return fail(err, cap, IT_ERR_IO, "cannot write trace header");
    it_status st = emit(r, o, s, work, 1, err, cap);
    while (st == IT_OK && s->step < o->steps) {
        float loss = it_addmod113_loss_grad_reduced(work, s->params, s->perm, IT_AM_NTRAIN, s->grads, r->threads, rd);
        s->last_loss = loss;
        if (!is_finite(loss))
            return fail(err, cap, IT_ERR_NONFINITE_LOSS, "step %u: loss is not finite (bits 0x%08x)",
                        (unsigned)s->step + 1, (unsigned)it_f32_bits(loss));
        float bc1, bc2;
        it_adamw_tick(consts(), &s->clock, &bc1, &bc2);
        it_tensor_adamw_update(consts(), bc1, bc2, s->params, s->grads, s->m, s->v, IT_AM_NPARAMS, r->threads);
        s->step++;
        for (size_t i = 0; i < IT_AM_NPARAMS; i++)
            if (!is_finite(s->params[i])) {
                s->bad_index = i;
                return fail(err, cap, IT_ERR_NONFINITE_PARAM, "step %u: parameter %zu is not finite",
                            (unsigned)s->step, i);
            }
        st = emit(r, o, s, work, 0, err, cap);
    }
    return st;
}

it_status it_addmod113_run(const it_addmod113_recipe *r, const it_run_options *o, it_addmod113_state *s,
                           char *err, size_t cap)
{
    return it_addmod113_run_reduced(r, o, NULL, s, err, cap);
}

it_status it_addmod113_run_reduced(const it_addmod113_recipe *r, const it_run_options *o, const it_reducer *rd,
                                   it_addmod113_state *s, char *err, size_t cap)
{
    err[0] = '\0';
    it_fpenv_report env;
    if (it_fpenv_probe(&env) != 0)
        return fail(err, cap, IT_ERR_FPENV,
                    "floating-point environment is not IEEE default (ftz=%d daz=%d rounding=%d); "
                    "spec 2.1-2.2 require round-to-nearest-even with subnormals kept",
                    env.ftz, env.daz, env.rounding);
    /* every buffer of every step, allocated once for the run: this
     * process's pairs in one piece (isotrain_reduce.h) */
    if (!rd)
        rd = &it_reducer_local;
    size_t lo, hi;
    rd->rows(rd, IT_AM_NTRAIN, &lo, &hi);
    it_addmod113_work *work = it_addmod113_work_new(hi - lo);
    if (!work)
        return fail(err, cap, IT_ERR_IO, "out of memory for the activations of %u pairs", (unsigned)(hi - lo));
    it_status st = run(r, o, rd, s, work, err, cap);
    it_addmod113_work_free(work);
    return st;
}
