/* simd_body.h: the body of every SIMD kernel set, written once with GCC's
 * generic vector types and compiled once per instruction set by a small file
 * (x86_sse2.c, x86_avx.c, x86_avx2.c, x86_avx512.c, arm_neon.c) that defines
 *
 *   IT_K_SET     the it_kernel_set object to define (e.g. it_kernels_avx2)
 *   IT_K_NAME    its name ("avx2")
 *   IT_VBYTES    the width of one vector register in bytes (16, 32, 64)
 *   IT_NACC      how many vector accumulators the matrix kernel may keep
 *                (half the register file: 8 with 16 registers, 16 with 32)
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

static void tanhf_v(const float *x, float *y, size_t n)
{
    enum { CHUNK = 256 };
    float t[CHUNK], e[CHUNK];
    for (size_t i0 = 0; i0 < n; i0 += CHUNK) {
        size_t m = n - i0 < CHUNK ? n - i0 : CHUNK;
        for (size_t j = 0; j < m; j++) {
            uint32_t u;
            memcpy(&u, &x[i0 + j], sizeof u);
            u &= 0x7fffffffu;
            float a;
            memcpy(&a, &u, sizeof a);
            t[j] = -(a + a);
        }
        expf_v(t, e, m, 1);
        for (size_t j = 0; j < m; j++) {
            float xv = x[i0 + j];
            uint32_t u;
            memcpy(&u, &xv, sizeof u);
            uint32_t mag = u & 0x7fffffffu;
            float r = (1.0f - e[j]) / (1.0f + e[j]);
            float out = (u >> 31) ? -r : r;
            if (mag < 0x39800000u)
                out = xv;
            if (mag > 0x7f800000u)
                out = xv + xv;
            y[i0 + j] = out;
        }
    }
}

/* ---- matrix kernel -------------------------------------------------------
 * C[m][n] = S + bias[m] (bias optional), with
 * S = SUM over k = 0..K-1 in ascending order of A(m, k) * B[k][n], started
 * from +0, or from C[m][n] itself when `accumulate` (the same sequential
 * sum, continued: how gradients keep adding positions across chunks).
 * A(m, k) = A[m * ars + k * acs], so a transposed A costs nothing. Lanes run
 * over n: each lane is its own output element and its own sum. */

#define MAXNV ((size_t)(IT_NACC / 4))

static inline __attribute__((always_inline)) void mm_block(size_t mr, size_t nv, size_t K, const float *A,
                                                            size_t ars, size_t acs, const float *B, size_t ldb,
                                                            float *C, size_t ldc, int accumulate, const float *bias)
{
    vf c[8][4];
#pragma GCC unroll 8
    for (size_t r = 0; r < mr; r++)
#pragma GCC unroll 4
        for (size_t v = 0; v < nv; v++)
            c[r][v] = accumulate ? ldf(C + r * ldc + v * VW) : (vf){0};
    for (size_t k = 0; k < K; k++) {
        vf b[4];
#pragma GCC unroll 4
        for (size_t v = 0; v < nv; v++)
            b[v] = ldf(B + k * ldb + v * VW);
#pragma GCC unroll 8
        for (size_t r = 0; r < mr; r++) {
            float a = A[r * ars + k * acs];
#pragma GCC unroll 4
            for (size_t v = 0; v < nv; v++) {
                vf prod = b[v] * a;
                c[r][v] = c[r][v] + prod;
            }
        }
    }
#pragma GCC unroll 8
    for (size_t r = 0; r < mr; r++)
#pragma GCC unroll 4
        for (size_t v = 0; v < nv; v++) {
            vf out = c[r][v];
            if (bias)
                out = out + bias[r];
            stf(C + r * ldc + v * VW, out);
        }
}

/* rows [m0, M) of one column block of nv vectors, mr rows at a time */
static inline __attribute__((always_inline)) void mm_rows(size_t mr, size_t nv, size_t M, size_t K,
                                                           const float *A, size_t ars, size_t acs,
                                                           const float *B, size_t ldb, float *C, size_t ldc,
                                                           int accumulate, const float *bias)
{
    size_t m = 0;
    for (; m + mr <= M; m += mr)
        mm_block(mr, nv, K, A + m * ars, ars, acs, B, ldb, C + m * ldc, ldc, accumulate, bias ? bias + m : NULL);
    for (; m < M; m++)
        mm_block(1, nv, K, A + m * ars, ars, acs, B, ldb, C + m * ldc, ldc, accumulate, bias ? bias + m : NULL);
}

