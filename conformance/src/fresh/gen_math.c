/* gen_math.c — fresh cases for exp, log, tanh (spec §3.2-§3.4) and sweep
 * (P5.1): per case one class of input, as the groups' flags name them. */
#include <string.h>

#include "fresh/fresh.h"
#include "isotrain.h"

enum { N_ELEM = 16 };

typedef float (*f32_fn)(float);

static float tanh1(float x)
{
    float y;
    it_tanh_forward(&x, 1, &y);
    return y;
}

/* One case of N_ELEM inputs drawn by `draw`. */
static void elementwise(fresh_list *l, const char *group, const char *what, f32_fn fn, fresh_rng *r,
                        float (*draw)(fresh_rng *, int))
{
    float x[N_ELEM], y[N_ELEM];
    for (int i = 0; i < N_ELEM; i++) {
        x[i] = draw(r, i);
        y[i] = fn(x[i]);
    }
    sbuf b;
    sbuf_init(&b);
    fresh_kv_f32(&b, "x", x, N_ELEM);
    value *w = fresh_add(l, group, group, what, sbuf_take(&b));
    fresh_want_f32(&w[0], y, N_ELEM);
}

static float d_typical(fresh_rng *r, int i) { (void)i; return fresh_f32(r, FC_TYPICAL) * 8.0f; }
static float d_wide(fresh_rng *r, int i) { (void)i; return fresh_f32(r, FC_WIDE); }
static float d_subnormal(fresh_rng *r, int i) { (void)i; return fresh_f32(r, FC_SUBNORMAL); }
static float d_special(fresh_rng *r, int i) { return i < 8 ? fresh_f32(r, FC_ZERO) : fresh_f32(r, FC_SPECIAL); }
/* exp: overflow edge (ln FLT_MAX ~ 0x42b17217), the normal/subnormal edge
 * (~ -87.34, 0xc2aeac50) and the underflow-to-zero edge (~ -103.97, 0xc2cff1b5). */
static float d_exp_edges(fresh_rng *r, int i)
{
    static const uint32_t c[3] = {0x42b17217u, 0xc2aeac50u, 0xc2cff1b5u};
    return fresh_near(r, c[i % 3], 64);
}
/* log: around 1 (cancellation), near FLT_MAX, the smallest normal */
static float d_log_edges(fresh_rng *r, int i)
{
    static const uint32_t c[3] = {0x3f800000u, 0x7f7fffc0u, 0x00800000u};
    return fresh_near(r, c[i % 3], 48);
}
static float d_log_pos(fresh_rng *r, int i) { (void)i; float x = fresh_f32(r, FC_WIDE); return x < 0 ? -x : x; }
/* tanh: where it reaches 1 (~9.01, 0x41102cb4) and the small-argument edge */
static float d_tanh_edges(fresh_rng *r, int i)
{
    static const uint32_t c[4] = {0x41102cb4u, 0xc1102cb4u, 0x39800000u, 0x3f0c9f54u};
    return fresh_near(r, c[i % 4], 64);
}

/* P5.1: SHA-256 of the little-endian results, NaN replaced by 0x7fc00000. */
static void sweep_digest(f32_fn fn, uint32_t lo, uint32_t count, char hex[65])
{
    it_sha256_ctx c;
    it_sha256_init(&c);
    for (uint32_t i = 0; i < count; i++) {
        float y = fn(it_f32_from_bits(lo + i));
        uint32_t b = it_f32_bits(y);
        if ((b & 0x7f800000u) == 0x7f800000u && (b & 0x7fffffu))
            b = 0x7fc00000u;
        unsigned char le[4] = {(unsigned char)b, (unsigned char)(b >> 8), (unsigned char)(b >> 16),
                               (unsigned char)(b >> 24)};
        it_sha256_update(&c, le, 4);
    }
    unsigned char d[32];
    it_sha256_final(&c, d);
    it_hex(d, 32, hex);
}

