/* simd_body.h: the body of every SIMD kernel set, written once with GCC's
 * generic vector types and compiled once per instruction set by a small file
 * (x86_sse2.c, x86_avx.c, x86_avx2.c, x86_avx512.c, arm_neon.c) that defines
 *
 *   IT_K_SET     the it_kernel_set object to define (e.g. it_kernels_avx2)
 *   IT_K_NAME    its name ("avx2")
 *   IT_VBYTES    the width of one vector register in bytes (16, 32, 64)
 *   IT_MR, IT_NV the matrix kernel's tile: IT_MR rows of IT_NV vectors kept
 *                in registers (about 3/4 of the register file)
 *   IT_VSQRT(v)  the set's IEEE square root of one vector (sqrtps, fsqrt)
 *
 * and is built with that ISA's -m flag (never -mfma: ci/check-no-fma.sh).
 *
 * The rules that make these bits equal to the portable set's (spec §4.1):
 * - lanes always hold *different* outputs (positions, output features,
 *   elements); one sum is never split across lanes, and each lane adds its
 *   terms one at a time in ascending index, from +0 or from the partial sum
 *   already stored (which is the same sequential sum, continued);
 * - a product and the sum it joins are two operations (-ffp-contract=off;
 *   generic vector `*` and `+` are never fused under it);
 * - exp and log are correctly rounded: binary64 lanes, and every lane whose
 *   binary64 value lies near a binary32 rounding boundary goes to the exact
 *   scalar it_expf / it_logf (proven over all 2^32 inputs per set by
 *   prove_math).
 */
#include <stdint.h>
#include <string.h>

#include "isotrain.h"
#include "kernels/kernels.h"

#define VW ((size_t)(IT_VBYTES / 4)) /* binary32 lanes */
#define DW ((size_t)(IT_VBYTES / 8)) /* binary64 lanes */

typedef float vf __attribute__((vector_size(IT_VBYTES)));
typedef double vd __attribute__((vector_size(IT_VBYTES)));
typedef int64_t vl __attribute__((vector_size(IT_VBYTES)));
typedef int32_t vi __attribute__((vector_size(IT_VBYTES)));
typedef float vfh __attribute__((vector_size(IT_VBYTES / 2)));

static inline vf ldf(const float *p)
{
    vf v;
    memcpy(&v, p, sizeof v);
    return v;
}

static inline void stf(float *p, vf v) { memcpy(p, &v, sizeof v); }

static inline vd bcd(double s) { return (vd){0} + s; } /* s != -0 */

/* every lane = s, bit for bit (a -0 stays -0) */
static inline vf splat(float s)
{
    vf v;
    for (size_t l = 0; l < VW; l++)
        v[l] = s;
    return v;
}

static inline int any64(vl m)
{
    vl z = {0};
    return memcmp(&m, &z, sizeof m) != 0;
}

/* ---- exp (spec §3.2): cr_exp.c's fast path in binary64 lanes ------------ */

/* Same constants as cr_exp.c (prove_math --emit-tables). */
#define LN2_1 0x1.62e42fefa3ap-1
#define LN2_2 -0x1.0ca86c3898cp-49
#define INV_LN2 0x1.71547652b82fep+0
#define EXP_C2 0x1p-1
#define EXP_C3 0x1.5555555555555p-3
#define EXP_C4 0x1.5555555555555p-5
#define EXP_C5 0x1.1111111111111p-7
#define EXP_C6 0x1.6c16c16c16c17p-10
#define EXP_C7 0x1.a01a01a01a01ap-13
#define EXP_C8 0x1.a01a01a01a01ap-16
#define EXP_C9 0x1.71de3a556c734p-19
#define EXP_C10 0x1.27e4fb7789f5cp-22
#define EXP_C11 0x1.ae64567f544e4p-26
/* Inputs outside (EXP_LO, EXP_HI] (and NaN) have special results, and
 * results below 2^-126 round on the subnormal grid: both go to the scalar
 * function. */
#define EXP_LO -0x1.9fe36ap+6 /* x <= this: +0 */
#define EXP_HI 0x1.62e42ep+6  /* x > this: +inf */

