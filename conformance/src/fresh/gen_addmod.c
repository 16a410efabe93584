/* gen_addmod.c — fresh cases for the groups of profile addmod113 (spec
 * 1.1.0): sqrt (§3.6), relu (§5.9, §5.10), attention (§5.11, §5.12), adamw
 * (§7.2) and addmod113 (§13.3: the permutation under a fresh seed). */
#include <string.h>

#include "fresh/fresh.h"
#include "isotrain.h"
#include "isotrain_profile.h" /* the op group named after its profile */

enum { N_ELEM = 16 };

static void sqrt_case(fresh_list *l, fresh_rng *r, const char *what, fresh_class c, int positive)
{
    float x[N_ELEM], y[N_ELEM];
    for (int i = 0; i < N_ELEM; i++) {
        x[i] = fresh_f32(r, c);
        if (positive && x[i] < 0)
            x[i] = -x[i];
        y[i] = it_sqrtf(x[i]);
    }
    sbuf b;
    sbuf_init(&b);
    fresh_kv_f32(&b, "x", x, N_ELEM);
    fresh_want_f32(&fresh_add(l, "sqrt", "sqrt", what, sbuf_take(&b))[0], y, N_ELEM);
}

static void relu_cases(fresh_list *l, fresh_rng *r)
{
    float x[N_ELEM], y[N_ELEM], dy[N_ELEM], dx[N_ELEM];
    for (int i = 0; i < N_ELEM; i++) {
        x[i] = fresh_f32(r, i < 4 ? FC_ZERO : i < 8 ? FC_SUBNORMAL : FC_TYPICAL);
        dy[i] = fresh_f32(r, FC_TYPICAL);
    }
    it_relu_forward(x, N_ELEM, y);
    it_relu_backward(x, dy, N_ELEM, dx);
    fresh_add_pointwise(l, "relu", "zeros, subnormals, typical", "zeros (relu'(0) = 0), subnormals, typical", x, y,
                        dy, dx, N_ELEM);
}

/* heads x width over t keys, values typical */
static void attention_case(fresh_list *l, fresh_rng *r, size_t heads, size_t width, size_t t)
{
    float q[64], k[512], v[512], w[32], z[64], dz[64], dq[64], dk[512], dv[512];
    const float c = it_f32_from_bits(0x3e3504f3u);
    for (size_t i = 0; i < heads * width; i++) {
        q[i] = fresh_f32(r, FC_TYPICAL);
        dz[i] = fresh_f32(r, FC_TYPICAL);
    }
    for (size_t i = 0; i < t * heads * width; i++) {
        k[i] = fresh_f32(r, FC_TYPICAL);
        v[i] = fresh_f32(r, FC_TYPICAL);
    }
    it_attention_forward(q, k, v, t, heads, width, c, w, z);
    it_attention_backward(q, k, v, w, dz, t, heads, width, c, dq, dk, dv);
    for (int back = 0; back < 2; back++) {
        sbuf b;
        sbuf_init(&b);
        sbuf_printf(&b, "heads=%zu width=%zu", heads, width);
        fresh_kv_f32(&b, "c", &c, 1);
        fresh_kv_f32(&b, "q", q, heads * width);
        fresh_kv_f32(&b, "k", k, t * heads * width);
        fresh_kv_f32(&b, "v", v, t * heads * width);
        if (back) {
            fresh_kv_f32(&b, "w", w, heads * t);
            fresh_kv_f32(&b, "dz", dz, heads * width);
        }
        value *want = fresh_add(l, "attention", back ? "attention_backward" : "attention_forward",
                                back ? "typical, backward" : "typical", sbuf_take(&b));
        if (back) {
            fresh_want_f32(&want[0], dq, heads * width);
            fresh_want_f32(&want[1], dk, t * heads * width);
            fresh_want_f32(&want[2], dv, t * heads * width);
        } else {
            fresh_want_f32(&want[0], w, heads * t);
            fresh_want_f32(&want[1], z, heads * width);
        }
    }
}

/* kind 0: typical and tiny gradients at a random step; 1: gradients near
 * sqrt(eps) (1e-5 to 1e-3), where v_hat is of eps's order and where eps
 * sits in the denominator shows; 2: the first steps, whose bias corrections
 * are far from 1; 3: late steps (the running products near their limits);
 * 4: large gradients and parameters (decay against the step). */