static void mm(size_t M, size_t N, size_t K, const float *A, size_t ars, size_t acs, const float *B, size_t ldb,
               float *C, size_t ldc, int accumulate, const float *bias)
{
    size_t n = 0;
    for (; n + MAXNV * VW <= N; n += MAXNV * VW)
        mm_rows(IT_NACC / MAXNV, MAXNV, M, K, A, ars, acs, B + n, ldb, C + n, ldc, accumulate, bias);
#if IT_NACC >= 16
    for (; n + 2 * VW <= N; n += 2 * VW)
        mm_rows(IT_NACC / 2 > 8 ? 8 : IT_NACC / 2, 2, M, K, A, ars, acs, B + n, ldb, C + n, ldc, accumulate,
                bias);
#endif
    for (; n + VW <= N; n += VW)
        mm_rows(8, 1, M, K, A, ars, acs, B + n, ldb, C + n, ldc, accumulate, bias);
    /* leftover columns: scalar, still one sum per (m, n), ascending k */
    for (; n < N; n++)
        for (size_t m = 0; m < M; m++) {
            float s = accumulate ? C[m * ldc + n] : 0.0f;
            for (size_t k = 0; k < K; k++) {
                float prod = A[m * ars + k * acs] * B[k * ldb + n];
                s = s + prod;
            }
            C[m * ldc + n] = bias ? s + bias[m] : s;
        }
}

/* acc[m] = acc[m] + A[m][0] + A[m][1] + ... (ascending k): the bias
 * gradients. Eight rows at a time so eight independent sums overlap. */
static void rowsum_acc(float *acc, const float *A, size_t M, size_t K)
{
    size_t m = 0;
    for (; m + 8 <= M; m += 8) {
        float s[8];
        for (size_t r = 0; r < 8; r++)
            s[r] = acc[m + r];
        for (size_t k = 0; k < K; k++)
            for (size_t r = 0; r < 8; r++)
                s[r] = s[r] + A[(m + r) * K + k];
        for (size_t r = 0; r < 8; r++)
            acc[m + r] = s[r];
    }
    for (; m < M; m++)
        for (size_t k = 0; k < K; k++)
            acc[m] = acc[m] + A[m * K + k];
}

/* ---- elementwise and per-position helpers: lanes are positions or elements */

static inline vf vselect(vi m, vf a, vf b) { return (vf)((m & (vi)a) | (~m & (vi)b)); }

/* Z holds n rows of P logits, position p in column p. Per column (spec
 * §5.4): the running maximum in ascending row order (strict >, so the first
 * of equal values stays), z[t] - m, the denominators S, the target's
 * probability pt = e[t] / S; then Z becomes (e / S) * scale, the gradient of
 * spec §5.5 for every k but the target (whose entry the caller sets). */
static void softmax_columns(float *Z, size_t n, size_t P, const unsigned char *t, float *mx, float *zt, float *S,
                            float *pt, float scale)
{
    size_t p;
    for (p = 0; p < P; p++)
        mx[p] = Z[p];
    for (size_t o = 1; o < n; o++) {
        const float *row = Z + o * P;
        for (p = 0; p + VW <= P; p += VW) {
            vf z = ldf(row + p), m = ldf(mx + p);
            stf(mx + p, vselect(z > m, z, m));
        }
        for (; p < P; p++)
            mx[p] = row[p] > mx[p] ? row[p] : mx[p];
    }
    for (p = 0; p < P; p++)
        zt[p] = Z[(size_t)t[p] * P + p] - mx[p];
    for (size_t o = 0; o < n; o++) {
        float *row = Z + o * P;
        for (p = 0; p + VW <= P; p += VW)
            stf(row + p, ldf(row + p) - ldf(mx + p));
        for (; p < P; p++)
            row[p] = row[p] - mx[p];
    }
    expf_v(Z, Z, n * P, 1);
    for (p = 0; p < P; p++)
        S[p] = 0.0f;
    for (size_t o = 0; o < n; o++) {
        const float *row = Z + o * P;
        for (p = 0; p + VW <= P; p += VW)
            stf(S + p, ldf(S + p) + ldf(row + p));
        for (; p < P; p++)
            S[p] = S[p] + row[p];
    }
    for (p = 0; p < P; p++)
        pt[p] = Z[(size_t)t[p] * P + p] / S[p];
    for (size_t o = 0; o < n; o++) {
        float *row = Z + o * P;
        for (p = 0; p + VW <= P; p += VW) {
            vf prob = ldf(row + p) / ldf(S + p);
            stf(row + p, prob * scale);
        }
        for (; p < P; p++) {
            float prob = row[p] / S[p];
            row[p] = prob * scale;
        }
    }
}

