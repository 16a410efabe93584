/* Profile gptchar (spec §5.13-§5.20, §7.3, §7.4, §14): the corpus and its
 * vocabulary, each layer's backward against central finite differences of an
 * independent double-precision forward (LayerNorm, GELU, causal attention,
 * and the whole model with its tied embedding), with a negative control; the
 * clip and the schedule at their edges; the kernel sets against each other.
 * The calculus is checked here; the bits are pinned by the vectors. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "isotrain_reduce.h"
#include "testutil.h"

enum { V = IT_GC_VOCAB, D = IT_GC_D, H = IT_GC_HEADS, DH = IT_GC_DHEAD, F = IT_GC_MLP, T = IT_GC_CTX, L = IT_GC_LAYERS };

static const double PI = 3.14159265358979323846;

/* |analytic - numeric| <= atol + rtol * max(|analytic|, |numeric|) */
static int close_enough(double analytic, double numeric, double atol, double rtol)
{
    return fabs(analytic - numeric) <= atol + rtol * fmax(fabs(analytic), fabs(numeric));
}

/* ---- §14.3: the corpus ---- */

Test(gptchar, corpus_is_the_specified_text)
{
    unsigned char d[32];
    char hex[65];
    it_sha256(it_gptchar_corpus, it_gptchar_corpus_len, d);
    it_hex(d, 32, hex);
    cr_assert_str_eq(hex, "6343711c323925b51dad498c2c437e4925b6fc8487d95fccfb1d39f53863dddc");
    cr_assert(it_gptchar_corpus_len >= 32768, "%zu bytes", it_gptchar_corpus_len);
    for (size_t i = 0; i < it_gptchar_corpus_len; i++) {
        unsigned char c = it_gptchar_corpus[i];
        cr_assert(c == '\n' || (c >= 0x20 && c <= 0x7e), "byte %zu is 0x%02x", i, c);
    }
    unsigned char bytes[256];
    int tok[256];
    cr_assert_eq(it_gptchar_vocab(bytes, tok), (size_t)V);
    for (int v = 1; v < V; v++)
        cr_assert(bytes[v - 1] < bytes[v], "the vocabulary ascends");
    cr_assert_eq(bytes[0], '\n');
    cr_assert_eq(tok['\n'], 0);
    cr_assert_eq(tok['z'], V - 1);
    cr_assert_eq(tok['\t'], -1);
}

Test(gptchar, batch_tokens_are_the_corpus_shifted_by_one)
{
    static uint32_t x[IT_GC_ROWS], y[IT_GC_ROWS];
    it_gptchar_batch(IT_GC_SEED, 1, x, y);
    for (size_t b = 0; b < IT_GC_SEQS; b++)
        for (size_t t = 0; t + 1 < T; t++)
            cr_assert_eq(y[b * T + t], x[b * T + t + 1]);
    static uint32_t x2[IT_GC_ROWS], y2[IT_GC_ROWS];
    it_gptchar_batch(IT_GC_SEED, 2, x2, y2);
    cr_assert(memcmp(x, x2, sizeof x) != 0, "step 2 draws another batch");
}

/* ---- §5.14/§5.15: LayerNorm ---- */

static double ln_loss_d(const double *x, const double *w, const double *b, const double *c, size_t n)
{
    double mu = 0, var = 0, out = 0;
    for (size_t i = 0; i < n; i++)
        mu += x[i];
    mu /= (double)n;
    for (size_t i = 0; i < n; i++)
        var += (x[i] - mu) * (x[i] - mu);
    var /= (double)n;
    double r = 1.0 / sqrt(var + 1e-5);
    for (size_t i = 0; i < n; i++)
        out += c[i] * ((x[i] - mu) * r * w[i] + b[i]);
    return out;
}

