/* Vector set 1.2.0: profile gptchar (spec 4.6, 5.13-5.20, 7.3, 7.4, 14).
 * Groups residual, layernorm, gelu, causal_attention, tied, clip, schedule
 * and gptchar, the train file of the 500-step run, and the windows of
 * gptchar and addmod113 (FORMAT.md §6). Each claim a case rests on is
 * checked against an independent computation of the alternative. */
#include <string.h>

#include "mv.h"
#include "run_gptchar.h"

enum { CD = IT_GC_D, CNH = IT_GC_HEADS, CDH = IT_GC_DHEAD, CNF = IT_GC_MLP, CT = IT_GC_CTX, CNV = IT_GC_VOCAB };
enum { CP = IT_GC_NPARAMS, CR = IT_GC_ROWS };
#define LN_EPS F(0x3727c5acu)
#define NAN_F F(0x7fc00000u)
#define INF_F F(0x7f800000u)

/* u(word(seed, stream, i)) * scale: the "gradients" the backward cases feed */
static void stream_values(uint32_t stream, float scale, float *out, size_t n)
{
    for (size_t i = 0; i < n; i++)
        out[i] = it_u32_to_symmetric(it_rng_u32(IT_GC_SEED, stream, i)) * scale;
}

/* ---- group: residual (spec 5.13) ---- */

static void residual_case(group *g, const float *x, const float *y, size_t n, unsigned flags, const char *why)
{
    float z[64];
    require(n <= 64, "residual case too long");
    it_residual_add(x, y, n, z);
    op_case(g, "residual_add", flags, VALS(IN_F32("x", x, n), IN_F32("y", y, n), OUT_F32("z", z, n)), why);
}

static void gen_residual(void)
{
    group g;
    group_begin(&g, "residual", "5.13");
    const float x1[2] = {1.0f, F(0x3f800001u)}, y1[2] = {0x1p-24f, 0x1p-24f};
    require(is_tie(exact_sum(x1[0], y1[0])) && is_tie(exact_sum(x1[1], y1[1])), "residual tie claim");
    residual_case(&g, x1, y1, 2, FL(TIE), "the stream 1 and 1 + 2^-23 plus a branch of 2^-24: both ties, to even 1 "
                                          "and 1 + 2^-22 (spec 5.13's vector)");
    const float x2[3] = {-0.0f, -0.0f, 0.0f}, y2[3] = {-0.0f, 0.0f, -0.0f};
    residual_case(&g, x2, y2, 3, FL(SPECIAL), "signed zeros: -0 + -0 = -0, -0 + +0 = +0, +0 + -0 = +0");
    const float x3[2] = {F(0x7f7fffffu), 1.0f}, y3[2] = {F(0x7f7fffffu), NAN_F};
    residual_case(&g, x3, y3, 2, FL(OVERFLOW), "the largest finite value twice overflows to +inf; a NaN branch "
                                               "gives NaN");
    const float x4[2] = {F(0x00000001u), F(0x00800000u)}, y4[2] = {F(0x00000001u), F(0x80000001u)};
    residual_case(&g, x4, y4, 2, FL(SUBNORMAL), "subnormals add exactly: 2^-149 + 2^-149, and 2^-126 - 2^-149 is "
                                                "the largest subnormal");
    float z[CD];
    it_residual_add(gc_step1.x0, gc_step1.o, CD, z);
    require(memcmp(z, gc_step1.xmid, sizeof z) == 0, "residual rebuild: not block 0's mid-stream row 0");
    residual_case(&g, gc_step1.x0, gc_step1.o, CD, FL(REAL),
                  "block 0 of step 1, row 0 (sequence 0, position 0): the embedding row plus the attention "
                  "branch, giving the stream's next value (initial parameters)");
    group_end(&g);
}

/* ---- group: layernorm (spec 5.14, 5.15) ---- */

static void ln_fwd_case(group *g, const float *x, size_t rows, size_t n, const float *w, const float *b, float eps,
                        unsigned flags, const char *why)
{
    float *y = malloc(rows * n * sizeof *y), *xh = malloc(n * sizeof *xh), mean[64], rstd[64];
    require(y && xh && rows <= 64, "layernorm case too large");
    for (size_t r = 0; r < rows; r++)
        it_layernorm_forward(x + r * n, w, b, n, eps, y + r * n, xh, &mean[r], &rstd[r]);
    op_case(g, "layernorm_forward", flags,
            VALS(IN_INT("n", n), IN_F32("x", x, rows * n), IN_F32("w", w, n), IN_F32("b", b, n), IN_F1("eps", eps),
                 OUT_F32("y", y, rows * n), OUT_F32("mean", mean, rows), OUT_F32("rstd", rstd, rows)),
            why);
    free(y), free(xh);
}