static inline __attribute__((always_inline)) vd exp_lanes(vd xd, vl *special)
{
    vl sp = ~((xd > bcd(EXP_LO)) & (xd <= bcd(EXP_HI)));
    xd = (vd)((vl)xd & ~sp); /* a harmless 0 in special lanes */
    vd t = xd * INV_LN2;
    vd kb = t + 0x1.8p+52; /* k in the low bits: round to nearest integer */
    vd kd = kb - 0x1.8p+52;
    vd r = (xd - kd * LN2_1) - kd * LN2_2;
    vd r2 = r * r;
    vd r4 = r2 * r2;
    vd p = ((1.0 + r) + r2 * (EXP_C2 + r * EXP_C3)) +
           r4 * (((EXP_C4 + r * EXP_C5) + r2 * (EXP_C6 + r * EXP_C7)) +
                 r4 * ((EXP_C8 + r * EXP_C9) + r2 * (EXP_C10 + r * EXP_C11)));
    vd scale = (vd)(((vl)kb + 1023) << 52); /* 2^k, -150 <= k <= 128: a normal double */
    vd yd = p * scale;                      /* exact scaling */
    *special = sp | (yd < bcd(0x1p-126));
    return yd;
}

/* ---- log (spec §3.3): cr_log.c's fast path in binary64 lanes ------------ */

#define LN2_1L 0x1.62e42fefa3ap-1
#define LN2_2L -0x1.0ca86c3898cp-49
#define SQRT2 0x1.6a09e667f3bcdp+0
#define LOG_C1 0x1.5555555555555p-2
#define LOG_C2 0x1.999999999999ap-3
#define LOG_C3 0x1.2492492492492p-3
#define LOG_C4 0x1.c71c71c71c71cp-4
#define LOG_C5 0x1.745d1745d1746p-4
#define LOG_C6 0x1.3b13b13b13b14p-4
#define LOG_C7 0x1.1111111111111p-4
#define LOG_C8 0x1.e1e1e1e1e1e1ep-5

static inline __attribute__((always_inline)) vd log_lanes(vd xd, vl *special)
{
    /* x <= 0, NaN, +inf and x = 1 (exact +0) go to the scalar path */
    vl sp = ~((xd > bcd(0x1p-1000)) & (xd < bcd(0x1p+128)) & (xd != bcd(1.0)));
    xd = (vd)(((vl)xd & ~sp) | ((vl)bcd(2.0) & sp));
    vl db = (vl)xd;
    vl eb = db >> 52; /* biased exponent, x > 0 */
    vd m = (vd)((db & 0x000fffffffffffffLL) | 0x3ff0000000000000LL);
    vl adj = m > bcd(SQRT2); /* m in [sqrt2, 2): use m/2 and e+1 */
    m = (vd)(((vl)(m * 0.5) & adj) | ((vl)m & ~adj));
    /* e as a double without an int64 conversion: 2^52 + eb, minus 2^52 + 1023 */
    vd ed = (vd)(eb | 0x4330000000000000LL) - (0x1p52 + 1023.0);
    ed = ed + (vd)((vl)bcd(1.0) & adj);
    vd s = (m - 1.0) / (m + 1.0);
    vd s2 = s * s;
    vd s4 = s2 * s2;
    vd s8 = s4 * s4;
    vd q = ((1.0 + s2 * LOG_C1) + s4 * (LOG_C2 + s2 * LOG_C3)) +
           s8 * (((LOG_C4 + s2 * LOG_C5) + s4 * (LOG_C6 + s2 * LOG_C7)) + s8 * LOG_C8);
    vd lm = (s + s) * q;
    *special = sp;
    return ed * LN2_1L + (ed * LN2_2L + lm); /* |result| >= 2^-24: a normal binary32 */
}

/* y[i] = f(x[i]) from binary64 lanes. A lane is decided by its binary64
 * value yd when yd is farther than 2^-40 |yd| from every binary32 rounding
 * boundary: the exact value lies within 2^-46.4 |yd| of yd (cr_exp.c,
 * cr_log.c), RN is monotone, so it rounds like yd. The boundaries (binary32
 * midpoints) are the doubles whose 29 bits below binary32 precision are
 * 1000...0, and 2^-40 |yd| is at most 2^13 units of those bits, so a lane
 * is near when those bits are within 2^14 of 2^28. Near lanes, and special
 * inputs, are recomputed by the exact scalar function. A block of BLK
 * vectors is checked once, so the common case never leaves the vector unit. */
enum { BLK = 8 };
#define NEAR_BITS 0x1fffffffLL
#define NEAR_MID 0x10000000LL
#define NEAR_TOL 0x4000LL