/* a probe loss sum(c * y): its gradient with respect to y is c */
Test(gptchar, layernorm_backward_matches_finite_differences)
{
    enum { N = 64 };
    float x[N], w[N], b[N], c[N], y[N], xh[N], dx[N], dw[N] = {0}, db[N] = {0}, rstd;
    double xd[N], wd[N], bd[N], cd[N];
    for (int i = 0; i < N; i++) {
        x[i] = it_u32_to_symmetric(it_rng_u32(7, 0, i)) * 3.0f + 0.5f;
        w[i] = 1.0f + 0.5f * it_u32_to_symmetric(it_rng_u32(7, 1, i));
        b[i] = 0.1f * it_u32_to_symmetric(it_rng_u32(7, 2, i));
        c[i] = it_u32_to_symmetric(it_rng_u32(7, 3, i));
        xd[i] = x[i], wd[i] = w[i], bd[i] = b[i], cd[i] = c[i];
    }
    it_layernorm_forward(x, w, b, N, F(0x3727c5ac), y, xh, NULL, &rstd);
    it_layernorm_backward(xh, rstd, w, c, N, dw, db, dx);
    const double h = 1e-5;
    size_t bad = 0;
    for (int i = 0; i < N; i++) {
        double *vars[3] = {xd, wd, bd};
        const float *an[3] = {dx, dw, db};
        for (int k = 0; k < 3; k++) {
            double saved = vars[k][i];
            vars[k][i] = saved + h;
            double up = ln_loss_d(xd, wd, bd, cd, N);
            vars[k][i] = saved - h;
            double down = ln_loss_d(xd, wd, bd, cd, N);
            vars[k][i] = saved;
            if (!close_enough(an[k][i], (up - down) / (2 * h), 1e-5, 1e-3) && bad++ < 5)
                cr_log_error("d%c[%d]: %g vs %g", "xwb"[k], i, (double)an[k][i], (up - down) / (2 * h));
        }
    }
    cr_assert_eq(bad, 0);
}

/* ---- §5.16/§5.17: GELU ---- */

static double gelu_d(double x) { return 0.5 * x * (1 + tanh(sqrt(2 / PI) * (x + 0.044715 * x * x * x))); }

Test(gptchar, gelu_matches_its_definition_and_its_derivative)
{
    size_t bad = 0;
    for (int i = 0; i < 2000; i++) {
        float x = 6.0f * it_u32_to_symmetric(it_rng_u32(9, 0, i)), y, dx, one = 1.0f;
        it_gelu_forward(&x, 1, &y);
        it_gelu_backward(&x, &one, 1, &dx);
        const double h = 1e-5;
        double num = (gelu_d(x + h) - gelu_d(x - h)) / (2 * h);
        if ((!close_enough(y, gelu_d(x), 1e-6, 1e-4) || !close_enough(dx, num, 1e-5, 1e-3)) && bad++ < 5)
            cr_log_error("x=%a: y %g vs %g, dx %g vs %g", (double)x, (double)y, gelu_d(x), (double)dx, num);
    }
    cr_assert_eq(bad, 0);
}

/* ---- §5.18/§5.19: causal attention ---- */

enum { AT = 8, AH = 2, AW = 4, AD = AH * AW };

/* §5.18 in binary64: z of q, k, v (nt rows of nh heads of dh each), every
 * position attending to itself and the ones before, scores times scale */
static void causal_attention_d(const double *q, const double *k, const double *v, int nt, int nh, int dh, double scale,
                               double *z)
{
    const int w = nh * dh;
    double s[64];
    cr_assert(nt <= 64);
    for (int p = 0; p < nt; p++)
        for (int h = 0; h < nh; h++) {
            double m = -INFINITY, S = 0;
            for (int t = 0; t <= p; t++) {
                s[t] = 0;
                for (int j = 0; j < dh; j++)
                    s[t] += q[p * w + h * dh + j] * k[t * w + h * dh + j];
                s[t] *= scale;
                m = fmax(m, s[t]);
            }
            for (int t = 0; t <= p; t++)
                S += exp(s[t] - m);
            for (int j = 0; j < dh; j++) {
                double zj = 0;
                for (int t = 0; t <= p; t++)
                    zj += exp(s[t] - m) / S * v[t * w + h * dh + j];
                z[p * w + h * dh + j] = zj;
            }
        }
}