static void ln_bwd_case(group *g, const float *x, size_t rows, size_t n, const float *w, float eps, const float *dy,
                        const float *dw0, const float *db0, unsigned flags, const char *why)
{
    float *dx = malloc(rows * n * sizeof *dx), *y = malloc(n * sizeof *y), *xh = malloc(n * sizeof *xh),
          *dw = malloc(n * sizeof *dw), *db = malloc(n * sizeof *db), *zero = calloc(n, sizeof *zero), rstd;
    require(dx && y && xh && dw && db && zero, "out of memory");
    memcpy(dw, dw0, n * sizeof *dw);
    memcpy(db, db0, n * sizeof *db);
    for (size_t r = 0; r < rows; r++) {
        it_layernorm_forward(x + r * n, w, zero, n, eps, y, xh, NULL, &rstd);
        it_layernorm_backward(xh, rstd, w, dy + r * n, n, dw, db, dx + r * n);
    }
    op_case(g, "layernorm_backward", flags,
            VALS(IN_INT("n", n), IN_F32("x", x, rows * n), IN_F32("w", w, n), IN_F1("eps", eps),
                 IN_F32("dy", dy, rows * n), IN_F32("dw", dw0, n), IN_F32("db", db0, n), OUT_F32("dw", dw, n),
                 OUT_F32("db", db, n), OUT_F32("dx", dx, rows * n)),
            why);
    free(dx), free(y), free(xh), free(dw), free(db), free(zero);
}

/* layernorm_backward's cases (spec 5.14), after the forward ones */
static void ln_bwd_cases(group *g)
{
    static const float ones[CD] = {1, 1, 1, 1}, zeros[CD];
    float ones64[CD];
    for (int i = 0; i < CD; i++)
        ones64[i] = 1.0f;
    const float x1[4] = {1, 2, 3, 4}; /* spec 5.14's row, as in the forward cases */
    const float dy1[4] = {1, 0, 0, -1};
    ln_bwd_case(g, x1, 1, 4, ones, LN_EPS, dy1, zeros, zeros, 0,
                "spec 5.15's vector: the 5.14 row with dy = [1, 0, 0, -1] into dw = db = +0");
    {
        /* A's SUM is order-sensitive when g = dy * w cancels */
        const float dyo[4] = {1e8f, 1.0f, -1e8f, 1.0f};
        require(U(sum_ascending(dyo, 4)) != U(sum_descending(dyo, 4)), "backward sum order claim");
        ln_bwd_case(g, x1, 1, 4, ones, LN_EPS, dyo, zeros, zeros, FL(ORDER),
                    "dy = [1e8, 1, -1e8, 1] (w = 1, so g = dy): the SUM of g ascending is 1, descending 0: A and "
                    "every dx differ");
    }
    {
        static float dy[4 * CD], dw0[CD], db0[CD];
        stream_values(100, 0.01f, dy, 4 * CD);
        stream_values(101, 0.1f, dw0, CD);
        stream_values(102, 0.1f, db0, CD);
        ln_bwd_case(g, gc_step1.x0, 4, CD, ones64, LN_EPS, dy, dw0, db0, FL(REAL),
                    "block 0's ln1 rows 0..3 of step 1 with dy = 0.01 u(word(seed, 100, i)); dw and db arrive "
                    "holding 0.1 u(word(seed, 101, i)) and 0.1 u(word(seed, 102, i)) and take one term per row, rows "
                    "in order");
    }
}

