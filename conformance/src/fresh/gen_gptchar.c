/* gen_gptchar.c — fresh cases for the groups of profile gptchar (spec
 * 1.2.0): residual (§5.13), layernorm (§5.14, §5.15), gelu (§5.16, §5.17),
 * causal_attention (§5.18, §5.19), tied (§5.20), clip (§7.3), schedule
 * (§7.4) and gptchar (§14.5 at drawn steps, §14.6 on drawn parameters and
 * tokens). At least 16 cases per group, over the classes its flags name. */
#include <string.h>

#include "fresh/fresh.h"
#include "isotrain.h"
#include "isotrain_profile.h" /* the op group named after its profile */

enum { N_CASES = 16, N_ELEM = 16 };

/* the classes a case of index i draws its elements from, round-robin */
static fresh_class class_of(size_t i)
{
    static const fresh_class cls[6] = {FC_TYPICAL, FC_WIDE, FC_SUBNORMAL, FC_ZERO, FC_SPECIAL, FC_TINY};
    return cls[i % 6];
}
static const char *class_name(size_t i)
{
    static const char *const names[6] = {"typical", "any exponent", "subnormal", "signed zeros", "inf and NaN",
                                         "tiny"};
    return names[i % 6];
}

static void fill(fresh_rng *r, float *x, size_t n, size_t cls)
{
    for (size_t i = 0; i < n; i++)
        x[i] = fresh_f32(r, i % 3 ? FC_TYPICAL : class_of(cls)); /* each case mixes its class with typical values */
}

static void residual_cases(fresh_list *l, fresh_rng *r)
{
    for (size_t c = 0; c < N_CASES; c++) {
        float x[N_ELEM], y[N_ELEM], z[N_ELEM];
        fill(r, x, N_ELEM, c);
        fill(r, y, N_ELEM, c + 1);
        it_residual_add(x, y, N_ELEM, z);
        sbuf b;
        sbuf_init(&b);
        fresh_kv_f32(&b, "x", x, N_ELEM);
        fresh_kv_f32(&b, "y", y, N_ELEM);
        fresh_want_f32(&fresh_add(l, "residual", "residual_add", class_name(c), sbuf_take(&b))[0], z, N_ELEM);
    }
}

static void layernorm_cases(fresh_list *l, fresh_rng *r)
{
    const float eps = it_f32_from_bits(0x3727c5acu);
    for (size_t c = 0; c < N_CASES / 2; c++) {
        size_t n = 4 + fresh_below(r, 61), rows = 1 + fresh_below(r, 3);
        float x[3 * 64], w[64], bb[64], y[3 * 64], mean[3], rstd[3], xh[64], dy[3 * 64], dw[64], db[64], dw0[64],
            db0[64], dx[3 * 64], zero[64] = {0}, ys[64], rs;
        /* even cases: a large mean against a small spread (the one-pass variance's weak spot) */
        float offset = c % 2 ? 0.0f : fresh_f32(r, FC_TYPICAL) * 256.0f;
        for (size_t i = 0; i < rows * n; i++)
            x[i] = offset + fresh_f32(r, c % 4 == 3 ? FC_TINY : FC_TYPICAL);
        for (size_t i = 0; i < n; i++) {
            w[i] = fresh_f32(r, FC_TYPICAL);
            bb[i] = fresh_f32(r, FC_TYPICAL);
            dw0[i] = dw[i] = fresh_f32(r, FC_TYPICAL);
            db0[i] = db[i] = fresh_f32(r, FC_TYPICAL);
        }
        for (size_t i = 0; i < rows * n; i++)
            dy[i] = fresh_f32(r, FC_TYPICAL);
        for (size_t q = 0; q < rows; q++) {
            it_layernorm_forward(x + q * n, w, zero, n, eps, ys, xh, NULL, &rs); /* x-hat and r of the row */
            it_layernorm_backward(xh, rs, w, dy + q * n, n, dw, db, dx + q * n);
            it_layernorm_forward(x + q * n, w, bb, n, eps, y + q * n, xh, &mean[q], &rstd[q]);
        }
        const char *what = c % 2 ? "rows of typical values" : "rows with a large mean";
        sbuf b;
        sbuf_init(&b);
        sbuf_printf(&b, "n=%zu", n);
        fresh_kv_f32(&b, "x", x, rows * n);
        fresh_kv_f32(&b, "w", w, n);
        fresh_kv_f32(&b, "b", bb, n);
        fresh_kv_f32(&b, "eps", &eps, 1);
        value *want = fresh_add(l, "layernorm", "layernorm_forward", what, sbuf_take(&b));
        fresh_want_f32(&want[0], y, rows * n);
        fresh_want_f32(&want[1], mean, rows);
        fresh_want_f32(&want[2], rstd, rows);
        sbuf_init(&b);
        sbuf_printf(&b, "n=%zu", n);
        fresh_kv_f32(&b, "x", x, rows * n);
        fresh_kv_f32(&b, "w", w, n);
        fresh_kv_f32(&b, "eps", &eps, 1);
        fresh_kv_f32(&b, "dy", dy, rows * n);
        fresh_kv_f32(&b, "dw", dw0, n);
        fresh_kv_f32(&b, "db", db0, n);
        want = fresh_add(l, "layernorm", "layernorm_backward", what, sbuf_take(&b));
        fresh_want_f32(&want[0], dw, n);
        fresh_want_f32(&want[1], db, n);
        fresh_want_f32(&want[2], dx, rows * n);
    }
}