static inline __attribute__((always_inline)) size_t lanes_v(const float *x, float *y, size_t n, int exact_fallback,
                                                             int is_log)
{
    size_t near_count = 0, i = 0;
    for (; i + DW * BLK <= n; i += DW * BLK) {
        vfh xs[BLK];
        vl flag[BLK], any = {0};
        for (size_t b = 0; b < BLK; b++) {
            memcpy(&xs[b], x + i + b * DW, sizeof xs[b]);
            vd xd = __builtin_convertvector(xs[b], vd);
            vl special;
            vd yd = is_log ? log_lanes(xd, &special) : exp_lanes(xd, &special);
            vl d = ((vl)yd & NEAR_BITS) - NEAR_MID;
            vl near = (d < NEAR_TOL) & (d > -NEAR_TOL);
            flag[b] = (special & 1) | (near & ~special & 2);
            any |= flag[b];
            vfh f = __builtin_convertvector(yd, vfh);
            memcpy(y + i + b * DW, &f, sizeof f);
        }
        if (!any64(any))
            continue;
        for (size_t b = 0; b < BLK; b++) /* x may be y: the inputs come from xs */
            for (size_t j = 0; j < DW; j++) {
                if (flag[b][j] == 2)
                    near_count++;
                if (flag[b][j] == 1 || (flag[b][j] == 2 && exact_fallback))
                    y[i + b * DW + j] = is_log ? it_logf(xs[b][j]) : it_expf(xs[b][j]);
            }
    }
    for (; i < n; i++)
        y[i] = is_log ? it_logf(x[i]) : it_expf(x[i]);
    return near_count;
}

static size_t expf_v(const float *x, float *y, size_t n, int exact_fallback)
{
    return lanes_v(x, y, n, exact_fallback, 0);
}

static size_t logf_v(const float *x, float *y, size_t n, int exact_fallback)
{
    return lanes_v(x, y, n, exact_fallback, 1);
}

/* ---- tanh (spec §3.4), elementwise --------------------------------------- */

/* tanh.c's it_tanhf for one element: r = (1 - e) / (1 + e), e =
 * exp(-2|x|), given x's sign; x itself below 2^-12 in magnitude; NaN
 * quieted by x + x */
static inline float tanh_one(float xv, float ev)
{
    uint32_t u;
    memcpy(&u, &xv, sizeof u);
    uint32_t mag = u & 0x7fffffffu;
    float r = (1.0f - ev) / (1.0f + ev);
    float out = (u >> 31) ? -r : r;
    if (mag < 0x39800000u)
        out = xv;
    if (mag > 0x7f800000u)
        out = xv + xv;
    return out;
}

/* tanh_one on VW lanes: the sign by xor (r >= 0, so -r is r with the sign
 * bit set), the two exceptions by masks */
static inline vf tanh_lanes(vf xv, vf ev)
{
    const vf one = splat(1.0f);
    vf r = (one - ev) / (one + ev), twice = xv + xv;
    vi ux, ur, ut;
    memcpy(&ux, &xv, sizeof ux), memcpy(&ur, &r, sizeof ur), memcpy(&ut, &twice, sizeof ut);
    const vi mag = ux & 0x7fffffff, small = mag < 0x39800000, nan = mag > 0x7f800000;
    vi out = ur ^ (ux & (-0x7fffffff - 1));
    out = (out & ~small) | (ux & small);
    out = (out & ~nan) | (ut & nan);
    vf f;
    memcpy(&f, &out, sizeof f);
    return f;
}

static void tanhf_v(const float *x, float *y, size_t n)
{
    enum { CHUNK = 256 };
    float t[CHUNK], e[CHUNK];
    for (size_t i0 = 0; i0 < n; i0 += CHUNK) {
        size_t m = n - i0 < CHUNK ? n - i0 : CHUNK, j = 0;
        for (; j + VW <= m; j += VW) { /* -2|x|: the sign bit cleared, doubled */
            vi u;
            memcpy(&u, &x[i0 + j], sizeof u);
            u &= 0x7fffffff;
            vf a;
            memcpy(&a, &u, sizeof a);
            stf(t + j, -(a + a));
        }
        for (; j < m; j++) {
            uint32_t u;
            memcpy(&u, &x[i0 + j], sizeof u);
            u &= 0x7fffffffu;
            float a;
            memcpy(&a, &u, sizeof a);
            t[j] = -(a + a);
        }
        expf_v(t, e, m, 1);
        for (j = 0; j + VW <= m; j += VW)
            stf(y + i0 + j, tanh_lanes(ldf(x + i0 + j), ldf(e + j)));
        for (; j < m; j++)
            y[i0 + j] = tanh_one(x[i0 + j], e[j]);
    }
}