static void gen_layernorm(void)
{
    group g;
    group_begin(&g, "layernorm", "5.14");
    static const float ones[CD] = {1, 1, 1, 1}, zeros[CD];
    const float x1[4] = {1, 2, 3, 4};
    ln_fwd_case(&g, x1, 1, 4, ones, zeros, LN_EPS, 0, "spec 5.14's vector: x = [1, 2, 3, 4], w = 1, b = +0");
    /* the mean's SUM is order-sensitive */
    const float x2[4] = {1e8f, 1.0f, -1e8f, 1.0f};
    require(U(sum_ascending(x2, 4)) != U(sum_descending(x2, 4)), "layernorm mean order claim");
    ln_fwd_case(&g, x2, 1, 4, ones, zeros, LN_EPS, FL(ORDER),
                "x = [1e8, 1, -1e8, 1]: the mean's SUM ascending is 1 (mean 0.25), descending 0: the deviations "
                "and the output differ");
    /* the one-pass variance E[x^2] - mean^2 loses the spread of a row with a large mean */
    float x3[4] = {1000.0f, 1000.0625f, 1000.125f, 1000.1875f};
    {
        float s = 0, sq = 0;
        for (int i = 0; i < 4; i++) {
            s = s + x3[i];
            sq = sq + x3[i] * x3[i];
        }
        float mu = s / 4.0f, one_pass = sq / 4.0f - mu * mu, two_pass = 0;
        for (int i = 0; i < 4; i++)
            two_pass = two_pass + (x3[i] - mu) * (x3[i] - mu);
        two_pass = two_pass / 4.0f;
        require(U(one_pass) != U(two_pass), "one-pass variance claim");
        ln_fwd_case(&g, x3, 1, 4, ones, zeros, LN_EPS, FL(EDGE),
                    say("x = 1000 + [0, 1, 2, 3]/16: the two-pass variance is %08x; the one-pass E[x^2] - mean^2 "
                        "would be %08x",
                        (unsigned)U(two_pass), (unsigned)U(one_pass)));
    }
    /* eps inside the root against a variance of its own size */
    const float x4[4] = {0.0f, 1e-3f, 0.0f, -1e-3f};
    {
        float var = 5e-7f, inside = 1.0f / it_sqrtf(var + LN_EPS), outside = 1.0f / (it_sqrtf(var) + LN_EPS);
        require(U(inside) != U(outside), "eps placement claim");
        ln_fwd_case(&g, x4, 1, 4, ones, zeros, LN_EPS, FL(EDGE),
                    "x = [0, 1e-3, 0, -1e-3]: the variance (5e-7) is below eps; 1 / sqrt(var + eps) differs from "
                    "1 / (sqrt(var) + eps)");
    }
    const float x5[4] = {3.0f, 3.0f, 3.0f, 3.0f}, b5[4] = {0.5f, -0.5f, 0.0f, -0.0f};
    ln_fwd_case(&g, x5, 1, 4, ones, b5, LN_EPS, FL(EDGE),
                "a constant row: every deviation is +0, r = 1 / sqrt(eps), and y is b (with +0 * w + -0 = +0)");
    const float x6[4] = {1.0f, NAN_F, 2.0f, 3.0f};
    ln_fwd_case(&g, x6, 1, 4, ones, zeros, LN_EPS, 0, "a NaN in the row makes the mean and every output NaN");
    {
        const float *lw = gc_hist[0] + IT_GC_OFF_H0 + IT_GC_B_LN1_W, *lb = gc_hist[0] + IT_GC_OFF_H0 + IT_GC_B_LN1_B;
        ln_fwd_case(&g, gc_step1.x0, 4, CD, lw, lb, LN_EPS, FL(REAL),
                    "block 0's ln1 at step 1 (initial parameters: w = 1, b = +0), rows 0..3: the embeddings of "
                    "sequence 0's first four positions");
        const float *w2 = gc_hist[3] + IT_GC_OFF_H0 + IT_GC_BLOCK + IT_GC_B_LN2_W,
                    *b2 = gc_hist[3] + IT_GC_OFF_H0 + IT_GC_BLOCK + IT_GC_B_LN2_B;
        ln_fwd_case(&g, gc_step1.xmid, 4, CD, w2, b2, LN_EPS, FL(REAL),
                    "the trained gain and bias of block 1's ln2 (parameters after 300 steps) on block 0's "
                    "mid-stream rows 0..3 of step 1");
    }
    ln_bwd_cases(&g);
    group_end(&g);
}

/* ---- group: gelu (spec 5.16, 5.17) ---- */

static void gelu_cases(group *g, const float *x, const float *dy, size_t n, unsigned flags, const char *why)
{
    float *y = malloc(n * sizeof *y), *dx = malloc(n * sizeof *dx);
    require(y && dx, "out of memory");
    it_gelu_forward(x, n, y);
    op_case(g, "gelu_forward", flags, VALS(IN_F32("x", x, n), OUT_F32("y", y, n)), why);
    it_gelu_backward(x, dy, n, dx);
    op_case(g, "gelu_backward", flags, VALS(IN_F32("x", x, n), IN_F32("dy", dy, n), OUT_F32("dx", dx, n)),
            say("%s; backward", why));
    free(y), free(dx);
}

static void gen_gelu(void)
{
    group g;
    group_begin(&g, "gelu", "5.16");
    static const float one[16] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
    const float x1[8] = {1, -1, 0.5f, 3, -3, 10, 0.0f, -0.0f};
    gelu_cases(&g, x1, one, 8, FL(SPECIAL),
               "spec 5.16/5.17's vectors: 1, -1, 0.5, 3, -3, 10 (t is exactly 1), +0 and -0 (the sign survives), "
               "dy = 1");
    {
        const float xb[2] = {1e13f, -1e13f};
        require(is_inf(xb[0] * xb[0] * xb[0]), "cube overflow claim");
        gelu_cases(&g, xb, one, 2, FL(OVERFLOW),
                   "x = +-1e13: x*x*x overflows, u = +-inf, t = +-1: y = x for +1e13 and (0.5 x) * 0 = -0 for "
                   "-1e13; the backward's x*x is finite");
    }
    {
        const float xi[2] = {INF_F, F(0xff800000u)};
        gelu_cases(&g, xi, one, 2, FL(SPECIAL), "x = +inf gives +inf; x = -inf gives (-inf) * (1 + -1) = NaN");
    }
    {
        const float xs[3] = {F(0x00000001u), F(0x80000001u), 0x1p-100f};
        require(U(0.5f * xs[0]) == 0 && is_tie(0.5 * (double)xs[0]), "subnormal half claim");
        gelu_cases(&g, xs, one, 3, FL(UNDERFLOW) | FL(TIE),
                   "tiny x: 0.5 * 2^-149 ties to +0 (and -0), so y is +-0; x = 2^-100: x*x*x underflows to 0");
    }
    {
        /* c3 is its own constant, not 3 * c1 */
        float c3_derived = 3.0f * F(0x3d372713u);
        require(U(c3_derived) != 0x3e095d4fu, "c3 claim: 3 * c1 rounds to c3");
        float xs[64], dy[64];
        size_t n = 0;
        for (uint32_t k = 0; k < 4096 && n < 8; k++) {
            float x = F(0x3f800000u + k * 0x1000u);
            float t = it_tanhf(F(0x3f4c422au) * (x + F(0x3d372713u) * ((x * x) * x)));
            float left = 0.5f * (1.0f + t), s = 1.0f - t * t, hs = (0.5f * x) * s;
            float a = left + hs * (F(0x3f4c422au) * (1.0f + F(0x3e095d4fu) * (x * x)));
            float b = left + hs * (F(0x3f4c422au) * (1.0f + c3_derived * (x * x)));
            if (U(a) != U(b))
                xs[n] = x, dy[n] = 1.0f, n++;
        }
        require(n == 8, "fewer than 8 inputs separate c3 from 3 * c1");
        gelu_cases(&g, xs, dy, n, FL(EDGE),
                   "8 inputs in [1, 2) whose derivative differs when 3 * c1 stands in for the constant c3 = "
                   "0x3e095d4f (the forward is the same)");
    }
    {
        static float dy[CNF];
        stream_values(103, 0.01f, dy, CNF);
        gelu_cases(&g, gc_step1.h, dy, CNF, FL(REAL),
                   "block 0's 256 MLP pre-activations of step 1, row 0 (initial parameters); dy = 0.01 u(word(seed, "
                   "103, i))");
    }
    group_end(&g);
}

