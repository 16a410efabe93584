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

const it_kernel_set it_kernels_portable = {"portable", expf_v, logf_v, tanhf_v, it_sgd_update_portable,
                                            it_mlp13k_loss_grad_portable};