static double attn_loss_d(const double *q, const double *k, const double *v, const double *c)
{
    double z[AT * AD], out = 0;
    causal_attention_d(q, k, v, AT, AH, AW, 0.5 /* 1/sqrt(4) */, z);
    for (int i = 0; i < AT * AD; i++)
        out += c[i] * z[i];
    return out;
}

Test(gptchar, causal_attention_backward_matches_finite_differences)
{
    float q[AT * AD], k[AT * AD], v[AT * AD], c[AT * AD], w[AT * AH * AT], z[AT * AD], dq[AT * AD], dk[AT * AD],
        dv[AT * AD];
    double qd[AT * AD], kd[AT * AD], vd[AT * AD], cd[AT * AD];
    for (int i = 0; i < AT * AD; i++) {
        q[i] = 2 * it_u32_to_symmetric(it_rng_u32(11, 0, i)), k[i] = 2 * it_u32_to_symmetric(it_rng_u32(11, 1, i));
        v[i] = it_u32_to_symmetric(it_rng_u32(11, 2, i)), c[i] = it_u32_to_symmetric(it_rng_u32(11, 3, i));
        qd[i] = q[i], kd[i] = k[i], vd[i] = v[i], cd[i] = c[i];
    }
    it_causal_attention_forward(q, k, v, AT, AH, AW, 0.5f, w, z);
    /* the first query sees only itself: weight 1, output its value */
    for (int h = 0; h < AH; h++) {
        assert_bits(w[h * AT], 0x3f800000);
        for (int t = 1; t < AT; t++)
            assert_bits(w[h * AT + t], 0x00000000);
    }
    for (int j = 0; j < AD; j++)
        assert_bits(z[j], B(v[j]));
    it_causal_attention_backward(q, k, v, w, c, AT, AH, AW, 0.5f, dq, dk, dv);
    const double h = 1e-5;
    size_t bad = 0;
    double *vars[3] = {qd, kd, vd};
    const float *an[3] = {dq, dk, dv};
    for (int kind = 0; kind < 3; kind++)
        for (int i = 0; i < AT * AD; i++) {
            double saved = vars[kind][i];
            vars[kind][i] = saved + h;
            double up = attn_loss_d(qd, kd, vd, cd);
            vars[kind][i] = saved - h;
            double down = attn_loss_d(qd, kd, vd, cd);
            vars[kind][i] = saved;
            if (!close_enough(an[kind][i], (up - down) / (2 * h), 1e-5, 1e-3) && bad++ < 5)
                cr_log_error("d%c[%d]: %g vs %g", "qkv"[kind], i, (double)an[kind][i], (up - down) / (2 * h));
        }
    cr_assert_eq(bad, 0);
    /* the last key is seen by the last query only: its gradient is that query's term */
    float dq1[AD], dk1[AT * AD], dv1[AT * AD], w1[AH * AT];
    for (int hh = 0; hh < AH; hh++)
        for (int t = 0; t < AT; t++)
            w1[hh * AT + t] = w[((AT - 1) * AH + hh) * AT + t];
    it_attention_backward(q + (AT - 1) * AD, k, v, w1, c + (AT - 1) * AD, AT, AH, AW, 0.5f, dq1, dk1, dv1);
    for (int j = 0; j < AD; j++) {
        assert_bits(dk[(AT - 1) * AD + j], B(0.0f + dk1[(AT - 1) * AD + j]));
        assert_bits(dq[(AT - 1) * AD + j], B(dq1[j]));
    }
}

/* ---- §14.6: the whole model against a double forward ---- */