/* ---- group: causal_attention (spec 5.18, 5.19) ---- */

static void causal_cases(group *g, const float *q, const float *k, const float *v, const float *dz, size_t Tn,
                         size_t H, size_t dh, float c, unsigned fflags, unsigned bflags, const char *why)
{
    const size_t Dm = H * dh;
    float *w = malloc(Tn * H * Tn * sizeof *w), *z = malloc(Tn * Dm * sizeof *z), *dq = malloc(Tn * Dm * sizeof *dq),
          *dk = malloc(Tn * Dm * sizeof *dk), *dv = malloc(Tn * Dm * sizeof *dv);
    require(w && z && dq && dk && dv, "out of memory");
    it_causal_attention_forward(q, k, v, Tn, H, dh, c, w, z);
    op_case(g, "causal_attention_forward", fflags,
            VALS(IN_INT("heads", H), IN_INT("width", dh), IN_F1("c", c), IN_F32("q", q, Tn * Dm),
                 IN_F32("k", k, Tn * Dm), IN_F32("v", v, Tn * Dm), OUT_F32("w", w, Tn * H * Tn),
                 OUT_F32("z", z, Tn * Dm)),
            why);
    it_causal_attention_backward(q, k, v, w, dz, Tn, H, dh, c, dq, dk, dv);
    op_case(g, "causal_attention_backward", bflags,
            VALS(IN_INT("heads", H), IN_INT("width", dh), IN_F1("c", c), IN_F32("q", q, Tn * Dm),
                 IN_F32("k", k, Tn * Dm), IN_F32("v", v, Tn * Dm), IN_F32("w", w, Tn * H * Tn),
                 IN_F32("dz", dz, Tn * Dm), OUT_F32("dq", dq, Tn * Dm), OUT_F32("dk", dk, Tn * Dm),
                 OUT_F32("dv", dv, Tn * Dm)),
            say("%s; backward with the forward's weights", why));
    free(w), free(z), free(dq), free(dk), free(dv);
}

/* dk with the queries visited in descending order: the alternative the
 * backward's OrderSensitive flag is checked against */
static int dk_order_matters(const float *q, const float *k, const float *v, const float *dz, size_t Tn, size_t H,
                            size_t dh, float c)
{
    const size_t Dm = H * dh;
    float w[8 * 8 * 8], dq[64], dk[64], dv[64], wp[64], dq1[8], dk1[64], dv1[64], alt[64] = {0};
    require(Tn <= 8 && Dm <= 8 && H <= 8, "dk order case too large");
    it_causal_attention_forward(q, k, v, Tn, H, dh, c, w, dq);
    it_causal_attention_backward(q, k, v, w, dz, Tn, H, dh, c, dq, dk, dv);
    for (size_t p = Tn; p-- > 0;) {
        for (size_t h = 0; h < H; h++)
            for (size_t t = 0; t <= p; t++)
                wp[h * (p + 1) + t] = w[(p * H + h) * Tn + t];
        it_attention_backward(q + p * Dm, k, v, wp, dz + p * Dm, p + 1, H, dh, c, dq1, dk1, dv1);
        for (size_t e = 0; e < (p + 1) * Dm; e++)
            alt[e] = alt[e] + dk1[e];
    }
    return memcmp(alt, dk, Tn * Dm * sizeof(float)) != 0;
}