/* ---- the matrix product (kernels.h it_gemm_args): gemm_body.h ----------------
 * Two tile shapes of the same product: `wide`, the set's full vectors, and
 * `narrow`, 128-bit vectors 3 rows by 16 columns, which is the faster one
 * on a CPU that runs a wider vector as two 128-bit halves (AMD Zen 1: two
 * 128-bit multipliers and two adders, and a broadcast into a 256-bit
 * register costs an extra operation). dispatch.c's it_gemm_narrow() says
 * which one; both give the same bits (lanes are independent outputs). */

#define GEMM_NAME gemm_wide
#define GV vf
#define GW VW
#define GMR IT_MR
#define GNV IT_NV
#include "kernels/gemm_body.h"
#undef GEMM_NAME
#undef GV
#undef GW
#undef GMR
#undef GNV

#if IT_VBYTES > 16
typedef float vq __attribute__((vector_size(16)));
#define GEMM_NAME gemm_narrow
#define GV vq
#define GW 4
#define GMR 3
#define GNV 4
#include "kernels/gemm_body.h"
#undef GEMM_NAME
#undef GV
#undef GW
#undef GMR
#undef GNV

static void gemm(const it_gemm_args *g)
{
    if (it_gemm_narrow())
        gemm_narrow(g);
    else
        gemm_wide(g);
}
#else
static void gemm(const it_gemm_args *g) { gemm_wide(g); }
#endif

static void matmul(size_t M, size_t N, size_t K, const float *A, size_t ars, size_t acs, const float *B, size_t ldb,
                   float *C, size_t ldc, int accumulate)
{
    it_gemm_args g = {M, N, K, A, ars, acs, B, ldb, 1, C, ldc, accumulate, NULL};
    gemm(&g);
}

/* ---- reductions over rows, lanes = columns ------------------------------------- */

/* acc[c] = acc[c] + X[r][c] for r ascending: each lane one column's sum */
static void colsum_acc(size_t rows, size_t cols, const float *X, size_t ldx, float *acc)
{
    size_t c = 0;
    for (; c + 4 * VW <= cols; c += 4 * VW) {
        vf s0 = ldf(acc + c), s1 = ldf(acc + c + VW), s2 = ldf(acc + c + 2 * VW), s3 = ldf(acc + c + 3 * VW);
        for (size_t r = 0; r < rows; r++) {
            const float *x = X + r * ldx + c;
            s0 = s0 + ldf(x);
            s1 = s1 + ldf(x + VW);
            s2 = s2 + ldf(x + 2 * VW);
            s3 = s3 + ldf(x + 3 * VW);
        }
        stf(acc + c, s0);
        stf(acc + c + VW, s1);
        stf(acc + c + 2 * VW, s2);
        stf(acc + c + 3 * VW, s3);
    }
    for (; c + VW <= cols; c += VW) {
        vf s = ldf(acc + c);
        for (size_t r = 0; r < rows; r++)
            s = s + ldf(X + r * ldx + c);
        stf(acc + c, s);
    }
    for (; c < cols; c++)
        for (size_t r = 0; r < rows; r++)
            acc[c] = acc[c] + X[r * ldx + c];
}

/* ---- elementwise: lanes are elements --------------------------------------------- */

static void add_rows(size_t rows, size_t cols, const float *A, size_t lda, const float *B, size_t ldb, float *Y,
                     size_t ldy)
{
    for (size_t r = 0; r < rows; r++) {
        const float *a = A + r * lda, *b = B + r * ldb;
        float *y = Y + r * ldy;
        size_t c = 0;
        for (; c + VW <= cols; c += VW)
            stf(y + c, ldf(a + c) + ldf(b + c));
        for (; c < cols; c++)
            y[c] = a[c] + b[c];
    }
}

static inline vf vselect(vi m, vf a, vf b) { return (vf)((m & (vi)a) | (~m & (vi)b)); }

/* §5.9: x <= 0 (either zero included) gives +0, NaN passes: a select, not
 * a max (x86's maxps returns its second operand for NaN) */