static void adamw_case(fresh_list *l, fresh_rng *r, int kind)
{
    static const char *const what[5] = {
        "Typical and tiny gradients at a random step", "Edge: gradients near sqrt(eps), v_hat near eps",
        "Edge: the first steps (bias corrections far from 1)", "late steps (1000 to 5000)",
        "large gradients and parameters"};
    uint32_t t = kind == 2 ? 1 + fresh_below(r, 3) : kind == 3 ? 1000 + fresh_below(r, 4001) : 1 + fresh_below(r, 500);
    float p[N_ELEM], g[N_ELEM], m[N_ELEM], v[N_ELEM], m0[N_ELEM], v0[N_ELEM], p0[N_ELEM];
    const float hyper[5] = {it_f32_from_bits(0x3a83126fu), it_f32_from_bits(0x3f666666u),
                            it_f32_from_bits(0x3f7ae148u), it_f32_from_bits(0x322bcc77u),
                            it_f32_from_bits(0x3f7fbe77u)};
    for (int i = 0; i < N_ELEM; i++) {
        p0[i] = p[i] = fresh_f32(r, FC_TYPICAL) * (kind == 4 ? 64.0f : 1.0f);
        if (kind == 1) {
            /* |g| = 2^e * (1 + f), e in -17..-10 */
            uint32_t e = 127 - 17 + fresh_below(r, 8);
            g[i] = it_f32_from_bits((fresh_u32(r) & 0x80000000u) | e << 23 | (fresh_u32(r) & 0x7fffffu));
        } else
            g[i] = fresh_f32(r, kind == 0 && i < 4 ? FC_TINY : FC_TYPICAL) * (kind == 4 ? 1024.0f : 1.0f);
        m0[i] = m[i] = g[i] * 0.5f;
        v0[i] = v[i] = g[i] * g[i];
    }
    it_adamw_consts c = {hyper[0], hyper[1], hyper[2], hyper[3], hyper[4], 1.0f - hyper[1], 1.0f - hyper[2]};
    it_adamw_clock k = {1.0f, 1.0f, 0};
    float bc1 = 0, bc2 = 0;
    for (uint32_t s = 0; s < t; s++)
        it_adamw_tick(&c, &k, &bc1, &bc2);
    it_adamw_update(&c, bc1, bc2, p, g, m, v, N_ELEM);
    sbuf b;
    sbuf_init(&b);
    fresh_kv_f32(&b, "p", p0, N_ELEM);
    fresh_kv_f32(&b, "g", g, N_ELEM);
    fresh_kv_f32(&b, "m", m0, N_ELEM);
    fresh_kv_f32(&b, "v", v0, N_ELEM);
    sbuf_printf(&b, " t=%u", (unsigned)t);
    fresh_kv_f32(&b, "hyper", hyper, 5);
    value *want = fresh_add(l, "adamw", "adamw", what[kind], sbuf_take(&b));
    fresh_want_f32(&want[0], p, N_ELEM);
    fresh_want_f32(&want[1], m, N_ELEM);
    fresh_want_f32(&want[2], v, N_ELEM);
}

/* §13.5 on a few pairs with random parameters: the whole model (embedding,
 * attention, MLP, unembedding, loss) under inputs nobody published. */
static void am_loss_grad_case(fresh_list *l, fresh_rng *r)
{
    static float params[IT_AM_NPARAMS], grads[IT_AM_NPARAMS];
    for (size_t i = 0; i < IT_AM_NPARAMS; i++)
        params[i] = it_u32_to_symmetric(fresh_u32(r)) * 0.125f;
    uint32_t pairs[8];
    size_t n = 1 + fresh_below(r, 8);
    for (size_t i = 0; i < n; i++)
        pairs[i] = fresh_below(r, IT_AM_PAIRS);
    float loss = it_addmod113_loss_grad(params, pairs, n, grads, 1);
    sbuf b;
    sbuf_init(&b);
    fresh_kv_f32(&b, "params", params, IT_AM_NPARAMS);
    fresh_kv_u32(&b, "pairs", pairs, n);
    value *want = fresh_add(l, it_profile_addmod113.name, "addmod113_loss_grad", "random parameters and pairs", sbuf_take(&b));
    fresh_want_f32(&want[0], &loss, 1);
    fresh_want_f32(&want[1], grads, IT_AM_NPARAMS);
}

size_t fresh_gen_addmod(fresh_list *l, const char *group, fresh_rng *r)
{
    size_t before = l->n;
    /* FRESH_MIN_PER_GROUP or more per group, the classes in turn */
    if (!strcmp(group, "sqrt")) {
        for (int rep = 0; rep < 4; rep++) {
            sqrt_case(l, r, "positive, any exponent", FC_WIDE, 1);
            sqrt_case(l, r, "Subnormal inputs (and negative ones: NaN)", FC_SUBNORMAL, 0);
            sqrt_case(l, r, "Typical, either sign", FC_TYPICAL, 0);
            sqrt_case(l, r, "SpecialValue: signed zeros, inf, NaN", rep % 2 ? FC_SPECIAL : FC_ZERO, 0);
        }
    } else if (!strcmp(group, "relu")) {
        for (int rep = 0; rep < FRESH_MIN_PER_GROUP / 2; rep++)
            relu_cases(l, r);
    } else if (!strcmp(group, "attention")) {
        for (int rep = 0; rep < FRESH_MIN_PER_GROUP / 4; rep++) {
            attention_case(l, r, 1 + fresh_u32(r) % 4, 1 + fresh_u32(r) % 16, 1 + fresh_u32(r) % 4);
            attention_case(l, r, 4, 8, 3);
        }
    } else if (!strcmp(group, "adamw")) {
        for (int k = 0; k < FRESH_MIN_PER_GROUP; k++)
            adamw_case(l, r, k % 5);
    } else if (!strcmp(group, it_profile_addmod113.name)) {
        static uint32_t perm[IT_AM_PAIRS];
        for (int k = 0; k < FRESH_MIN_PER_GROUP - 4; k++) {
            uint64_t seed = ((uint64_t)fresh_u32(r) << 32) | fresh_u32(r);
            it_addmod113_permutation(seed, perm);
            char *kv = xasprintf("seed=%016llx", (unsigned long long)seed);
            fresh_want_u32(&fresh_add(l, it_profile_addmod113.name, "addmod113_perm", "the permutation under a fresh seed", kv)[0],
                           perm, IT_AM_PAIRS);
        }
        for (int k = 0; k < 4; k++)
            am_loss_grad_case(l, r);
    }
    return l->n - before;
}