static void gen_causal_attention(void)
{
    group g;
    group_begin(&g, "causal_attention", "5.18");
    {
        const float q[6] = {1, 2, 1, 2, 1, 2}, k[6] = {1, 0, 0, 1, 1, 1}, v[6] = {1, 2, 3, 4, 5, 6};
        const float dz[6] = {1, 0.5f, 1, 0.5f, 1, 0.5f};
        causal_cases(&g, q, k, v, dz, 3, 1, 2, F(0x3e3504f3u), 0, 0,
                     "spec 5.18/5.19's vector: one head of width 2 over 3 positions, every query [1, 2]; its last "
                     "row is spec 5.11's single query");
    }
    {
        /* a masked key whose score would win: row 0 must stay v_0 */
        const float q[4] = {10, 0, 10, 0}, k[4] = {0, 1, 100, 0}, v[4] = {1, 2, 3, 4}, dz[4] = {1, 1, 1, 1};
        float w[8], z[4];
        it_causal_attention_forward(q, k, v, 2, 1, 2, 1.0f, w, z);
        require(U(w[0]) == 0x3f800000u && U(z[0]) == U(v[0]) && U(w[3]) == 0x3f800000u, "masked row claim");
        causal_cases(&g, q, k, v, dz, 2, 1, 2, 1.0f, FL(EDGE), FL(EDGE),
                     "a masked row: query 0's score against key 1 would be 1000, yet key 1 is later, so row 0 "
                     "attends to itself alone (weight 1, z_0 = v_0); row 1 puts all its weight on key 1 (exp(-1000) "
                     "is +0)");
    }
    {
        const float q[2] = {3, -1}, k[2] = {7, 7}, v[2] = {F(0x00000001u), -0.0f}, dz[2] = {1, 1};
        causal_cases(&g, q, k, v, dz, 1, 1, 2, 0.5f, FL(EDGE), FL(EDGE),
                     "a context of one position: w = [1] exactly and z = v, subnormal and -0 included");
    }
    {
        /* every weight 1/3 at query 2; v's first column cancels in ascending order only */
        const float q[6] = {0, 0, 0, 0, 0, 0}, k[6] = {1, 0, 0, 1, 1, 1}, v[6] = {1e8f, 3, 1e8f, 3, 3, 3};
        const float dz[6] = {1, -1, 1, -1, 1, -1};
        float w[9], z[6], zr[2];
        it_causal_attention_forward(q, k, v, 3, 1, 2, 0.5f, w, z);
        for (int j = 0; j < 2; j++) {
            float acc = 0.0f;
            for (int t = 2; t >= 0; t--)
                acc = acc + w[6 + t] * v[t * 2 + j];
            zr[j] = acc;
        }
        require(memcmp(zr, z + 4, sizeof zr) != 0, "causal value sum order claim");
        causal_cases(&g, q, k, v, dz, 3, 1, 2, 0.5f, FL(ORDER), 0,
                     "q = 0, so query 2 weighs its three keys RN(1/3) each; v[.][0] = 1e8, 1e8, 3: summed in "
                     "descending key order row 2 gives other bits (spec 5.18 step 3)");
    }
    {
        /* dk summed over the queries in descending order differs */
        float q[16], k[16], v[16], dz[16];
        int found = 0;
        for (uint32_t s = 0; s < 64 && !found; s++) {
            for (int i = 0; i < 16; i++) {
                q[i] = 4 * it_u32_to_symmetric(it_rng_u32(IT_GC_SEED, 104 + s, (uint64_t)i));
                k[i] = 4 * it_u32_to_symmetric(it_rng_u32(IT_GC_SEED, 104 + s, (uint64_t)i + 16));
                v[i] = it_u32_to_symmetric(it_rng_u32(IT_GC_SEED, 104 + s, (uint64_t)i + 32));
                dz[i] = it_u32_to_symmetric(it_rng_u32(IT_GC_SEED, 104 + s, (uint64_t)i + 48));
            }
            found = dk_order_matters(q, k, v, dz, 8, 1, 2, 0.5f);
            if (found)
                causal_cases(&g, q, k, v, dz, 8, 1, 2, 0.5f, 0, FL(ORDER),
                             say("8 positions of one head of width 2 (q, k = 4 u, v, dz = u of words 0..63 of stream "
                                 "%u): the key gradients summed over the queries in descending order give other bits "
                                 "(spec 5.19)",
                                 (unsigned)(104 + s)));
        }
        require(found, "no seed stream separates the dk order");
    }
    {
        const float q[4] = {100, 0, 100, 0}, k[4] = {1, 0, -1, 0}, v[4] = {1, 2, 3, 4}, dz[4] = {1, 0.5f, 1, 0.5f};
        causal_cases(&g, q, k, v, dz, 2, 1, 2, 1.0f, FL(UNDERFLOW), 0,
                     "scores 100 and -100 at query 1 with c = 1: exp(-200) underflows, key 1 gets weight +0 while "
                     "unmasked");
    }
    {
        static float dz[CT * CD];
        stream_values(105, 0.01f, dz, CT * CD);
        causal_cases(&g, gc_step1.q, gc_step1.k, gc_step1.v, dz, CT, CNH, CDH, F(0x3e800000u), FL(REAL), FL(REAL),
                     "block 0 at step 1, sequence 0: the 32 positions' q, k, v (4 heads of 16, initial parameters), "
                     "c = 0.25; dz = 0.01 u(word(seed, 105, i))");
    }
    group_end(&g);
}

/* ---- group: tied (spec 5.20) ---- */

