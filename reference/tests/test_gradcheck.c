/* The backward pass (spec §5.5-§5.8, §11.6) against central finite
 * differences of an independent double-precision forward pass. This checks
 * the calculus, not the bits: the bits are pinned by the vectors. */
#include <math.h>
#include <string.h>

#include "testutil.h"

enum { V = IT_MLP13K_VOCAB, D = IT_MLP13K_EMBED, H = IT_MLP13K_HIDDEN, NB = IT_MLP13K_BATCH };

/* mean cross-entropy of the batch, all in double with libm */
static double loss_double(const double *p, const unsigned char *xs, const unsigned char *ys)
{
    const double *E = p + IT_MLP13K_OFF_EMBED, *W1 = p + IT_MLP13K_OFF_W1, *b1 = p + IT_MLP13K_OFF_B1,
                 *W2 = p + IT_MLP13K_OFF_W2, *b2 = p + IT_MLP13K_OFF_B2;
    double total = 0;
    for (int n = 0; n < NB; n++) {
        double h[H], z[V], m = -INFINITY, s = 0;
        for (int j = 0; j < H; j++) {
            double a = b1[j];
            for (int i = 0; i < D; i++)
                a += W1[j * D + i] * E[xs[n] * D + i];
            h[j] = tanh(a);
        }
        for (int k = 0; k < V; k++) {
            double a = b2[k];
            for (int j = 0; j < H; j++)
                a += W2[k * H + j] * h[j];
            z[k] = a;
            if (a > m)
                m = a;
        }
        for (int k = 0; k < V; k++)
            s += exp(z[k] - m);
        total += log(s) - (z[ys[n]] - m);
    }
    return total / NB;
}

typedef struct {
    size_t checked, failed, worst_index;
    double worst_excess;
} gradcheck_result;

/* A batch's inputs and targets, and its loss for test_central_diff. */
typedef struct {
    const unsigned char *xs, *ys;
} batch;

static double batch_loss(const double *p, const void *ctx)
{
    const batch *b = ctx;
    return loss_double(p, b->xs, b->ys);
}

/* |analytic - numeric| <= atol + rtol * max(|analytic|, |numeric|) */
static gradcheck_result gradcheck(const float *params, const float *grads, const unsigned char *xs,
                                  const unsigned char *ys, const size_t *idx, size_t n_idx)
{
    static double p[IT_MLP13K_NPARAMS];
    const double h = 1e-4, atol = 1e-6, rtol = 1e-3;
    gradcheck_result r = {0, 0, 0, 0};
    for (size_t i = 0; i < IT_MLP13K_NPARAMS; i++)
        p[i] = params[i];
    for (size_t n = 0; n < n_idx; n++) {
        size_t i = idx[n];
        const batch b = {xs, ys};
        double numeric = test_central_diff(p, i, h, batch_loss, &b), analytic = grads[i];
        double excess = fabs(analytic - numeric) - (atol + rtol * fmax(fabs(analytic), fabs(numeric)));
        r.checked++;
        if (excess > 0) {
            r.failed++;
            if (excess > r.worst_excess) {
                r.worst_excess = excess;
                r.worst_index = i;
            }
        }
    }
    return r;
}

/* A state a few steps in (so no gradient is trivially zero by symmetry), its
 * next batch, and a sample of indices from every tensor including the
 * embedding rows the batch uses. */
static it_mlp13k_state state;
static unsigned char xs[NB], ys[NB];
static size_t idx[1024];
static size_t n_idx;

static void setup(void)
{
    it_mlp13k_recipe r = it_mlp13k_default_recipe();
    it_mlp13k_start(&r, &state);
    for (int t = 0; t < 20; t++)
        cr_assert_eq(it_mlp13k_step(&r, &state), IT_OK);
    it_mlp13k_batch(&r, 21, xs, ys);
    it_mlp13k_loss_grad(state.params, xs, ys, NB, state.grads);
    n_idx = 0;
    for (int n = 0; n < 8; n++)
        for (int i = 0; i < D; i++)
            idx[n_idx++] = IT_MLP13K_OFF_EMBED + (size_t)xs[n] * D + (size_t)i;
    for (size_t i = 0; i < 'A' * D; i += 97) /* rows of bytes that never occur */
        idx[n_idx++] = IT_MLP13K_OFF_EMBED + i;
    for (size_t i = 0; i < H * D; i += 5)
        idx[n_idx++] = IT_MLP13K_OFF_W1 + i;
    for (size_t i = 0; i < H; i++)
        idx[n_idx++] = IT_MLP13K_OFF_B1 + i;
    for (size_t i = 0; i < V * H; i += 41)
        idx[n_idx++] = IT_MLP13K_OFF_W2 + i;
    for (size_t i = 0; i < V; i += 3)
        idx[n_idx++] = IT_MLP13K_OFF_B2 + i;
}

Test(gradcheck, backward_matches_finite_differences, .init = setup, .timeout = 60)
{
    gradcheck_result r = gradcheck(state.params, state.grads, xs, ys, idx, n_idx);
    cr_assert(r.checked > 400);
    cr_assert_eq(r.failed, 0, "%zu of %zu gradients off; worst at index %zu (excess %g)", r.failed, r.checked,
                 r.worst_index, r.worst_excess);
}

/* Negative control: the checker must notice one gradient that is off by a
 * little (0.5% of a typical b2 gradient) and one with the wrong sign. */
Test(gradcheck, checker_catches_a_corrupted_gradient, .init = setup, .timeout = 60)
{
    static float bad[IT_MLP13K_NPARAMS];
    memcpy(bad, state.grads, sizeof bad);
    size_t a = IT_MLP13K_OFF_B2 + ys[0], b = IT_MLP13K_OFF_W1 + 7;
    bad[a] = bad[a] + 0.005f * fabsf(bad[a]) + 1e-5f;
    bad[b] = -bad[b];
    cr_assert(fabsf(state.grads[b]) > 1e-5f, "control needs a non-negligible gradient at %zu", b);
    const size_t two[2] = {a, b};
    gradcheck_result r = gradcheck(state.params, bad, xs, ys, two, 2);
    cr_assert_eq(r.failed, 2, "the checker missed %zu corrupted gradients", 2 - r.failed);
}
