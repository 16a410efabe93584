/* Training runs, traces and failures (spec §9, §10, §11.6-§11.8). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "isotrain.h"

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
 * parameter after it. */
it_status it_mlp13k_step(const it_mlp13k_recipe *r, it_mlp13k_state *s)
{
    unsigned char xs[IT_MLP13K_BATCH], ys[IT_MLP13K_BATCH];
    it_mlp13k_batch(r, s->step + 1, xs, ys);
    float loss = it_mlp13k_loss_grad(s->params, xs, ys, IT_MLP13K_BATCH, s->grads);
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

/* spec §9.3: checkpoint files are the raw §8.1 bytes, nothing else. */
static it_status write_checkpoint(const it_mlp13k_state *s, const char *dir, char *err, size_t cap)
{
    unsigned char bytes[4 * IT_MLP13K_NPARAMS];
    char path[4096];
    int n = snprintf(path, sizeof path, "%s/step-%06u.bin", dir, (unsigned)s->step);
    if (n < 0 || (size_t)n >= sizeof path)
        return fail(err, cap, IT_ERR_IO, "checkpoint path too long: %s", dir);
    it_store_f32le(s->params, IT_MLP13K_NPARAMS, bytes);
    FILE *f = fopen(path, "wb");
    if (!f)
        return fail(err, cap, IT_ERR_IO, "cannot create %s: %s", path, strerror(errno));
    size_t wrote = fwrite(bytes, 1, sizeof bytes, f);
    int closed = fclose(f);
    if (wrote != sizeof bytes || closed != 0)
        return fail(err, cap, IT_ERR_IO, "cannot write %s: %s", path, strerror(errno));
    return IT_OK;
}

static int wanted(const it_run_options *o, uint32_t step)
{
    for (size_t i = 0; i < o->n_checkpoint_steps; i++)
        if (o->checkpoint_steps[i] == step)
            return 1;
    return 0;
}

static it_status emit(const it_run_options *o, const it_mlp13k_state *s, char *err, size_t cap)
{
    if (o->trace) {
        char line[256];
        it_trace_line(s, line, sizeof line);
        if (fputs(line, o->trace) == EOF)
            return fail(err, cap, IT_ERR_IO, "cannot write trace line for step %u", (unsigned)s->step);
    }
    if (o->checkpoint_dir && wanted(o, s->step))
        return write_checkpoint(s, o->checkpoint_dir, err, cap);
    return IT_OK;
}

it_status it_mlp13k_run(const it_mlp13k_recipe *r, const it_run_options *o,
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
    if (o->trace && fprintf(o->trace, "# isotrain-trace v1 profile=mlp13k steps=%u\n", (unsigned)o->steps) < 0)
        return fail(err, cap, IT_ERR_IO, "cannot write trace header");
    it_status st = emit(o, s, err, cap);
    while (st == IT_OK && s->step < o->steps) {
        st = it_mlp13k_step(r, s);
        if (st == IT_ERR_NONFINITE_LOSS)
            return fail(err, cap, st, "step %u: loss is not finite (bits 0x%08x)", (unsigned)s->step + 1,
                        (unsigned)it_f32_bits(s->last_loss));
        if (st == IT_ERR_NONFINITE_PARAM)
            return fail(err, cap, st, "step %u: parameter %zu is not finite", (unsigned)s->step, s->bad_index);
        st = emit(o, s, err, cap);
    }
    if (st == IT_OK && o->trace && fflush(o->trace) != 0)
        return fail(err, cap, IT_ERR_IO, "cannot flush trace: %s", strerror(errno));
    return st;
}