static void gelu_cases(fresh_list *l, fresh_rng *r)
{
    for (size_t c = 0; c < N_CASES / 2; c++) {
        float x[N_ELEM], dy[N_ELEM], y[N_ELEM], dx[N_ELEM];
        fill(r, x, N_ELEM, c);
        for (size_t i = 0; i < N_ELEM; i++)
            dy[i] = fresh_f32(r, FC_TYPICAL);
        it_gelu_forward(x, N_ELEM, y);
        it_gelu_backward(x, dy, N_ELEM, dx);
        fresh_add_pointwise(l, "gelu", class_name(c), class_name(c), x, y, dy, dx, N_ELEM);
    }
}

static void causal_cases(fresh_list *l, fresh_rng *r)
{
    for (size_t c = 0; c < N_CASES / 2; c++) {
        size_t heads = 1 + fresh_below(r, 4), width = 1 + fresh_below(r, 8), t = 1 + fresh_below(r, 12);
        if (c == 0)
            t = 1; /* a context of one position: weight 1 */
        const size_t D = heads * width;
        const float cs = it_f32_from_bits(c % 2 ? 0x3e800000u : 0x3e3504f3u);
        float q[12 * 32], k[12 * 32], v[12 * 32], dz[12 * 32], w[12 * 4 * 12], z[12 * 32], dq[12 * 32], dk[12 * 32],
            dv[12 * 32];
        for (size_t i = 0; i < t * D; i++) {
            q[i] = fresh_f32(r, FC_TYPICAL) * (c % 4 == 2 ? 8.0f : 1.0f); /* large scores: weights underflow */
            k[i] = fresh_f32(r, FC_TYPICAL);
            v[i] = fresh_f32(r, FC_TYPICAL);
            dz[i] = fresh_f32(r, FC_TYPICAL);
        }
        it_causal_attention_forward(q, k, v, t, heads, width, cs, w, z);
        it_causal_attention_backward(q, k, v, w, dz, t, heads, width, cs, dq, dk, dv);
        const char *what = c == 0 ? "one position" : c % 4 == 2 ? "large scores (masked rows, weights underflow)"
                                                                : "typical, masked rows";
        for (int back = 0; back < 2; back++) {
            sbuf b;
            sbuf_init(&b);
            sbuf_printf(&b, "heads=%zu width=%zu", heads, width);
            fresh_kv_f32(&b, "c", &cs, 1);
            fresh_kv_f32(&b, "q", q, t * D);
            fresh_kv_f32(&b, "k", k, t * D);
            fresh_kv_f32(&b, "v", v, t * D);
            if (back) {
                fresh_kv_f32(&b, "w", w, t * heads * t);
                fresh_kv_f32(&b, "dz", dz, t * D);
            }
            value *want = fresh_add(l, "causal_attention", back ? "causal_attention_backward" : "causal_attention_forward",
                                    what, sbuf_take(&b));
            if (back) {
                fresh_want_f32(&want[0], dq, t * D);
                fresh_want_f32(&want[1], dk, t * D);
                fresh_want_f32(&want[2], dv, t * D);
            } else {
                fresh_want_f32(&want[0], w, t * heads * t);
                fresh_want_f32(&want[1], z, t * D);
            }
        }
    }
}