static void ln_d(const double *x, const double *w, const double *b, double *y)
{
    double mu = 0, var = 0;
    for (int i = 0; i < D; i++)
        mu += x[i];
    mu /= D;
    for (int i = 0; i < D; i++)
        var += (x[i] - mu) * (x[i] - mu);
    var /= D;
    double r = 1.0 / sqrt(var + 1e-5);
    for (int i = 0; i < D; i++)
        y[i] = (x[i] - mu) * r * w[i] + b[i];
}

static void lin_d(const double *x, const double *W, const double *b, int in, int out, double *y)
{
    for (int o = 0; o < out; o++) {
        double a = b ? b[o] : 0;
        for (int i = 0; i < in; i++)
            a += W[o * in + i] * x[i];
        y[o] = a;
    }
}

/* mean cross-entropy of one sequence, all in double with libm */
static double model_loss_d(const double *p, const uint32_t *x, const uint32_t *y)
{
    static double X[T][D], A[T][D], Q[T][D], K[T][D], Vv[T][D], Z[T][D], O[D], Hh[F], G[F], M[D], lg[V];
    const double *wte = p + IT_GC_OFF_WTE, *wpe = p + IT_GC_OFF_WPE;
    for (int t = 0; t < T; t++)
        for (int c = 0; c < D; c++)
            X[t][c] = wte[x[t] * D + c] + wpe[t * D + c];
    for (int l = 0; l < L; l++) {
        const double *bp = p + IT_GC_OFF_H0 + (size_t)l * IT_GC_BLOCK;
        for (int t = 0; t < T; t++) {
            ln_d(X[t], bp + IT_GC_B_LN1_W, bp + IT_GC_B_LN1_B, A[t]);
            lin_d(A[t], bp + IT_GC_B_Q_W, bp + IT_GC_B_Q_B, D, D, Q[t]);
            lin_d(A[t], bp + IT_GC_B_K_W, bp + IT_GC_B_K_B, D, D, K[t]);
            lin_d(A[t], bp + IT_GC_B_V_W, bp + IT_GC_B_V_B, D, D, Vv[t]);
        }
        causal_attention_d(&Q[0][0], &K[0][0], &Vv[0][0], T, H, DH, 0.25, &Z[0][0]);
        for (int t = 0; t < T; t++) {
            lin_d(Z[t], bp + IT_GC_B_O_W, bp + IT_GC_B_O_B, D, D, O);
            for (int c = 0; c < D; c++)
                X[t][c] += O[c];
            ln_d(X[t], bp + IT_GC_B_LN2_W, bp + IT_GC_B_LN2_B, A[t]);
            lin_d(A[t], bp + IT_GC_B_FC_W, bp + IT_GC_B_FC_B, D, F, Hh);
            for (int f = 0; f < F; f++)
                G[f] = gelu_d(Hh[f]);
            lin_d(G, bp + IT_GC_B_PROJ_W, bp + IT_GC_B_PROJ_B, F, D, M);
            for (int c = 0; c < D; c++)
                X[t][c] += M[c];
        }
    }
    double total = 0;
    for (int t = 0; t < T; t++) {
        ln_d(X[t], p + IT_GC_OFF_LNF_W, p + IT_GC_OFF_LNF_B, A[t]);
        lin_d(A[t], wte, NULL, D, V, lg);
        double m = -INFINITY, S = 0;
        for (int v = 0; v < V; v++)
            m = fmax(m, lg[v]);
        for (int v = 0; v < V; v++)
            S += exp(lg[v] - m);
        total += log(S) - (lg[y[t]] - m);
    }
    return total / T;
}

static float gc_params[IT_GC_NPARAMS], gc_grads[IT_GC_NPARAMS];
static uint32_t gc_x[IT_GC_ROWS], gc_y[IT_GC_ROWS];

/* the parameters after 3 steps of the run, so the LayerNorm gains and the
 * biases are no longer exactly 1 and 0 */