/* dy becomes dy * (1 - y*y), three roundings in that order (spec §5.6) */
static void tanh_backward_all(const float *y, float *dy, size_t n)
{
    size_t i = 0;
    for (; i + VW <= n; i += VW) {
        vf yy = ldf(y + i);
        vf square = yy * yy;
        vf slope = 1.0f - square;
        stf(dy + i, ldf(dy + i) * slope);
    }
    for (; i < n; i++) {
        float square = y[i] * y[i];
        float slope = 1.0f - square;
        dy[i] = dy[i] * slope;
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

/* ---- spec §11.6, positions side by side ------------------------------------
 * The portable loop (mlp13k.c) runs one position at a time. Here up to PB
 * positions are lanes: activations are stored feature-major ([feature][p]),
 * every layer is one call of mm, and each gradient element still receives
 * its per-position terms in ascending position, continuing across chunks. */

enum { V = IT_MLP13K_VOCAB, D = IT_MLP13K_EMBED, H = IT_MLP13K_HIDDEN, PB = 64 };

static float mlp13k_loss_grad(const float *params, const unsigned char *xs, const unsigned char *ys, size_t batch,
                              float *grads)
{
    const float *E = params + IT_MLP13K_OFF_EMBED, *W1 = params + IT_MLP13K_OFF_W1,
                *b1 = params + IT_MLP13K_OFF_B1, *W2 = params + IT_MLP13K_OFF_W2,
                *b2 = params + IT_MLP13K_OFF_B2;
    float *dE = grads + IT_MLP13K_OFF_EMBED, *dW1 = grads + IT_MLP13K_OFF_W1,
          *db1 = grads + IT_MLP13K_OFF_B1, *dW2 = grads + IT_MLP13K_OFF_W2,
          *db2 = grads + IT_MLP13K_OFF_B2;
    const float inv_batch = 1.0f / (float)batch;

    for (size_t i = 0; i < IT_MLP13K_NPARAMS; i++)
        grads[i] = 0.0f;

    float loss_sum = 0.0f;
    for (size_t p0 = 0; p0 < batch; p0 += PB) {
        const size_t P = batch - p0 < PB ? batch - p0 : PB;
        const unsigned char *x = xs + p0, *t = ys + p0;
        float Eg[PB * D], EgT[D * PB], HT[H * PB], Hp[PB * H], dHT[H * PB], dEg[PB * D];
        float Z[V * PB], mx[PB], zt[PB], S[PB], logS[PB], pt[PB];

        /* forward: e, z1 = W1 e + b1, h = tanh z1, z2 = W2 h + b2 */
        for (size_t p = 0; p < P; p++)
            for (size_t d = 0; d < D; d++) {
                Eg[p * D + d] = E[(size_t)x[p] * D + d];
                EgT[d * P + p] = Eg[p * D + d];
            }
        mm(H, P, D, W1, D, 1, EgT, P, HT, P, 0, b1);
        tanhf_v(HT, HT, H * P);
        for (size_t i = 0; i < H; i++)
            for (size_t p = 0; p < P; p++)
                Hp[p * H + i] = HT[i * P + p];
        mm(V, P, H, W2, H, 1, HT, P, Z, P, 0, b2);

        /* softmax + cross-entropy (spec §5.4), one position per lane */
        softmax_columns(Z, V, P, t, mx, zt, S, pt, inv_batch);
        logf_v(S, logS, P, 1);
        for (size_t p = 0; p < P; p++)
            loss_sum = loss_sum + (logS[p] - zt[p]);

        /* backward (spec §5.5): Z becomes dz2 */
        for (size_t p = 0; p < P; p++)
            Z[(size_t)t[p] * P + p] = (pt[p] - 1.0f) * inv_batch;

        /* linear 2 backward (spec §5.7) */
        mm(V, H, P, Z, P, 1, Hp, H, dW2, H, 1, NULL);
        rowsum_acc(db2, Z, V, P);
        mm(H, P, V, W2, 1, H, Z, P, dHT, P, 0, NULL);

        /* tanh backward (spec §5.6), in place: dHT becomes dz1 */
        tanh_backward_all(HT, dHT, H * P);

        /* linear 1 backward, then the embedding's scatter-add (spec §5.8) */
        mm(H, D, P, dHT, P, 1, Eg, D, dW1, D, 1, NULL);
        rowsum_acc(db1, dHT, H, P);
        mm(P, D, H, dHT, 1, P, W1, D, dEg, D, 0, NULL);
        for (size_t p = 0; p < P; p++)
            for (size_t d = 0; d < D; d++)
                dE[(size_t)x[p] * D + d] = dE[(size_t)x[p] * D + d] + dEg[p * D + d];
    }
    return loss_sum * inv_batch;
}

static void matmul(size_t M, size_t N, size_t K, const float *A, size_t ars, size_t acs, const float *B, size_t ldb,
                   float *C, size_t ldc, int accumulate)
{
    mm(M, N, K, A, ars, acs, B, ldb, C, ldc, accumulate, NULL);
}

const it_kernel_set IT_K_SET = {IT_K_NAME, expf_v, logf_v, tanhf_v, sgd, mlp13k_loss_grad, matmul};