static void relu_fwd(const float *x, size_t n, float *y)
{
    size_t i = 0;
    for (; i + VW <= n; i += VW) {
        vf v = ldf(x + i);
        vi off = v <= 0.0f;
        stf(y + i, (vf)((vi)v & ~off));
    }
    for (; i < n; i++)
        y[i] = x[i] <= 0.0f ? 0.0f : x[i];
}

/* §5.10: dy where x > 0, +0 elsewhere (a selection: never dy * 0) */
static void relu_bwd(const float *x, const float *dy, size_t n, float *dx)
{
    size_t i = 0;
    for (; i + VW <= n; i += VW) {
        vi on = ldf(x + i) > 0.0f;
        stf(dx + i, (vf)((vi)ldf(dy + i) & on));
    }
    for (; i < n; i++)
        dx[i] = x[i] > 0.0f ? dy[i] : 0.0f;
}

/* §5.6: dx = dy * (1 - y*y), three roundings in that order */
static void tanh_bwd(const float *y, const float *dy, size_t n, float *dx)
{
    size_t i = 0;
    for (; i + VW <= n; i += VW) {
        vf yy = ldf(y + i);
        vf square = yy * yy;
        vf slope = 1.0f - square;
        stf(dx + i, ldf(dy + i) * slope);
    }
    for (; i < n; i++) {
        float square = y[i] * y[i];
        float slope = 1.0f - square;
        dx[i] = dy[i] * slope;
    }
}

/* spec §7.1: delta = lr * g, then p - delta, per element */
static void sgd(float *p, const float *g, size_t n, float lr)
{
    size_t i = 0;
    for (; i + VW <= n; i += VW) {
        vf delta = ldf(g + i) * lr;
        stf(p + i, ldf(p + i) - delta);
    }
    for (; i < n; i++) {
        float delta = lr * g[i];
        p[i] = p[i] - delta;
    }
}

/* ---- square root (spec §3.6) and AdamW (§7.2) ------------------------------------
 * IT_VSQRT(v) is the instruction set's IEEE square root of VW lanes
 * (sqrtps, vsqrtps, fsqrt): correctly rounded by IEEE 754, so the bits of
 * the integer it_sqrtf (proven over all 2^32 inputs by prove_math). */
#ifdef IT_VSQRT
static void sqrtf_v(const float *x, float *y, size_t n)
{
    size_t i = 0;
    for (; i + VW <= n; i += VW)
        stf(y + i, IT_VSQRT(ldf(x + i)));
    if (i < n) { /* the tail through one padded vector: the same instruction */
        float t[VW];
        memset(t, 0, sizeof t);
        memcpy(t, x + i, sizeof(float) * (n - i));
        stf(t, IT_VSQRT(ldf(t)));
        memcpy(y + i, t, sizeof(float) * (n - i));
    }
}

static inline __attribute__((always_inline)) void adamw_lanes(const it_adamw_consts *c, float bc1, float bc2,
                                                               float *p, const float *g, float *m, float *v)
{
    vf gj = ldf(g);
    vf pj = ldf(p) * c->decay;
    vf m1 = ldf(m) * c->beta1;
    vf m2 = gj * c->one_minus_beta1;
    vf mj = m1 + m2;
    vf gg = gj * gj;
    vf v1 = ldf(v) * c->beta2;
    vf v2 = gg * c->one_minus_beta2;
    vf vj = v1 + v2;
    stf(m, mj);
    stf(v, vj);
    vf mhat = mj / bc1;
    vf vhat = vj / bc2;
    vf denom = IT_VSQRT(vhat) + c->eps;
    vf ratio = mhat / denom;
    vf delta = ratio * c->lr;
    stf(p, pj - delta);
}

