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

/* The definition of a matrix product in this project: one sequential SUM per
 * output element (spec §4.1), the product rounded before it is added. The
 * loop runs k outside n so that row C[m] is walked contiguously; every
 * C[m][n] still receives its terms one at a time in ascending k. */
void it_matmul_portable(size_t M, size_t N, size_t K, const float *A, size_t ars, size_t acs, const float *B,
                        size_t ldb, float *C, size_t ldc, int accumulate)
{
    for (size_t m = 0; m < M; m++) {
        float *c = C + m * ldc;
        if (!accumulate)
            for (size_t n = 0; n < N; n++)
                c[n] = 0.0f;
        for (size_t k = 0; k < K; k++) {
            const float a = A[m * ars + k * acs], *b = B + k * ldb;
            for (size_t n = 0; n < N; n++) {
                float prod = a * b[n];
                c[n] = c[n] + prod;
            }
        }
    }
}

const it_kernel_set it_kernels_portable = {"portable", expf_v, logf_v, tanhf_v, it_sgd_update_portable,
                                            it_mlp13k_loss_grad_portable, it_matmul_portable};