/* Where a sweep may start: inside the inputs whose result is not a
 * saturated constant, so that every one of the 2^16 can show a misrounding.
 * exp: |x| < 104 (0x42d00000), past which it is +inf or +0 for every x; a
 * start over all 2^32 patterns lands there 2 times in 3. log: +0 up to the
 * largest finite (x < 0 is NaN for every x). Measured: glibc's logf differs
 * from spec §3.3 in 22,298 of the 32,640 blocks of 2^16 positive inputs, so
 * the 8 log sweeps of a run miss it with probability 0.32^8 ~ 1e-4 (a start
 * over all patterns missed it 1 run in 25: make check-mutants-fresh). */
static uint32_t sweep_start(fresh_rng *r, f32_fn fn, uint32_t count)
{
    const uint32_t u = fresh_u32(r);
    if (fn == it_expf)
        return (u & 0x80000000u) | (u & 0x7fffffffu) % (0x42d00000u - count);
    return u % (0x7f800000u - count);
}

static void sweep_case(fresh_list *l, fresh_rng *r, const char *fn_name, f32_fn fn)
{
    enum { COUNT = 1 << 16 };
    const uint32_t lo = sweep_start(r, fn, COUNT);
    char hex[65];
    sweep_digest(fn, lo, COUNT, hex);
    char *kv = xasprintf("fn=%s lo=%08x count=%d", fn_name, (unsigned)lo, COUNT);
    value *w = fresh_add(l, "sweep", "sweep",
                         fn == it_expf ? "exp over 2^16 consecutive inputs from a random start where |x| < 104"
                                       : "log over 2^16 consecutive positive inputs from a random start",
                         kv);
    fresh_want_sha256(&w[0], hex);
}

/* The elementwise groups: each class of input with its draw, in turn. */
static const struct {
    const char *group;
    f32_fn fn;
    struct {
        const char *what;
        float (*draw)(fresh_rng *, int);
    } cls[5]; /* a NULL `what` ends the list */
} ELEMENTWISE[] = {
    {"exp", it_expf,
     {{"Typical", d_typical},
      {"Overflow/Underflow/Subnormal edges", d_exp_edges},
      {"Subnormal inputs", d_subnormal},
      {"any finite exponent", d_wide},
      {"SpecialValue: signed zeros, inf, NaN", d_special}}},
    {"log", it_logf,
     {{"positive, any exponent", d_log_pos},
      {"Edge: near 1, FLT_MAX, the smallest normal", d_log_edges},
      {"Subnormal inputs (and negative ones: NaN)", d_subnormal},
      {"SpecialValue: signed zeros, inf, NaN", d_special}}},
    {"tanh", tanh1,
     {{"Typical", d_typical},
      {"Edge: saturation and small arguments", d_tanh_edges},
      {"Subnormal inputs", d_subnormal},
      {"any finite exponent", d_wide},
      {"SpecialValue: signed zeros, inf, NaN", d_special}}},
};

size_t fresh_gen_math(fresh_list *l, const char *group, fresh_rng *r)
{
    size_t before = l->n;
    /* FRESH_MIN_PER_GROUP or more, every class in turn */
    for (int rep = 0; rep < 4; rep++) {
        for (size_t g = 0; g < sizeof ELEMENTWISE / sizeof ELEMENTWISE[0]; g++)
            for (size_t c = 0; !strcmp(group, ELEMENTWISE[g].group) && c < 5 && ELEMENTWISE[g].cls[c].what; c++)
                elementwise(l, group, ELEMENTWISE[g].cls[c].what, ELEMENTWISE[g].fn, r, ELEMENTWISE[g].cls[c].draw);
        for (int k = 0; !strcmp(group, "sweep") && k < 2; k++) {
            sweep_case(l, r, "exp", it_expf);
            sweep_case(l, r, "log", it_logf);
        }
    }
    return l->n - before;
}