static void model_setup(void)
{
    static it_gptchar_state s;
    it_gptchar_recipe r = {IT_GC_SEED};
    it_run_options o = {3, NULL, NULL, NULL, 0, NULL, 0, NULL, 0};
    char err[256];
    cr_assert_eq(it_gptchar_run(&r, &o, &s, err, sizeof err), IT_OK, "%s", err);
    memcpy(gc_params, s.params, sizeof gc_params);
    it_gptchar_batch(IT_GC_SEED, 4, gc_x, gc_y);
    it_gptchar_loss_grad(gc_params, gc_x, gc_y, 1, gc_grads);
}

/* indices in every tensor: a stride, plus the wte rows of the sequence's tokens */
static size_t model_indices(size_t *idx, size_t cap)
{
    size_t n = 0;
    for (size_t t = 0; t < IT_GC_NTENSORS; t++) {
        const it_tensor_info *ti = &it_gptchar_tensors[t];
        size_t len = ti->rows * ti->cols, stride = len / 6 + 1;
        for (size_t i = t % 5; i < len && n < cap; i += stride)
            idx[n++] = ti->offset + i;
    }
    for (size_t i = 0; i < 8 && n < cap; i++)
        idx[n++] = IT_GC_OFF_WTE + gc_x[3 * i] * D + (i * 7) % D;
    return n;
}

/* The loss of the checked batch (gc_x, gc_y), for test_central_diff. */
static double batch_loss(const double *p, const void *ctx)
{
    (void)ctx;
    return model_loss_d(p, gc_x, gc_y);
}

static size_t model_gradcheck(const float *grads, const size_t *idx, size_t n, size_t *worst)
{
    static double p[IT_GC_NPARAMS];
    for (size_t i = 0; i < IT_GC_NPARAMS; i++)
        p[i] = gc_params[i];
    const double h = 1e-3;
    size_t bad = 0;
    for (size_t k = 0; k < n; k++) {
        size_t i = idx[k];
        double num = test_central_diff(p, i, h, batch_loss, NULL);
        if (!close_enough(grads[i], num, 2e-6, 2e-2)) {
            if (bad++ < 5)
                cr_log_info("param %zu: analytic %g numeric %g", i, (double)grads[i], num);
            *worst = i;
        }
    }
    return bad;
}

Test(gptchar, model_backward_matches_finite_differences, .init = model_setup, .timeout = 300)
{
    size_t idx[512], worst = 0;
    size_t n = model_indices(idx, 512);
    cr_assert(n > 200);
    size_t bad = model_gradcheck(gc_grads, idx, n, &worst);
    cr_assert_eq(bad, 0, "%zu of %zu gradients off (e.g. index %zu)", bad, n, worst);
}

/* Negative control: the checker notices a wte gradient of an input token
 * that is off by half plus 1e-3 and a bias gradient with the wrong sign. */
Test(gptchar, model_checker_catches_corrupted_gradients, .init = model_setup, .timeout = 300)
{
    static float bad_grads[IT_GC_NPARAMS];
    memcpy(bad_grads, gc_grads, sizeof bad_grads);
    size_t a = IT_GC_OFF_WTE + gc_x[5] * D + 3, b = IT_GC_OFF_H0 + IT_GC_B_FC_B + 17;
    bad_grads[a] = gc_grads[a] * 0.5f - 1e-3f;
    bad_grads[b] = -gc_grads[b];
    cr_assert(fabsf(gc_grads[b]) > 1e-5f, "control needs a non-negligible gradient at %zu", b);
    size_t two[2] = {a, b}, worst = 0;
    cr_assert_eq(model_gradcheck(bad_grads, two, 2, &worst), 2);
}

/* §5.19 over a context longer than 64 keys (a recipe's context goes up to
 * 2,048, §16.2): the backward's bits are §5.12's per query, written out here
 * from the clauses (dot, c, ds, dq as SUMs ascending from +0; dk and dv as
 * SUMs over the queries p = t .. T-1 from +0), on every kernel set. Until
 * 2026-12-04 §5.12's reference kept dw and ds in 64-entry arrays: a context
 * of 65 or 66 gave other bits and 67 or more overran the stack (found by an
 * implementation written from the spec alone). */
