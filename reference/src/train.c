/* Training runs, traces and failures (spec §9, §10, §11.6-§11.8). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "isotrain.h"
#include "isotrain_reduce.h"

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

void it_mlp13k_start(const it_mlp13k_recipe *r, it_mlp13k_state *s)
{
    it_mlp13k_init(r, s->params);
    s->step = 0;
    s->last_loss = 0.0f;
    s->bad_index = 0;
}

/* spec §11.6-§11.7, with §10's checks: the loss before the update, every
 * parameter after it. rd: where the step's sums run (isotrain_reduce.h);
 * NULL: here, with the kernel set's own loop. */
static it_status step(const it_mlp13k_recipe *r, it_mlp13k_state *s, const it_reducer *rd)
{
    unsigned char xs[IT_MLP13K_BATCH], ys[IT_MLP13K_BATCH];
    it_mlp13k_batch(r, s->step + 1, xs, ys);
    float loss = rd ? it_mlp13k_loss_grad_reduced(s->params, xs, ys, IT_MLP13K_BATCH, s->grads, rd)
                    : it_mlp13k_loss_grad(s->params, xs, ys, IT_MLP13K_BATCH, s->grads);
    s->last_loss = loss;
    if (!is_finite(loss))
        return IT_ERR_NONFINITE_LOSS;
    it_sgd_update(s->params, s->grads, IT_MLP13K_NPARAMS, r->lr);
    s->step++;
    for (size_t i = 0; i < IT_MLP13K_NPARAMS; i++)
        if (!is_finite(s->params[i])) {
            s->bad_index = i;
            return IT_ERR_NONFINITE_PARAM;
        }
    return IT_OK;
}

it_status it_mlp13k_step(const it_mlp13k_recipe *r, it_mlp13k_state *s)
{
    return step(r, s, NULL);
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

static it_status fail(char *err, size_t cap, it_status st, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, cap, fmt, ap);
    va_end(ap);
    return st;
}

/* The trace line and the files of a step (§9.2, §9.3, §8.3). The first
 * line of a resumed run is its state's digest alone, like step 0's. */
static it_status emit(const it_run_options *o, const it_mlp13k_state *s, int first, char *err, size_t cap)
{
    if (o->trace) {
        char line[256];
        if (first && s->step > 0) { /* a digest line without a loss */
            char digest[65];
            it_params_digest(s->params, IT_MLP13K_NPARAMS, digest);
            snprintf(line, sizeof line, "step=%u digest=%s\n", (unsigned)s->step, digest);
        } else
            it_trace_line(s, line, sizeof line);
        if (fputs(line, o->trace) == EOF)
            return fail(err, cap, IT_ERR_IO, "cannot write trace line for step %u", (unsigned)s->step);
    }
    return it_run_write_step(o, s->step, IT_MLP13K_NPARAMS, s->params, NULL, NULL, err, cap);
}

it_status it_mlp13k_run(const it_mlp13k_recipe *r, const it_run_options *o,
                        it_mlp13k_state *s, char *err, size_t cap)
{
    return it_mlp13k_run_reduced(r, o, NULL, s, err, cap);
}

it_status it_mlp13k_run_reduced(const it_mlp13k_recipe *r, const it_run_options *o, const it_reducer *rd,
                                it_mlp13k_state *s, char *err, size_t cap)
{
    err[0] = '\0';
    it_fpenv_report env;
    if (it_fpenv_probe(&env) != 0)
        return fail(err, cap, IT_ERR_FPENV,
                    "floating-point environment is not IEEE default (ftz=%d daz=%d rounding=%d); "
                    "spec 2.1-2.2 require round-to-nearest-even with subnormals kept",
                    env.ftz, env.daz, env.rounding);
    /* §11.5 draws offsets in [0, len-1) with a 32-bit multiplier */
    if (r->corpus_len < 2 || r->corpus_len - 1 > 0xffffffffu)
        return fail(err, cap, IT_ERR_ARG, "corpus of %zu bytes: needs 2 to 2^32 bytes", r->corpus_len);
    it_mlp13k_start(r, s);
    if (o->resume_dir) { /* spec §8.4: SGD's whole state is the parameters */
        it_status rs = it_state_read(o->resume_dir, o->from_step, IT_MLP13K_NPARAMS, s->params, NULL, NULL, err, cap);
        if (rs != IT_OK)
            return rs;
        s->step = o->from_step;
    }
    if (o->trace && fprintf(o->trace, "# isotrain-trace v1 profile=mlp13k steps=%u\n", (unsigned)o->steps) < 0)
        return fail(err, cap, IT_ERR_IO, "cannot write trace header");
    it_status st = emit(o, s, 1, err, cap);
    while (st == IT_OK && s->step < o->steps) {
        st = step(r, s, rd);
        if (st == IT_ERR_NONFINITE_LOSS)
            return fail(err, cap, st, "step %u: loss is not finite (bits 0x%08x)", (unsigned)s->step + 1,
                        (unsigned)it_f32_bits(s->last_loss));
        if (st == IT_ERR_NONFINITE_PARAM)
            return fail(err, cap, st, "step %u: parameter %zu is not finite", (unsigned)s->step, s->bad_index);
        st = emit(o, s, 0, err, cap);
    }
    if (st == IT_OK && o->trace && fflush(o->trace) != 0)
        return fail(err, cap, IT_ERR_IO, "cannot flush trace: %s", strerror(errno));
    return st;
}
