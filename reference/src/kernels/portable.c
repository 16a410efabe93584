/* The portable kernel set: the readable definition. exp, log and tanh one
 * element at a time with the scalar functions of cr_exp.c, cr_log.c and
 * tanh.c, and spec §11.6 as the per-position loop of mlp13k.c. Every other
 * set must give these bits. */
#include "isotrain.h"
#include "kernels/kernels.h"

static size_t expf_v(const float *x, float *y, size_t n, int exact_fallback)
{
    (void)exact_fallback; /* the scalar function is exact everywhere */
    for (size_t i = 0; i < n; i++)
        y[i] = it_expf(x[i]);
    return 0;
}

static size_t logf_v(const float *x, float *y, size_t n, int exact_fallback)
{
    (void)exact_fallback;
    for (size_t i = 0; i < n; i++)
        y[i] = it_logf(x[i]);
    return 0;
}

static void tanhf_v(const float *x, float *y, size_t n)
{
    for (size_t i = 0; i < n; i++)
        y[i] = it_tanhf(x[i]);
}

/* The general product of kernels.h (spec §4.1, §4.5): every C(m, n) is one
 * sequential SUM over k, each product rounded before it is added, from +0
 * or from the partial already in C, and the bias after the whole sum:
 *
 *     for m, n:  s = accumulate ? C(m, n) : +0
 *                for k = 0 .. K-1:  s = s + A(m, k) * B(k, n)
 *                C(m, n) = bias ? s + bias[n] : s
 *
 * The loops below do exactly that, reordered only across outputs so that a
 * row of C is walked contiguously: a tile of KB values of k and NB columns
 * of B is copied into `bt` (a copy, no arithmetic), and each C(m, n) of the
 * tile's columns takes its terms for that tile's k in ascending order,
 * stored in C between tiles (a suspended and resumed sum, spec §4.1). */
void it_gemm_portable(const it_gemm_args *g)
{
    enum { KB = 128, NB = 32 };
    float bt[KB][NB];
    for (size_t m = 0; m < g->M; m++)
        if (!g->accumulate)
            for (size_t n = 0; n < g->N; n++)
                g->C[m * g->ldc + n] = 0.0f;
    for (size_t n0 = 0; n0 < g->N; n0 += NB) {
        const size_t nb = g->N - n0 < NB ? g->N - n0 : NB;
        for (size_t k0 = 0; k0 < g->K; k0 += KB) {
            const size_t kb = g->K - k0 < KB ? g->K - k0 : KB;
            for (size_t k = 0; k < kb; k++)
                for (size_t n = 0; n < nb; n++)
                    bt[k][n] = g->B[(k0 + k) * g->brs + (n0 + n) * g->bcs];
            for (size_t m = 0; m < g->M; m++) {
                float *c = g->C + m * g->ldc + n0;
                for (size_t k = 0; k < kb; k++) {
                    const float a = g->A[m * g->ars + (k0 + k) * g->acs];
                    for (size_t n = 0; n < nb; n++) {
                        float prod = a * bt[k][n];
                        c[n] = c[n] + prod;
                    }
                }
            }
        }
        if (g->bias)
            for (size_t m = 0; m < g->M; m++)
                for (size_t n = 0; n < nb; n++)
                    g->C[m * g->ldc + n0 + n] = g->C[m * g->ldc + n0 + n] + g->bias[n0 + n];
    }
}

/* the old entry: B read row by row */
void it_matmul_portable(size_t M, size_t N, size_t K, const float *A, size_t ars, size_t acs, const float *B,
                        size_t ldb, float *C, size_t ldc, int accumulate)
{
    it_gemm_args g = {M, N, K, A, ars, acs, B, ldb, 1, C, ldc, accumulate, NULL};
    it_gemm_portable(&g);
}

/* §4.5 bias gradients: each acc[c] its own sum over rows, resumed */
static void colsum_acc(size_t rows, size_t cols, const float *X, size_t ldx, float *acc)
{
    for (size_t r = 0; r < rows; r++)
        for (size_t c = 0; c < cols; c++)
            acc[c] = acc[c] + X[r * ldx + c];
}