static void tied_cases(fresh_list *l, fresh_rng *r)
{
    for (size_t c = 0; c < N_CASES; c++) {
        size_t m = 1 + fresh_below(r, 8), vocab = 1 + fresh_below(r, 6), dim = 1 + fresh_below(r, 6);
        float f[8 * 6], dl[8 * 6], dx[8 * 6], de[6 * 6];
        uint32_t tok[8];
        fill(r, f, m * dim, c);
        for (size_t i = 0; i < m * vocab; i++)
            dl[i] = fresh_f32(r, FC_TYPICAL);
        for (size_t i = 0; i < m * dim; i++)
            dx[i] = fresh_f32(r, c % 2 ? FC_TYPICAL : FC_TINY);
        for (size_t i = 0; i < m; i++)
            tok[i] = fresh_below(r, (uint32_t)vocab);
        it_tied_embedding_grad(f, dl, tok, dx, m, vocab, dim, de);
        sbuf b;
        sbuf_init(&b);
        sbuf_printf(&b, "dim=%zu", dim);
        fresh_kv_f32(&b, "f", f, m * dim);
        fresh_kv_f32(&b, "dlogits", dl, m * vocab);
        sbuf_adds(&b, " tokens=");
        for (size_t i = 0; i < m; i++)
            sbuf_printf(&b, "%s%u", i ? "," : "", (unsigned)tok[i]);
        fresh_kv_f32(&b, "dx", dx, m * dim);
        fresh_want_f32(&fresh_add(l, "tied", "tied_embedding_grad", class_name(c), sbuf_take(&b))[0], de, vocab * dim);
    }
}

static void clip_cases(fresh_list *l, fresh_rng *r)
{
    const float eps = it_f32_from_bits(0x358637bdu);
    for (size_t c = 0; c < N_CASES; c++) {
        size_t n = 1 + fresh_below(r, 32);
        float g[32], g0[32];
        /* scales around the bound: some clipped, some not */
        float scale = it_f32_from_bits(0x3c800000u + (fresh_below(r, 8) << 23)); /* 2^-6 .. 2^1 */
        for (size_t i = 0; i < n; i++)
            g0[i] = g[i] = c % 6 == 4 ? fresh_f32(r, class_of(c)) : fresh_f32(r, class_of(c)) * scale;
        const float mx = 1.0f;
        float norm = it_clip_grad_norm(g, n, mx, eps);
        sbuf b;
        sbuf_init(&b);
        fresh_kv_f32(&b, "g", g0, n);
        fresh_kv_f32(&b, "max_norm", &mx, 1);
        fresh_kv_f32(&b, "eps", &eps, 1);
        value *want = fresh_add(l, "clip", "clip_grad_norm", class_name(c), sbuf_take(&b));
        fresh_want_f32(&want[0], g, n);
        fresh_want_f32(&want[1], &norm, 1);
    }
}