static void tied_case(group *g, const float *f, const float *dlogits, const uint32_t *tokens, const float *dx,
                      size_t m, size_t nv, size_t dim, unsigned flags, const char *why)
{
    float *de = malloc(nv * dim * sizeof *de);
    require(de, "out of memory");
    it_tied_embedding_grad(f, dlogits, tokens, dx, m, nv, dim, de);
    op_case(g, "tied_embedding_grad", flags,
            VALS(IN_INT("dim", dim), IN_F32("f", f, m * dim), IN_F32("dlogits", dlogits, m * nv),
                 IN_INTS("tokens", tokens, m), IN_F32("dx", dx, m * dim), OUT_F32("de", de, nv * dim)),
            why);
    free(de);
}

static void gen_tied(void)
{
    group g;
    group_begin(&g, "tied", "5.20");
    {
        const float f[4] = {1, 2, 3, 4}, dl[4] = {0.5f, -0.5f, 0.25f, -0.25f}, dx[4] = {1, 1, 1, 1};
        const uint32_t tk[2] = {1, 1};
        tied_case(&g, f, dl, tk, dx, 2, 2, 2, 0, "spec 5.20's vector: two rows of width 2, both of token 1");
    }
    {
        /* the output side cancels to 0 before the input side's 1 + 1 arrive; input first gives 0 */
        const float f[2] = {1e8f, -1e8f}, dl[2] = {1, 1}, dx[2] = {1, 1};
        const uint32_t tk[2] = {0, 0};
        float out_first = ((0.0f + 1e8f) + -1e8f) + 1.0f + 1.0f, in_first = (((0.0f + 1.0f) + 1.0f) + 1e8f) + -1e8f;
        require(U(out_first) != U(in_first), "tied order claim");
        tied_case(&g, f, dl, tk, dx, 2, 1, 1, FL(ORDER),
                  "one token, dim 1: the output side 1e8 + -1e8 = 0 comes first, then the input side adds 1 and 1: "
                  "2; the input side first gives (2 + 1e8) - 1e8 = 0");
    }
    {
        const float f[2] = {-0.0f, 0.0f}, dl[2] = {1, 1}, dx[2] = {-0.0f, -0.0f};
        const uint32_t tk[1] = {1};
        tied_case(&g, f, dl, tk, dx, 1, 2, 2, FL(SPECIAL),
                  "signed zeros: the output side is a SUM from +0 (+0 even for a -0 product); the input side's -0 "
                  "leaves it +0; row 0 of the vocabulary has no input term");
    }
    {
        /* the real wte gradient of step 1 */
        static float de[CNV * CD];
        it_tied_embedding_grad(gc_step1.lnf, gc_step1.dlogits, gc_x1, gc_step1.dx0, CR, CNV, CD, de);
        require(memcmp(de, gc_grad1 + IT_GC_OFF_WTE, sizeof de) == 0, "tied rebuild: not the wte gradient of step 1");
        tied_case(&g, gc_step1.lnf, gc_step1.dlogits, gc_x1, gc_step1.dx0, CR, CNV, CD, FL(REAL),
                  "the wte gradient of step 1 (initial parameters, all 512 rows): the final LayerNorm's output, "
                  "the logits' gradient, the input tokens and the embedding rows' gradient; equal to the wte part "
                  "of gptchar_loss_grad's gradient");
    }
    group_end(&g);
}

/* ---- group: clip (spec 7.3) ---- */

static void clip_case(group *g, const float *g0, size_t n, float mx, unsigned flags, const char *why)
{
    float *gr = malloc(n * sizeof *gr);
    require(gr, "out of memory");
    memcpy(gr, g0, n * sizeof *gr);
    float norm = it_clip_grad_norm(gr, n, mx, F(0x358637bdu));
    op_case(g, "clip_grad_norm", flags,
            VALS(IN_F32("g", g0, n), IN_F1("max_norm", mx), IN_F1("eps", F(0x358637bdu)), OUT_F32("g", gr, n),
                 OUT_F1("norm", norm)),
            why);
    free(gr);
}

static void gen_clip(void)
{
    group g;
    group_begin(&g, "clip", "7.3");
    const float g1[2] = {3, 4};
    clip_case(&g, g1, 2, 1.0f, 0, "spec 7.3's vector: [3, 4], norm 5, each element times RN(1 / RN(5 + 1e-6))");
    const float g2[2] = {0.25f, 0.5f};
    clip_case(&g, g2, 2, 1.0f, FL(EDGE), "norm below the bound: the factor is above 1 and g is unchanged");
    {
        float g3[9] = {4096, 1, 1, 1, 1, 1, 1, 1, 1};
        float sq[9];
        for (int i = 0; i < 9; i++)
            sq[i] = g3[i] * g3[i];
        require(U(it_sqrtf(sum_ascending(sq, 9))) != U(it_sqrtf(sum_pairwise(sq, 9))), "clip order claim");
        clip_case(&g, g3, 9, 1.0f, FL(ORDER),
                  "[4096, 1 x 8]: the squares 2^24 then eight 1s; ascending each 1 ties back to 2^24 (norm 4096), "
                  "summed in halves or pairwise the 1s meet first and the norm is larger");
    }
    const float g4[1] = {1.0f};
    clip_case(&g, g4, 1, 1.0f, FL(EDGE), "norm exactly at the bound 1: the factor 1 / (1 + 1e-6) is below 1, so g is "
                                         "scaled (as PyTorch does)");
    const float g5[3] = {0.0f, -0.0f, 0.0f};
    clip_case(&g, g5, 3, 1.0f, FL(SPECIAL), "a zero gradient: norm +0, the factor 1e6 is above 1, g (signed zeros "
                                            "included) unchanged");
    const float g6[2] = {1.0f, NAN_F};
    clip_case(&g, g6, 2, 1.0f, 0, "a NaN element: the norm is NaN, k < 1 is false, g is unchanged");
    const float g7[2] = {F(0x1f800000u), F(0x1f800000u)};
    clip_case(&g, g7, 2, F(0x00000001u), FL(UNDERFLOW),
              "g = 2^-64 twice: the squares underflow to +0, norm +0; with the bound 2^-149 the factor is "
              "2^-149 / 1e-6, below 1, and g underflows on scaling");
    clip_case(&g, gc_grad1, CP, 1.0f, FL(REAL),
              "the whole step-1 gradient of gptchar (106,176 values, initial parameters): norm 2.58, clipped to 1");
    group_end(&g);
}