static void add_rows(size_t rows, size_t cols, const float *A, size_t lda, const float *B, size_t ldb, float *Y,
                     size_t ldy)
{
    for (size_t r = 0; r < rows; r++)
        for (size_t c = 0; c < cols; c++)
            Y[r * ldy + c] = A[r * lda + c] + B[r * ldb + c];
}

/* §5.4 / §5.5: the one-position functions, row after row */
static void softmax_xent_fwd(size_t rows, size_t n, const float *Z, size_t ldz, const uint32_t *targets, float *loss,
                             float *P, size_t ldp)
{
    for (size_t r = 0; r < rows; r++) {
        float l = it_softmax_xent_forward(Z + r * ldz, n, targets[r], P + r * ldp);
        if (loss)
            loss[r] = l;
    }
}

static void softmax_xent_bwd(size_t rows, size_t n, const float *P, size_t ldp, const uint32_t *targets, float scale,
                             float *dZ, size_t lddz)
{
    for (size_t r = 0; r < rows; r++)
        it_softmax_xent_backward(P + r * ldp, n, targets[r], scale, dZ + r * lddz);
}

/* §5.11 / §5.12: the one-query functions, row after row */
static void attention_fwd(const it_attention_args *a, size_t r0, size_t r1)
{
    for (size_t r = r0; r < r1; r++)
        it_attention_forward(a->Q + r * a->ldq, a->K + r * a->T * a->ldkv, a->V + r * a->T * a->ldkv, a->T, a->H,
                             a->dh, a->scale, a->Wt + r * a->H * a->T, a->Z + r * a->ldz);
}

static void attention_bwd(const it_attention_args *a, size_t r0, size_t r1)
{
    for (size_t r = r0; r < r1; r++)
        it_attention_backward(a->Q + r * a->ldq, a->K + r * a->T * a->ldkv, a->V + r * a->T * a->ldkv,
                              a->Wt + r * a->H * a->T, a->dZ + r * a->ldz, a->T, a->H, a->dh, a->scale,
                              a->dQ + r * a->lddq, a->dK + r * a->T * a->lddkv, a->dV + r * a->T * a->lddkv);
}

/* §5.16 / §5.17 as written: tanh recomputed in the backward, t unused */
static void gelu_fwd(const float *x, size_t n, float *y, float *t)
{
    (void)t;
    it_gelu_forward(x, n, y);
}

static void gelu_bwd(const float *x, const float *t, const float *dy, size_t n, float *dx)
{
    (void)t;
    it_gelu_backward(x, dy, n, dx);
}

static void layernorm_fwd(size_t rows, size_t n, const float *X, const float *w, const float *b, float eps, float *Y,
                          float *xhat, float *rstd)
{
    for (size_t r = 0; r < rows; r++)
        it_layernorm_forward(X + r * n, w, b, n, eps, Y + r * n, xhat + r * n, NULL, &rstd[r]);
}

static void layernorm_bwd(size_t rows, size_t n, const float *xhat, const float *rstd, const float *w, const float *dY,
                          float *dX, float *P)
{
    for (size_t r = 0; r < rows; r++) {
        for (size_t i = 0; i < n; i++)
            P[r * n + i] = dY[r * n + i] * xhat[r * n + i];
        it_layernorm_backward_input(xhat + r * n, rstd[r], w, dY + r * n, n, dX + r * n);
    }
}

static void sqrtf_v(const float *x, float *y, size_t n)
{
    for (size_t i = 0; i < n; i++)
        y[i] = it_sqrtf(x[i]);
}

const it_kernel_set it_kernels_portable = {
    "portable",       expf_v,          logf_v,
    tanhf_v,          it_sgd_update_portable,
    it_mlp13k_loss_grad_portable,      it_matmul_portable,
    it_gemm_portable, colsum_acc,      add_rows,
    it_relu_forward_portable,          it_relu_backward_portable,
    it_tanh_backward_portable,         softmax_xent_fwd,
    softmax_xent_bwd, attention_fwd,   attention_bwd,
    it_adamw_update_portable,          sqrtf_v,
    it_causal_attention_forward_scratch, it_causal_attention_backward_scratch,
    gelu_fwd,                          gelu_bwd,
    layernorm_fwd,                     layernorm_bwd,
};