static float dot_asc(const float *a, const float *b, size_t n)
{
    float s = 0.0f;
    for (size_t j = 0; j < n; j++) {
        float prod = a[j] * b[j];
        s = s + prod;
    }
    return s;
}

static void causal_bwd_by_clauses(const float *q, const float *k, const float *v, const float *w, const float *dz,
                                  size_t T, size_t nh, size_t dh, float scale, float *dq, float *dk, float *dv)
{
    const size_t D = nh * dh;
    float *ds = malloc(sizeof(float) * T);
    cr_assert_not_null(ds);
    for (size_t e = 0; e < T * D; e++)
        dk[e] = 0.0f, dv[e] = 0.0f;
    for (size_t p = 0; p < T; p++)
        for (size_t h = 0; h < nh; h++) {
            const float *wp = w + (p * nh + h) * T, *dzp = dz + p * D + h * dh;
            float c = 0.0f;
            for (size_t t = 0; t <= p; t++) {
                float prod = wp[t] * dot_asc(dzp, v + t * D + h * dh, dh);
                c = c + prod;
            }
            for (size_t t = 0; t <= p; t++) {
                float diff = dot_asc(dzp, v + t * D + h * dh, dh) - c;
                float dsoft = wp[t] * diff;
                ds[t] = dsoft * scale;
            }
            for (size_t j = 0; j < dh; j++) {
                float acc = 0.0f;
                for (size_t t = 0; t <= p; t++) {
                    float prod = ds[t] * k[t * D + h * dh + j];
                    acc = acc + prod;
                }
                dq[p * D + h * dh + j] = acc;
            }
            for (size_t t = 0; t <= p; t++)
                for (size_t j = 0; j < dh; j++) {
                    float tk = ds[t] * q[p * D + h * dh + j], tv = wp[t] * dzp[j];
                    dk[t * D + h * dh + j] = dk[t * D + h * dh + j] + tk;
                    dv[t * D + h * dh + j] = dv[t * D + h * dh + j] + tv;
                }
        }
    free(ds);
}

Test(gptchar, causal_attention_over_more_than_64_keys_is_its_clauses, .timeout = 120)
{
    enum { LT = 131, LH = 2, LW = 8, LD = LH * LW };
    const float scale = 0x1.6a09e6p-2f; /* 1/sqrt(8), rounded: any value will do */
    float *buf = malloc(sizeof(float) * (size_t)(10 * LT * LD + 2 * LT * LH * LT));
    cr_assert_not_null(buf);
    float *q = buf, *k = q + LT * LD, *v = k + LT * LD, *dz = v + LT * LD, *z = dz + LT * LD, *dq = z + LT * LD,
          *dk = dq + LT * LD, *dv = dk + LT * LD, *dk1 = dv + LT * LD, *dv1 = dk1 + LT * LD, *w = dv1 + LT * LD,
          *w0 = w + LT * LH * LT;
    for (int i = 0; i < LT * LD; i++) {
        q[i] = 2 * it_u32_to_symmetric(it_rng_u32(12, 0, i)), k[i] = 2 * it_u32_to_symmetric(it_rng_u32(12, 1, i));
        v[i] = it_u32_to_symmetric(it_rng_u32(12, 2, i)), dz[i] = it_u32_to_symmetric(it_rng_u32(12, 3, i));
    }
    /* the weights of the portable set, the forward's input to every backward */
    cr_assert_eq(it_kernels_select("portable"), 0);
    it_causal_attention_forward(q, k, v, LT, LH, LW, scale, w0, z);
    static float eq[LT * LD];
    causal_bwd_by_clauses(q, k, v, w0, dz, LT, LH, LW, scale, eq, dk1, dv1);
    const char *sets[16];
    size_t n = it_kernels_available(sets, 16);
    for (size_t i = 0; i < n; i++) {
        cr_assert_eq(it_kernels_select(sets[i]), 0);
        it_causal_attention_forward(q, k, v, LT, LH, LW, scale, w, z);
        cr_assert_eq(memcmp(w, w0, sizeof(float) * LT * LH * LT), 0, "%s: other weights than portable's", sets[i]);
        it_causal_attention_backward(q, k, v, w, dz, LT, LH, LW, scale, dq, dk, dv);
        for (int e = 0; e < LT * LD; e++) {
            cr_assert_eq(B(dq[e]), B(eq[e]), "%s: dq[%d][%d]: 0x%08x, by the clauses 0x%08x", sets[i], e / LD,
                         e % LD, (unsigned)B(dq[e]), (unsigned)B(eq[e]));
            cr_assert_eq(B(dk[e]), B(dk1[e]), "%s: dk[%d][%d]: 0x%08x, by the clauses 0x%08x", sets[i], e / LD,
                         e % LD, (unsigned)B(dk[e]), (unsigned)B(dk1[e]));
            cr_assert_eq(B(dv[e]), B(dv1[e]), "%s: dv[%d][%d]: 0x%08x, by the clauses 0x%08x", sets[i], e / LD,
                         e % LD, (unsigned)B(dv[e]), (unsigned)B(dv1[e]));
        }
    }
    it_kernels_select(NULL);
    free(buf);
}