/* ---- group: schedule (spec 7.4) ---- */

static void gen_schedule(void)
{
    group g;
    group_begin(&g, "schedule", "7.4");
    static const struct {
        uint32_t t, w, s;
        unsigned flags;
        const char *why;
    } cs[] = {
        {1, 50, 500, FL(EDGE), "gptchar's first step: lr_max * (1 / 50)"},
        {2, 50, 500, 0, "step 2 of the warm-up: lr_max * RN(2 / 50)"},
        {49, 50, 500, 0, "the last step before the peak"},
        {50, 50, 500, FL(EDGE), "the peak: 50 / 50 = 1 exactly, lr = lr_max"},
        {51, 50, 500, FL(EDGE), "the first step of the decay: lr_max * RN(450 / 451)"},
        {250, 50, 500, 0, "the middle of the decay"},
        {500, 50, 500, FL(EDGE), "the last step: lr_max * RN(1 / 451), not 0"},
        {1, 1, 1, FL(EDGE), "a one-step schedule: the warm-up's single step is the peak"},
        {7, 7, 7, FL(EDGE), "no decay at all: the warm-up ends at the last step"},
        {3, 1, 10, 0, "a one-step warm-up, then step 3 of a decay over 10"},
    };
    const float lr = F(0x3b449ba6u);
    for (size_t i = 0; i < sizeof cs / sizeof cs[0]; i++)
        op_case(&g, "lr_schedule", cs[i].flags,
                VALS(IN_INT("step", cs[i].t), IN_INT("warmup", cs[i].w), IN_INT("total", cs[i].s), IN_F1("lr_max", lr),
                     OUT_F1("lr", it_lr_schedule(cs[i].t, cs[i].w, cs[i].s, lr))),
                cs[i].why);
    /* the decay's quotient is not (S - t) / (S - W): step 500 would get 0 */
    require(U(it_lr_schedule(500, 50, 500, lr)) != 0, "the last step's rate is 0");
    group_end(&g);
}

/* ---- group: gptchar (spec 14.3-14.6) ---- */

static void gen_gptchar_profile(void)
{
    group g;
    group_begin(&g, it_profile_gptchar.name, it_profile_gptchar.clause);
    for (int t = 0; t < IT_GC_NTENSORS; t++) {
        const it_tensor_info *ti = &it_gptchar_tensors[t];
        op_case(&g, "gptchar_init", FL(TYPICAL),
                VALS(IN_NAME("tensor", ti->name), OUT_F32("values", gc_hist[0] + ti->offset, ti->rows * ti->cols)),
                say("initial %s (%zu x %zu), stream %d (spec 14.4)", ti->name, ti->rows, ti->cols, t));
    }
    static const uint32_t steps[4] = {1, 2, 250, 500};
    static uint32_t x[CR], y[CR];
    for (int i = 0; i < 4; i++) {
        it_gptchar_batch(IT_GC_SEED, steps[i], x, y);
        if (steps[i] == 1)
            require(memcmp(x, gc_x1, sizeof x) == 0, "batch 1 differs from the run's");
        op_case(&g, "gptchar_batch", FL(TYPICAL), VALS(IN_INT("step", steps[i]), OUT_INTS("x", x, CR), OUT_INTS("y", y, CR)),
                say("the input and target tokens of step %u (16 sequences of 32, sampling words %u..%u of stream 64)",
                    (unsigned)steps[i], (unsigned)(steps[i] - 1) * 16, (unsigned)steps[i] * 16 - 1));
    }
    static float grads[CP];
    float loss = it_gptchar_loss_grad(gc_hist[0], gc_x1, gc_y1, IT_GC_SEQS, grads);
    require(U(loss) == gc_loss[1] && memcmp(grads, gc_grad1, sizeof grads) == 0, "loss_grad step 1 disagrees");
    op_case(&g, "gptchar_loss_grad", FL(REAL),
            VALS(IN_F32("params", gc_hist[0], CP), IN_INTS("x", gc_x1, CR), IN_INTS("y", gc_y1, CR), OUT_F1("loss", loss),
                 OUT_F32("grads", grads, CP)),
            "the initial parameters and the batch of step 1 (16 sequences, s = 2^-9): the first gradient of the "
            "profile, before clipping");
    it_gptchar_batch(IT_GC_SEED, 251, x, y);
    loss = it_gptchar_loss_grad(gc_state[0][0], x, y, 3, grads);
    require((double)(1.0f / 96.0f) != 1.0 / 96.0, "1/96 is exact in binary32");
    op_case(&g, "gptchar_loss_grad", FL(REAL) | FL(EDGE),
            VALS(IN_F32("params", gc_state[0][0], CP), IN_INTS("x", x, 3 * CT), IN_INTS("y", y, 3 * CT),
                 OUT_F1("loss", loss), OUT_F32("grads", grads, CP)),
            "the parameters after 250 steps and the first 3 sequences of step 251's batch: s = RN(1/96), "
            "inexact");
    group_end(&g);
}

