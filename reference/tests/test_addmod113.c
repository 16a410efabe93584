/* Profile addmod113 (spec §3.6, §5.9-§5.12, §6.5, §7.2, §13): the square
 * root against the CPU's, the permutation, the backward pass against finite
 * differences of an independent double forward (with a negative control),
 * and the kernel sets and thread counts against each other by digest. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

enum { D = IT_AM_D, H = IT_AM_HEADS, DH = IT_AM_DHEAD, F = IT_AM_MLP, NO = IT_AM_MOD, NB = 8 };

/* ---- §3.6 ---------------------------------------------------------------- */

Test(sqrt, special_values)
{
    assert_bits(it_sqrtf(F(0x00000000)), 0x00000000);
    assert_bits(it_sqrtf(F(0x80000000)), 0x80000000);
    assert_bits(it_sqrtf(F(0x7f800000)), 0x7f800000);
    cr_assert(it_is_nan(it_sqrtf(F(0xbf800000))));
    cr_assert(it_is_nan(it_sqrtf(F(0xff800000))));
    cr_assert(it_is_nan(it_sqrtf(F(0x80000001))));
    cr_assert(it_is_nan(it_sqrtf(F(0x7fc00000))));
    assert_bits(it_sqrtf(F(0x40800000)), 0x40000000);  /* 4 -> 2 */
    assert_bits(it_sqrtf(F(0x40000000)), 0x3fb504f3);  /* 2 -> RN(sqrt 2) */
    assert_bits(it_sqrtf(F(0x00000001)), 0x1a3504f3);  /* 2^-149 -> RN(2^-74.5) */
    assert_bits(it_sqrtf(F(0x7f7fffff)), 0x5f7fffff);  /* largest finite */
}

/* The hardware's IEEE square root (sqrtss/fsqrt via libm's sqrtf, allowed in
 * tests) is the oracle: every subnormal and a stride through the rest. */
Test(sqrt, equals_the_ieee_square_root, .timeout = 120)
{
    size_t bad = 0, n = 0;
    for (uint64_t u = 0; u < 0x80000000ull; u += (u < 0x00800000u ? 1 : 251)) {
        float x = F((uint32_t)u), got = it_sqrtf(x), want = sqrtf(x);
        n++;
        if (B(got) != B(want) && bad++ < 5)
            cr_log_error("sqrt(0x%08x): got 0x%08x, want 0x%08x", (unsigned)u, (unsigned)B(got), (unsigned)B(want));
    }
    cr_assert_eq(bad, 0, "%zu of %zu square roots differ", bad, n);
}

/* ---- §6.5 ---------------------------------------------------------------- */

Test(addmod113, permutation_is_a_permutation_and_depends_on_the_seed)
{
    static uint32_t p[IT_AM_PAIRS], q[IT_AM_PAIRS];
    static unsigned char seen[IT_AM_PAIRS];
    it_addmod113_permutation(IT_AM_SEED, p);
    for (size_t i = 0; i < IT_AM_PAIRS; i++) {
        cr_assert(p[i] < IT_AM_PAIRS);
        cr_assert(!seen[p[i]], "pair %u twice", (unsigned)p[i]);
        seen[p[i]] = 1;
    }
    it_addmod113_permutation(1, q);
    cr_assert(memcmp(p, q, sizeof p) != 0);
}

/* ---- §5.9-§5.12, §13.5: gradient check ------------------------------------ */

static double relu_d(double x) { return x > 0 ? x : 0; }