/* every line of §7.2 as one vector operation per line, lanes = elements */
static void adamw(const it_adamw_consts *c, float bc1, float bc2, float *p, const float *g, float *m, float *v,
                  size_t n)
{
    size_t i = 0;
    for (; i + VW <= n; i += VW)
        adamw_lanes(c, bc1, bc2, p + i, g + i, m + i, v + i);
    if (i < n) { /* tail: padded copies, the same lanes */
        float tp[VW], tg[VW], tm[VW], tv[VW];
        size_t r = n - i;
        memset(tp, 0, sizeof tp), memset(tg, 0, sizeof tg), memset(tm, 0, sizeof tm), memset(tv, 0, sizeof tv);
        memcpy(tp, p + i, sizeof(float) * r), memcpy(tg, g + i, sizeof(float) * r);
        memcpy(tm, m + i, sizeof(float) * r), memcpy(tv, v + i, sizeof(float) * r);
        adamw_lanes(c, bc1, bc2, tp, tg, tm, tv);
        memcpy(p + i, tp, sizeof(float) * r), memcpy(m + i, tm, sizeof(float) * r);
        memcpy(v + i, tv, sizeof(float) * r);
    }
}
#else
static void sqrtf_v(const float *x, float *y, size_t n)
{
    for (size_t i = 0; i < n; i++)
        y[i] = it_sqrtf(x[i]);
}
#define adamw it_adamw_update_portable
#endif

/* ---- softmax and cross-entropy over rows (spec §5.4, §5.5) -----------------------
 * Elementwise steps run along the row in lanes; the maximum scan and the
 * denominator SUM are per row. */

/* §5.4 step 1, the first maximal element: lanes keep the maximum of their
 * own columns with the same strict >, from z[0]. Equal non-zero binary32
 * values have equal bits, so the value of the maximum is the first maximal
 * element's, except for the one pair of equal values with different bits,
 * -0 and +0: when the maximum is a zero, the first zero of the row is taken
 * (no output of §5.4 can see that sign: z - (+0) and z - (-0) differ only
 * for z = +-0, whose exp is 1 either way; it is the scan's value all the
 * same). A NaN is skipped by > exactly as in the scan; a NaN in z[0] stays m. */
static float row_max(const float *z, size_t n)
{
    float m = z[0];
    if (m != m)
        return m;
    size_t k = 1;
    if (n >= 1 + VW) {
        vf mv = splat(m);
        for (k = 1; k + VW <= n; k += VW) {
            vf zv = ldf(z + k);
            mv = vselect(zv > mv, zv, mv);
        }
        for (size_t l = 0; l < VW; l++)
            if (mv[l] > m)
                m = mv[l];
    }
    for (; k < n; k++)
        if (z[k] > m)
            m = z[k];
    if (m == 0.0f) /* +0 or -0: the first zero's sign */
        for (k = 0; k < n; k++)
            if (z[k] == 0.0f)
                return z[k];
    return m;
}

static void softmax_xent_fwd(size_t rows, size_t n, const float *Z, size_t ldz, const uint32_t *targets, float *loss,
                             float *P, size_t ldp)
{
    enum { G = 16 }; /* rows whose sums run side by side */
    for (size_t r0 = 0; r0 < rows; r0 += G) {
        const size_t gn = rows - r0 < G ? rows - r0 : G;
        float mx[G], zt[G], S[G], logS[G];
        for (size_t l = 0; l < gn; l++) {
            const float *z = Z + (r0 + l) * ldz;
            float *p = P + (r0 + l) * ldp;
            mx[l] = row_max(z, n);
            zt[l] = z[targets[r0 + l]] - mx[l]; /* before P (maybe Z) is overwritten */
            size_t k = 0;
            const vf mv = splat(mx[l]);
            for (; k + VW <= n; k += VW)
                stf(p + k, ldf(z + k) - mv);
            for (; k < n; k++)
                p[k] = z[k] - mx[l];
        }
        /* exp in place: the whole group at once when its rows are contiguous */
        if (ldp == n)
            expf_v(P + r0 * ldp, P + r0 * ldp, gn * n, 1);
        else
            for (size_t l = 0; l < gn; l++)
                expf_v(P + (r0 + l) * ldp, P + (r0 + l) * ldp, n, 1);
        /* S = SUM over k ascending, the group's rows interleaved */
        for (size_t l = 0; l < G; l++)
            S[l] = 0.0f;
        for (size_t k = 0; k < n; k++)
            for (size_t l = 0; l < gn; l++)
                S[l] = S[l] + P[(r0 + l) * ldp + k];
        logf_v(S, logS, gn, 1);
        for (size_t l = 0; l < gn; l++) {
            float *p = P + (r0 + l) * ldp;
            const float s = S[l];
            if (loss)
                loss[r0 + l] = logS[l] - zt[l];
            size_t k = 0;
            for (; k + VW <= n; k += VW) {
                vf e = ldf(p + k);
                stf(p + k, e / s);
            }
            for (; k < n; k++)
                p[k] = p[k] / s;
        }
    }
}