/* ---- train/gptchar.json, and the windows ---- */

/* The claim the windows rest on (spec 8.4): the library resumed from the
 * state files just written gives the golden digest at every step of the
 * window. */
static void check_window(const it_profile *p, uint32_t from, uint32_t to, const char *(*digest)(uint32_t))
{
    const char *profile = p->name;
    char dir[4096], err[512], line[512];
    snprintf(dir, sizeof dir, "%s/windows/%s", outdir, profile);
    FILE *trace = tmpfile();
    require(trace, "tmpfile");
    it_run_options o = {to, trace, NULL, NULL, 0, NULL, 0, dir, from};
    it_train_config c = it_train_config_default(p);
    c.threads = 2; /* any count: the same bits */
    c.eval = 0;
    it_train_state *s = it_train_state_new(p);
    require(s, "out of memory");
    it_status st = it_train_run_profile(p, &c, &o, NULL, s, err, sizeof err);
    it_train_state_free(s);
    require(st == IT_OK, "%s window %u: resuming failed: %s", profile, (unsigned)from, err);
    rewind(trace);
    uint32_t seen = 0;
    while (fgets(line, sizeof line, trace)) {
        unsigned step;
        const char *d = strstr(line, "digest=");
        if (sscanf(line, "step=%u ", &step) != 1 || !d)
            continue;
        require(strncmp(d + 7, digest(step), 64) == 0, "%s window %u: step %u resumed to another digest", profile,
                (unsigned)from, step);
        seen++;
    }
    fclose(trace);
    require(seen == to - from + 1, "%s window %u: %u trace lines", profile, (unsigned)from, (unsigned)seen);
}

static void gen_gptchar_train(void)
{
    static const uint32_t ck_steps[GC_CKPTS] = {0, 100, 200, 300, 400, 500};
    const float *ck_params[GC_CKPTS];
    for (int i = 0; i < GC_CKPTS; i++)
        ck_params[i] = gc_hist[i];
    unsigned char d[32];
    char corpus_hex[65];
    it_sha256(it_gptchar_corpus, it_gptchar_corpus_len, d);
    it_hex(d, 32, corpus_hex);
    const it_profile *gp = &it_profile_gptchar, *ap = &it_profile_addmod113;
    const train_file tf = {gp->name, it_gptchar_tensors, IT_GC_NTENSORS, CP, corpus_hex, IT_GC_STEPS,
                           gc_loss, gc_digest, ck_steps, GC_CKPTS, ck_params};
    emit_train_file(&tf, gp->clause);
    /* the windows of the table (profiles.c); the states were kept at their
     * starts by gc_train and the addmod113 run */
    require(gp->n_windows == 3 && ap->n_windows == 3, "three windows a profile");
    const it_window *g = gp->windows, *a = ap->windows;
    const window_desc gw[3] = {{g[0].from, g[0].to, NULL, NULL, NULL},
                               {g[1].from, g[1].to, gc_state[0][0], gc_state[0][1], gc_state[0][2]},
                               {g[2].from, g[2].to, gc_state[1][0], gc_state[1][1], gc_state[1][2]}};
    emit_windows(gp->name, CP, 1, gw, 3, gc_digest);
    const window_desc aw[3] = {
        {a[0].from, a[0].to, NULL, NULL, NULL},
        {a[1].from, a[1].to, am_window_state[0][0], am_window_state[0][1], am_window_state[0][2]},
        {a[2].from, a[2].to, am_window_state[1][0], am_window_state[1][1], am_window_state[1][2]}};
    emit_windows(ap->name, IT_AM_NPARAMS, 1, aw, 3, am_digest);
    for (int i = 1; i < 3; i++) {
        check_window(gp, gw[i].from, gw[i].to, gc_trace_digest);
        check_window(ap, aw[i].from, aw[i].to, am_trace_digest);
    }
}

/* The groups, the train file and the windows of set 1.2.0, in file order. */
void gen_gptchar(void)
{
    gc_train();
    gen_residual();
    gen_layernorm();
    gen_gelu();
    gen_causal_attention();
    gen_tied();
    gen_clip();
    gen_schedule();
    gen_gptchar_profile();
    gen_gptchar_train();
}