/* ---- §7.3, §7.4 ---- */

Test(gptchar, clip_scales_only_above_the_threshold)
{
    float g[3] = {3.0f, 4.0f, 0.0f};
    float norm = it_clip_grad_norm(g, 3, 1.0f, F(0x358637bd));
    assert_bits(norm, 0x40a00000); /* sqrt(9 + 16) = 5 */
    float k = 1.0f / (5.0f + F(0x358637bd));
    assert_bits(g[0], B(3.0f * k));
    assert_bits(g[1], B(4.0f * k));
    assert_bits(g[2], 0x00000000);
    float small[2] = {0.25f, 0.5f};
    it_clip_grad_norm(small, 2, 1.0f, F(0x358637bd));
    assert_bits(small[0], 0x3e800000);
    assert_bits(small[1], 0x3f000000);
}

/* §7.3 over separate tensors is §7.3 over their concatenation: one SUM
 * from +0, tensor after tensor (an empty one included), not torch's norm of
 * per-tensor norms, which this data tells apart */
Test(gptchar, clip_over_tensors_is_clip_over_their_concatenation)
{
    enum { A = 5, C = 37, N = A + C };
    float flat[N], a[A], c[C], empty[1];
    uint32_t x = 12345;
    for (int i = 0; i < N; i++) {
        x = x * 1664525u + 1013904223u;
        flat[i] = (float)(x >> 8) * 0x1p-20f - 8.0f;
    }
    memcpy(a, flat, sizeof a);
    memcpy(c, flat + A, sizeof c);
    float ss = 0.0f, ssa = 0.0f, ssc = 0.0f;
    for (int i = 0; i < N; i++) {
        float sq = flat[i] * flat[i];
        ss = ss + sq;
        if (i < A)
            ssa = ssa + sq;
        else
            ssc = ssc + sq;
    }
    float na = it_sqrtf(ssa), nc = it_sqrtf(ssc);
    cr_assert_neq(B(it_sqrtf(ss)), B(it_sqrtf(na * na + nc * nc)), "the data must tell the two orders apart");
    float *g[3] = {a, empty, c};
    size_t n[3] = {A, 0, C};
    float want = it_clip_grad_norm(flat, N, 1.0f, F(0x358637bd));
    float got = it_clip_grad_norm_tensors(3, g, n, 1.0f, F(0x358637bd));
    assert_bits(got, B(want));
    assert_bits(got, B(it_sqrtf(ss)));
    for (int i = 0; i < N; i++)
        assert_bits(i < A ? a[i] : c[i - A], B(flat[i]));
}