/* §5.5: (p - 1) * s at the target, p * s elsewhere */
static void softmax_xent_bwd(size_t rows, size_t n, const float *P, size_t ldp, const uint32_t *targets, float scale,
                             float *dZ, size_t lddz)
{
    for (size_t r = 0; r < rows; r++) {
        const float *p = P + r * ldp;
        float *d = dZ + r * lddz;
        const float pt = p[targets[r]];
        size_t k = 0;
        for (; k + VW <= n; k += VW)
            stf(d + k, ldf(p + k) * scale);
        for (; k < n; k++)
            d[k] = p[k] * scale;
        float diff = pt - 1.0f;
        d[targets[r]] = diff * scale;
    }
}

/* ---- attention over rows (spec §5.11, §5.12) ----------------------------------------
 * Scores and dw are dot products over j: each one a scalar sum, all H*T of
 * a row side by side; the sums over t (z, dq) and the products (dk, dv)
 * run with lanes over j. */

enum { ATT_MAXHT = 64, ATT_RB = 16 };

/* The body for a shape (T, H, dh): with constants (the profile's 3, 4, 32)
 * the compiler keeps a row's H*T scores in registers. */
static inline __attribute__((always_inline)) void attention_fwd_body(const it_attention_args *a, size_t r0,
                                                                      size_t r1, const size_t T, const size_t H,
                                                                      const size_t dh)
{
    const size_t D = H * dh, HT = H * T;
    for (size_t b0 = r0; b0 < r1; b0 += ATT_RB) {
        const size_t bn = r1 - b0 < ATT_RB ? r1 - b0 : ATT_RB;
        float e[ATT_RB * ATT_MAXHT];
        /* steps 1-2 up to the exponent: s = dot * c, m, s - m */
        for (size_t i = 0; i < bn; i++) {
            const size_t r = b0 + i;
            const float *q = a->Q + r * a->ldq, *k = a->K + r * T * a->ldkv;
            float s[ATT_MAXHT];
            for (size_t x = 0; x < HT; x++)
                s[x] = 0.0f;
            for (size_t j = 0; j < dh; j++)
#pragma GCC unroll 8
                for (size_t h = 0; h < H; h++)
#pragma GCC unroll 8
                    for (size_t t = 0; t < T; t++) {
                        float prod = q[h * dh + j] * k[t * a->ldkv + h * dh + j];
                        s[h * T + t] = s[h * T + t] + prod;
                    }
            for (size_t h = 0; h < H; h++) {
                float *sh = s + h * T;
                for (size_t t = 0; t < T; t++)
                    sh[t] = sh[t] * a->scale;
                float mx = sh[0];
                for (size_t t = 1; t < T; t++)
                    if (sh[t] > mx)
                        mx = sh[t];
                for (size_t t = 0; t < T; t++)
                    e[i * HT + h * T + t] = sh[t] - mx;
            }
        }
        expf_v(e, e, bn * HT, 1);
        for (size_t i = 0; i < bn; i++) {
            const size_t r = b0 + i;
            const float *v = a->V + r * T * a->ldkv;
            float *w = a->Wt + r * HT, *z = a->Z + r * a->ldz;
            for (size_t h = 0; h < H; h++) {
                const float *eh = e + i * HT + h * T;
                float S = 0.0f;
                for (size_t t = 0; t < T; t++)
                    S = S + eh[t];
                for (size_t t = 0; t < T; t++)
                    w[h * T + t] = eh[t] / S;
                /* step 3: z_h[j] = SUM over t of w[t] * v_t[j] */
                size_t j = 0;
                for (; j + VW <= dh; j += VW) {
                    vf acc = (vf){0};
                    for (size_t t = 0; t < T; t++) {
                        vf prod = ldf(v + t * a->ldkv + h * dh + j) * w[h * T + t];
                        acc = acc + prod;
                    }
                    stf(z + h * dh + j, acc);
                }
                for (; j < dh; j++) {
                    float acc = 0.0f;
                    for (size_t t = 0; t < T; t++)
                        acc = acc + w[h * T + t] * v[t * a->ldkv + h * dh + j];
                    z[h * dh + j] = acc;
                }
            }
        }
        (void)D;
    }
}

static void attention_fwd(const it_attention_args *a, size_t r0, size_t r1)
{
    if (a->H * a->T > ATT_MAXHT)
        it_kernels_portable.attention_fwd(a, r0, r1);
    else if (a->T == 3 && a->H == 4 && a->dh == 32)
        attention_fwd_body(a, r0, r1, 3, 4, 32);
    else
        attention_fwd_body(a, r0, r1, a->T, a->H, a->dh);
}