/* the §13.5 forward in double with libm, written from the spec's text */
static double loss_double(const double *p, const uint32_t *pairs, size_t n)
{
    const double *WE = p + IT_AM_OFF_WE, *WP = p + IT_AM_OFF_WPOS, *WQ = p + IT_AM_OFF_WQ, *WK = p + IT_AM_OFF_WK,
                 *WV = p + IT_AM_OFF_WV, *WO = p + IT_AM_OFF_WO, *WIN = p + IT_AM_OFF_WIN, *BIN = p + IT_AM_OFF_BIN,
                 *WOUT = p + IT_AM_OFF_WOUT, *BOUT = p + IT_AM_OFF_BOUT, *WU = p + IT_AM_OFF_WU;
    double total = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned tok[3] = {pairs[i] / 113, pairs[i] % 113, 113}, label = (tok[0] + tok[1]) % 113;
        double x[3][D], q[D], k[3][D], v[3][D], z[D], r[D], post[F], r2[D], logits[NO];
        for (int t = 0; t < 3; t++)
            for (int c = 0; c < D; c++)
                x[t][c] = WE[tok[t] * D + c] + WP[t * D + c];
        for (int o = 0; o < D; o++) {
            q[o] = 0;
            for (int t = 0; t < 3; t++)
                k[t][o] = v[t][o] = 0;
            for (int c = 0; c < D; c++) {
                q[o] += WQ[o * D + c] * x[2][c];
                for (int t = 0; t < 3; t++) {
                    k[t][o] += WK[o * D + c] * x[t][c];
                    v[t][o] += WV[o * D + c] * x[t][c];
                }
            }
        }
        for (int h = 0; h < H; h++) {
            double s[3], m = -INFINITY, S = 0;
            for (int t = 0; t < 3; t++) {
                s[t] = 0;
                for (int j = 0; j < DH; j++)
                    s[t] += q[h * DH + j] * k[t][h * DH + j];
                s[t] /= sqrt(32.0);
                m = fmax(m, s[t]);
            }
            for (int t = 0; t < 3; t++)
                S += exp(s[t] - m);
            for (int j = 0; j < DH; j++) {
                z[h * DH + j] = 0;
                for (int t = 0; t < 3; t++)
                    z[h * DH + j] += exp(s[t] - m) / S * v[t][h * DH + j];
            }
        }
        for (int o = 0; o < D; o++) {
            r[o] = x[2][o];
            for (int c = 0; c < D; c++)
                r[o] += WO[o * D + c] * z[c];
        }
        for (int kk = 0; kk < F; kk++) {
            double a = BIN[kk];
            for (int c = 0; c < D; c++)
                a += WIN[kk * D + c] * r[c];
            post[kk] = relu_d(a);
        }
        for (int o = 0; o < D; o++) {
            double a = BOUT[o];
            for (int kk = 0; kk < F; kk++)
                a += WOUT[o * F + kk] * post[kk];
            r2[o] = r[o] + a;
        }
        double m = -INFINITY, S = 0;
        for (int o = 0; o < NO; o++) {
            logits[o] = 0;
            for (int c = 0; c < D; c++)
                logits[o] += WU[o * D + c] * r2[c];
            m = fmax(m, logits[o]);
        }
        for (int o = 0; o < NO; o++)
            S += exp(logits[o] - m);
        total += log(S) - (logits[label] - m);
    }
    return total / (double)n;
}

static float params[IT_AM_NPARAMS], grads[IT_AM_NPARAMS];
static uint32_t pairs[NB];
static size_t idx[2048], n_idx;

/* a state a few AdamW steps in on a small batch, so no gradient is zero by
 * symmetry, and a sample of indices from every tensor */
static void setup(void)
{
    static float g[IT_AM_NPARAMS], m[IT_AM_NPARAMS], v[IT_AM_NPARAMS];
    static uint32_t perm[IT_AM_PAIRS];
    it_addmod113_permutation(IT_AM_SEED, perm);
    memcpy(pairs, perm, sizeof pairs);
    it_addmod113_init(IT_AM_SEED, params);
    it_adamw_consts c = {F(0x3c23d70a) /* 0.01 */, F(0x3f666666), F(0x3f7ae148), F(0x322bcc77), F(0x3f7fbe77),
                         F(0x3dccccd0), F(0x3ca3d700)};
    it_adamw_clock k = {1.0f, 1.0f, 0};
    for (int t = 0; t < 3; t++) {
        float bc1, bc2;
        it_addmod113_loss_grad(params, pairs, NB, g, 1);
        it_adamw_tick(&c, &k, &bc1, &bc2);
        it_adamw_update(&c, bc1, bc2, params, g, m, v, IT_AM_NPARAMS);
    }
    it_addmod113_loss_grad(params, pairs, NB, grads, 1);
    n_idx = 0;
    for (int t = 0; t < 11; t++) {
        const it_tensor_info *ti = &it_addmod113_tensors[t];
        size_t n = ti->rows * ti->cols, stride = n / 97 + 1;
        for (size_t i = 0; i < n; i += stride)
            idx[n_idx++] = ti->offset + i;
    }
    /* the embedding rows the batch uses */
    for (int p = 0; p < 2; p++)
        for (int c = 0; c < D; c += 9)
            idx[n_idx++] = IT_AM_OFF_WE + (size_t)(pairs[p] / 113) * D + (size_t)c;
}

typedef struct {
    size_t checked, failed, worst, kinks;
    double excess;
} gc_result;

/* The loss of the checked batch (pairs), for test_central_diff. */
static double batch_loss(const double *p, const void *ctx)
{
    (void)ctx;
    return loss_double(p, pairs, NB);
}

static double central(double *p, size_t i, double h)
{
    return test_central_diff(p, i, h, batch_loss, NULL);
}

static gc_result gradcheck(const float *g, const size_t *ix, size_t n)
{
    static double p[IT_AM_NPARAMS];
    const double h = 1e-3, atol = 2e-6, rtol = 2e-2;
    gc_result r = {0, 0, 0, 0, 0};
    for (size_t i = 0; i < IT_AM_NPARAMS; i++)
        p[i] = params[i];
    for (size_t k = 0; k < n; k++) {
        size_t i = ix[k];
        double numeric = central(p, i, h), finer = central(p, i, h / 4), analytic = g[i];
        /* a ReLU kink inside [x-h, x+h] makes the difference quotient
         * meaningless there; two step sizes that disagree reveal it */
        if (fabs(numeric - finer) > atol + rtol * fmax(fabs(numeric), fabs(finer))) {
            r.kinks++;
            continue;
        }
        double excess = fabs(analytic - numeric) - (atol + rtol * fmax(fabs(analytic), fabs(numeric)));
        r.checked++;
        if (excess > 0) {
            r.failed++;
            if (excess > r.excess)
                r.excess = excess, r.worst = i;
        }
    }
    return r;
}