Test(gptchar, schedule_warms_up_and_decays_linearly)
{
    const float lr = F(0x3b449ba6);
    assert_bits(it_lr_schedule(1, 50, 500, lr), B(lr * (1.0f / 50.0f)));
    assert_bits(it_lr_schedule(50, 50, 500, lr), B(lr));
    assert_bits(it_lr_schedule(51, 50, 500, lr), B(lr * (450.0f / 451.0f)));
    assert_bits(it_lr_schedule(500, 50, 500, lr), B(lr * (1.0f / 451.0f)));
    assert_bits(it_lr_schedule(501, 50, 500, lr), 0x00000000);
    assert_bits(it_lr_schedule(0, 50, 500, lr), 0x00000000);
}

/* ---- kernel sets ---- */

Test(gptchar, every_kernel_set_gives_one_gradient, .timeout = 300)
{
    const char *sets[16];
    size_t n = it_kernels_available(sets, 16);
    static float p[IT_GC_NPARAMS], g[IT_GC_NPARAMS];
    static uint32_t x[IT_GC_ROWS], y[IT_GC_ROWS];
    it_gptchar_init(IT_GC_SEED, p);
    it_gptchar_batch(IT_GC_SEED, 1, x, y);
    char first[65] = "", hex[65];
    for (size_t i = 0; i < n; i++) {
        cr_assert_eq(it_kernels_select(sets[i]), 0);
        float loss = it_gptchar_loss_grad(p, x, y, 4, g);
        it_params_digest(g, IT_GC_NPARAMS, hex);
        if (i == 0)
            memcpy(first, hex, sizeof hex);
        cr_assert_str_eq(hex, first, "kernel set %s gives another gradient (loss 0x%08x)", sets[i],
                         (unsigned)B(loss));
    }
    it_kernels_select(NULL);
}

/* issue 30: threads split independent outputs only, and the reduced entry
 * with no reducer (it_reducer_local) is the local one: the same gradient
 * bits for every thread count; a changed parameter changes the digest (the
 * comparison can fail) */
Test(gptchar, threads_and_reduced_give_one_gradient, .timeout = 300)
{
    static float p[IT_GC_NPARAMS], g[IT_GC_NPARAMS];
    static uint32_t x[IT_GC_ROWS], y[IT_GC_ROWS];
    it_gptchar_init(IT_GC_SEED, p);
    it_gptchar_batch(IT_GC_SEED, 1, x, y);
    it_gptchar_work *w = it_gptchar_work_new(IT_GC_SEQS);
    cr_assert_not_null(w);
    float loss1 = 0.0f, loss = 0.0f;
    char want[65], hex[65];
    cr_assert_eq(it_gptchar_loss_grad_work(w, p, x, y, IT_GC_SEQS, g, NULL, NULL, &loss1), IT_OK);
    it_params_digest(g, IT_GC_NPARAMS, want);
    for (unsigned th = 1; th <= 3; th++) {
        cr_assert_eq(it_gptchar_loss_grad_reduced(w, p, x, y, IT_GC_SEQS, g, th, &loss, NULL), IT_OK);
        it_params_digest(g, IT_GC_NPARAMS, hex);
        cr_assert_str_eq(hex, want, "%u threads give another gradient", th);
        cr_assert_eq(B(loss), B(loss1), "%u threads give another loss", th);
    }
    p[IT_GC_OFF_H0 + IT_GC_B_FC_W] = p[IT_GC_OFF_H0 + IT_GC_B_FC_W] * 1.5f; /* the negative control */
    cr_assert_eq(it_gptchar_loss_grad_reduced(w, p, x, y, IT_GC_SEQS, g, 2, &loss, NULL), IT_OK);
    it_params_digest(g, IT_GC_NPARAMS, hex);
    cr_assert_str_neq(hex, want, "a changed parameter left the gradient digest as it was");
    it_gptchar_work_free(w);
}