static inline __attribute__((always_inline)) void attention_bwd_body(const it_attention_args *a, size_t r0,
                                                                      size_t r1, const size_t T, const size_t H,
                                                                      const size_t dh)
{
    const size_t HT = H * T;
    for (size_t r = r0; r < r1; r++) {
        const float *q = a->Q + r * a->ldq, *k = a->K + r * T * a->ldkv, *v = a->V + r * T * a->ldkv;
        const float *w = a->Wt + r * HT, *dz = a->dZ + r * a->ldz;
        float *dq = a->dQ + r * a->lddq, *dk = a->dK + r * T * a->lddkv, *dv = a->dV + r * T * a->lddkv;
        float dw[ATT_MAXHT], ds[ATT_MAXHT];
        /* step 1: dw[t] = dot(dz_h, v_t,h), all of the row's side by side */
        for (size_t x = 0; x < HT; x++)
            dw[x] = 0.0f;
        for (size_t j = 0; j < dh; j++)
#pragma GCC unroll 8
            for (size_t h = 0; h < H; h++)
#pragma GCC unroll 8
                for (size_t t = 0; t < T; t++) {
                    float prod = dz[h * dh + j] * v[t * a->ldkv + h * dh + j];
                    dw[h * T + t] = dw[h * T + t] + prod;
                }
        for (size_t h = 0; h < H; h++) {
            const float *wh = w + h * T;
            float c = 0.0f; /* step 2 */
            for (size_t t = 0; t < T; t++) {
                float prod = wh[t] * dw[h * T + t];
                c = c + prod;
            }
            for (size_t t = 0; t < T; t++) { /* step 3 */
                float diff = dw[h * T + t] - c;
                float dsoft = wh[t] * diff;
                ds[h * T + t] = dsoft * a->scale;
            }
            /* step 4: dq_h[j] = SUM over t of ds[t] * k_t,h[j]; step 5 */
            size_t j = 0;
            for (; j + VW <= dh; j += VW) {
                vf acc = (vf){0};
                for (size_t t = 0; t < T; t++) {
                    vf prod = ldf(k + t * a->ldkv + h * dh + j) * ds[h * T + t];
                    acc = acc + prod;
                }
                stf(dq + h * dh + j, acc);
                vf qv = ldf(q + h * dh + j), dzv = ldf(dz + h * dh + j);
                for (size_t t = 0; t < T; t++) {
                    stf(dk + t * a->lddkv + h * dh + j, qv * ds[h * T + t]);
                    stf(dv + t * a->lddkv + h * dh + j, dzv * wh[t]);
                }
            }
            for (; j < dh; j++) {
                float acc = 0.0f;
                for (size_t t = 0; t < T; t++)
                    acc = acc + ds[h * T + t] * k[t * a->ldkv + h * dh + j];
                dq[h * dh + j] = acc;
                for (size_t t = 0; t < T; t++) {
                    dk[t * a->lddkv + h * dh + j] = ds[h * T + t] * q[h * dh + j];
                    dv[t * a->lddkv + h * dh + j] = wh[t] * dz[h * dh + j];
                }
            }
        }
    }
}

static void attention_bwd(const it_attention_args *a, size_t r0, size_t r1)
{
    if (a->H * a->T > ATT_MAXHT)
        it_kernels_portable.attention_bwd(a, r0, r1);
    else if (a->T == 3 && a->H == 4 && a->dh == 32)
        attention_bwd_body(a, r0, r1, 3, 4, 32);
    else
        attention_bwd_body(a, r0, r1, a->T, a->H, a->dh);
}

#include "kernels/gpt_body.h"

const it_kernel_set IT_K_SET = {
    IT_K_NAME,        expf_v,           logf_v,     tanhf_v,     sgd,           it_mlp13k_loss_grad_rows,
    matmul,           gemm,             colsum_acc, add_rows,    relu_fwd,      relu_bwd,
    tanh_bwd,         softmax_xent_fwd, softmax_xent_bwd,        attention_fwd, attention_bwd,
    adamw,            sqrtf_v,          causal_fwd, causal_bwd,  gelu_fwd,      gelu_bwd,
    layernorm_fwd,    layernorm_bwd,
};
