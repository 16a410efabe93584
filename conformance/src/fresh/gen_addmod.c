/* gen_addmod.c — fresh cases for the groups of profile addmod113 (spec
 * 1.1.0): sqrt (§3.6), relu (§5.9, §5.10), attention (§5.11, §5.12), adamw
 * (§7.2) and addmod113 (§13.3: the permutation under a fresh seed). */
#include <string.h>

#include "fresh/fresh.h"
#include "isotrain.h"

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
    sbuf b;
    sbuf_init(&b);
    fresh_kv_f32(&b, "x", x, N_ELEM);
    fresh_want_f32(&fresh_add(l, "relu", "relu_forward", "zeros, subnormals, typical", sbuf_take(&b))[0], y, N_ELEM);
    sbuf_init(&b);
    fresh_kv_f32(&b, "x", x, N_ELEM);
    fresh_kv_f32(&b, "dy", dy, N_ELEM);
    fresh_want_f32(&fresh_add(l, "relu", "relu_backward", "zeros (relu'(0) = 0), subnormals, typical",
                              sbuf_take(&b))[0],
                   dx, N_ELEM);
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

static void adamw_case(fresh_list *l, fresh_rng *r, uint32_t t)
{
    float p[N_ELEM], g[N_ELEM], m[N_ELEM], v[N_ELEM], m0[N_ELEM], v0[N_ELEM], p0[N_ELEM];
    const float hyper[5] = {it_f32_from_bits(0x3a83126fu), it_f32_from_bits(0x3f666666u),
                            it_f32_from_bits(0x3f7ae148u), it_f32_from_bits(0x322bcc77u),
                            it_f32_from_bits(0x3f7fbe77u)};
    for (int i = 0; i < N_ELEM; i++) {
        p0[i] = p[i] = fresh_f32(r, FC_TYPICAL);
        g[i] = fresh_f32(r, i < 4 ? FC_TINY : FC_TYPICAL);
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
    value *want = fresh_add(l, "adamw", "adamw", "typical and tiny gradients at a random step", sbuf_take(&b));
    fresh_want_f32(&want[0], p, N_ELEM);
    fresh_want_f32(&want[1], m, N_ELEM);
    fresh_want_f32(&want[2], v, N_ELEM);
}

size_t fresh_gen_addmod(fresh_list *l, const char *group, fresh_rng *r)
{
    size_t before = l->n;
    if (!strcmp(group, "sqrt")) {
        sqrt_case(l, r, "positive, any exponent", FC_WIDE, 1);
        sqrt_case(l, r, "Subnormal inputs (and negative ones: NaN)", FC_SUBNORMAL, 0);
        sqrt_case(l, r, "Typical, either sign", FC_TYPICAL, 0);
    } else if (!strcmp(group, "relu")) {
        relu_cases(l, r);
    } else if (!strcmp(group, "attention")) {
        attention_case(l, r, 1 + fresh_u32(r) % 4, 1 + fresh_u32(r) % 16, 1 + fresh_u32(r) % 4);
        attention_case(l, r, 4, 8, 3);
    } else if (!strcmp(group, "adamw")) {
        adamw_case(l, r, 1 + fresh_u32(r) % 500);
    } else if (!strcmp(group, "addmod113")) {
        static uint32_t perm[IT_AM_PAIRS];
        uint64_t seed = ((uint64_t)fresh_u32(r) << 32) | fresh_u32(r);
        it_addmod113_permutation(seed, perm);
        char *kv = xasprintf("seed=%016llx", (unsigned long long)seed);
        fresh_want_u32(&fresh_add(l, "addmod113", "addmod113_perm", "the permutation under a fresh seed", kv)[0], perm,
                       IT_AM_PAIRS);
    }
    return l->n - before;
}