static void schedule_cases(fresh_list *l, fresh_rng *r)
{
    for (size_t c = 0; c < N_CASES; c++) {
        uint32_t total = 1 + fresh_below(r, c % 4 ? 1000 : (1u << 24) - 1), warmup = 1 + fresh_below(r, total),
                 step = c % 3 == 0 ? warmup : 1 + fresh_below(r, total); /* the peak, or anywhere */
        float lr_max = fresh_f32(r, c % 2 ? FC_TYPICAL : FC_WIDE);
        if (lr_max < 0)
            lr_max = -lr_max;
        float lr = it_lr_schedule(step, warmup, total, lr_max);
        sbuf b;
        sbuf_init(&b);
        sbuf_printf(&b, "step=%u warmup=%u total=%u", (unsigned)step, (unsigned)warmup, (unsigned)total);
        fresh_kv_f32(&b, "lr_max", &lr_max, 1);
        fresh_want_f32(&fresh_add(l, "schedule", "lr_schedule", c % 3 == 0 ? "the peak step" : "a drawn step",
                                  sbuf_take(&b))[0],
                       &lr, 1);
    }
}

static void gptchar_cases(fresh_list *l, fresh_rng *r)
{
    static uint32_t x[IT_GC_ROWS], y[IT_GC_ROWS];
    for (size_t c = 0; c < 12; c++) {
        uint32_t step = 1 + fresh_below(r, 0xfffffffeu);
        it_gptchar_batch(IT_GC_SEED, step, x, y);
        char *kv = xasprintf("step=%u", (unsigned)step);
        value *want = fresh_add(l, it_profile_gptchar.name, "gptchar_batch", "a drawn step", kv);
        fresh_want_u32(&want[0], x, IT_GC_ROWS);
        fresh_want_u32(&want[1], y, IT_GC_ROWS);
        want[0].type = want[1].type = VT_INTS;
    }
    static float params[IT_GC_NPARAMS], grads[IT_GC_NPARAMS];
    for (size_t c = 0; c < 4; c++) {
        /* the initial parameters of a drawn seed, one sequence of drawn tokens */
        uint64_t seed = ((uint64_t)fresh_u32(r) << 32) | fresh_u32(r);
        it_gptchar_init(seed, params);
        for (size_t i = 0; i < IT_GC_CTX; i++) {
            x[i] = fresh_below(r, IT_GC_VOCAB);
            y[i] = fresh_below(r, IT_GC_VOCAB);
        }
        float loss = it_gptchar_loss_grad(params, x, y, 1, grads);
        sbuf b;
        sbuf_init(&b);
        fresh_kv_f32(&b, "params", params, IT_GC_NPARAMS);
        fresh_kv_dec(&b, "x", x, IT_GC_CTX);
        fresh_kv_dec(&b, "y", y, IT_GC_CTX);
        value *want = fresh_add(l, it_profile_gptchar.name, "gptchar_loss_grad", "one sequence, parameters of a drawn seed",
                                sbuf_take(&b));
        fresh_want_f32(&want[0], &loss, 1);
        fresh_want_f32(&want[1], grads, IT_GC_NPARAMS);
    }
}

/* The groups of profile gptchar and their generators; NULL: the group
 * named after the profile (its row in reference/src/profiles.c). */
static const struct {
    const char *group;
    void (*cases)(fresh_list *l, fresh_rng *r);
} GROUPS[] = {
    {"residual", residual_cases}, {"layernorm", layernorm_cases}, {"gelu", gelu_cases},
    {"causal_attention", causal_cases}, {"tied", tied_cases}, {"clip", clip_cases},
    {"schedule", schedule_cases}, {NULL, gptchar_cases},
};

size_t fresh_gen_gptchar(fresh_list *l, const char *group, fresh_rng *r)
{
    size_t before = l->n;
    for (size_t i = 0; i < sizeof GROUPS / sizeof GROUPS[0]; i++)
        if (!strcmp(group, GROUPS[i].group ? GROUPS[i].group : it_profile_gptchar.name))
            GROUPS[i].cases(l, r);
    return l->n - before;
}