Test(addmod113, backward_matches_finite_differences, .init = setup, .timeout = 300)
{
    gc_result r = gradcheck(grads, idx, n_idx);
    cr_assert(r.checked > 1000);
    cr_assert(r.kinks * 50 < r.checked, "%zu of %zu indices at a ReLU kink", r.kinks, r.checked);
    cr_assert_eq(r.failed, 0, "%zu of %zu gradients off; worst at flat index %zu (excess %g)", r.failed, r.checked,
                 r.worst, r.excess);
}

/* Negative control: a gradient off by 10% and one with the wrong sign, in
 * the attention's key projection, must both be caught. */
Test(addmod113, gradcheck_catches_a_corrupted_gradient, .init = setup, .timeout = 60)
{
    static float bad[IT_AM_NPARAMS];
    memcpy(bad, grads, sizeof bad);
    size_t a = 0, b = 0;
    for (size_t i = IT_AM_OFF_WK; i < IT_AM_OFF_WV && (!a || !b); i++)
        if (fabsf(grads[i]) > 1e-4f) {
            if (!a)
                a = i;
            else
                b = i;
        }
    cr_assert(a && b, "control needs non-negligible W_K gradients");
    bad[a] = bad[a] * 1.1f;
    bad[b] = -bad[b];
    const size_t two[2] = {a, b};
    gc_result r = gradcheck(bad, two, 2);
    cr_assert_eq(r.failed, 2, "the checker missed %zu corrupted gradients", 2 - r.failed);
}

/* ---- kernel sets and threads: one digest ----------------------------------- */

static void grad_digest(const char *set, unsigned threads, const uint32_t *pr, size_t n, char hex[65], float *loss)
{
    static float g[IT_AM_NPARAMS];
    cr_assert_eq(it_kernels_select(set), 0, "kernel set %s", set);
    *loss = it_addmod113_loss_grad(params, pr, n, g, threads);
    it_params_digest(g, IT_AM_NPARAMS, hex);
}

Test(addmod113, every_kernel_set_and_thread_count_gives_one_gradient, .timeout = 300)
{
    static uint32_t perm[IT_AM_PAIRS];
    it_addmod113_permutation(IT_AM_SEED, perm);
    it_addmod113_init(IT_AM_SEED, params);
    const char *sets[8];
    size_t ns = it_kernels_available(sets, 8);
    char want[65], got[65];
    float lw, lg;
    grad_digest("portable", 1, perm, 301, want, &lw);
    for (size_t s = 0; s < ns; s++)
        for (unsigned t = 1; t <= 4; t++) {
            grad_digest(sets[s], t, perm, 301, got, &lg);
            cr_assert_str_eq(got, want, "set %s, %u threads: gradient digest differs", sets[s], t);
            assert_bits(lg, B(lw), "(loss, set %s, %u threads)", sets[s], t);
        }
    it_kernels_select("auto");
}

/* ---- §7.2 ------------------------------------------------------------------ */

/* One element by hand: the written sequence, decay first, eps outside. */
Test(adamw, one_step_is_the_written_sequence)
{
    it_adamw_consts c = {F(0x3a83126f), F(0x3f666666), F(0x3f7ae148), F(0x322bcc77), F(0x3f7fbe77), F(0x3dccccd0),
                         F(0x3ca3d700)};
    it_adamw_clock k = {1.0f, 1.0f, 0};
    float bc1, bc2, p = 0.5f, g = 0.25f, m = 0.0f, v = 0.0f;
    it_adamw_tick(&c, &k, &bc1, &bc2);
    assert_bits(bc1, 0x3dccccd0); /* 1 - 0.9 */
    assert_bits(bc2, 0x3ca3d700); /* 1 - 0.98 */
    it_adamw_update(&c, bc1, bc2, &p, &g, &m, &v, 1);
    /* m = 0.1*0.25, v = 0.02*0.0625; mhat = 0.25, vhat = 0.0625, sqrt = 0.25:
     * p = 0.5*0.999 - 0.001*(0.25/(0.25+1e-8)) */
    volatile float pd = 0.5f * F(0x3f7fbe77), ratio = F(0x3e800000) / (F(0x3e800000) + F(0x322bcc77));
    volatile float want = pd - F(0x3a83126f) * ratio;
    cr_assert(B(m) == B(F(0x3dccccd0) * 0.25f));
    assert_bits(p, B(want));
}
