/* The kernel layer (spec §2.4, §4.1): one portable kernel set, which is the
 * readable definition, and one set per instruction set that computes the same
 * bits faster. A set may vectorize only across independent outputs (lanes are
 * different dot products, positions or elements), keeps every multiply and
 * add a separate instruction, and computes exp and log correctly rounded.
 * dispatch.c picks the best set this CPU has at start-up, or the one named by
 * ISOTRAIN_KERNELS / `isotrain --kernels`. */
#ifndef ISOTRAIN_KERNELS_H
#define ISOTRAIN_KERNELS_H

#include <stddef.h>

typedef struct it_kernel_set {
    const char *name; /* portable, sse2, avx, avx2, avx512, neon */
    /* y[i] = exp(x[i]) (spec §3.2). Lanes whose fast binary64 result lies
     * too close to a binary32 rounding boundary are recomputed by the exact
     * scalar it_expf; with exact_fallback = 0 they keep the fast result
     * (prove_math's negative control only). Returns how many lanes were
     * that close. */
    size_t (*expf_v)(const float *x, float *y, size_t n, int exact_fallback);
    size_t (*logf_v)(const float *x, float *y, size_t n, int exact_fallback); /* spec §3.3 */
    void (*tanhf_v)(const float *x, float *y, size_t n);                    /* spec §3.4 */
    void (*sgd)(float *p, const float *g, size_t n, float lr); /* spec §7.1 */
    /* spec §11.6 for a batch of `batch` positions, the same bits as the
     * portable per-position loop. */
    float (*mlp13k_loss_grad)(const float *params, const unsigned char *xs, const unsigned char *ys,
                              size_t batch, float *grads);
    /* C[m][n] = SUM over k = 0..K-1, ascending, of A(m, k) * B[k][n], from
     * +0, or continuing from C[m][n] when `accumulate`; A(m, k) =
     * A[m*ars + k*acs]. Lanes and threads take different (m, n), never
     * parts of one sum (spec §4.1, §13.5). */
    void (*matmul)(size_t M, size_t N, size_t K, const float *A, size_t ars, size_t acs, const float *B,
                   size_t ldb, float *C, size_t ldc, int accumulate);
} it_kernel_set;

extern const it_kernel_set it_kernels_portable;
#if defined(__x86_64__)
extern const it_kernel_set it_kernels_sse2, it_kernels_avx, it_kernels_avx2, it_kernels_avx512;
#endif
#if defined(__aarch64__)
extern const it_kernel_set it_kernels_neon;
#endif

/* The set in use (chosen on first use if nothing was selected). */
const it_kernel_set *it_kernels(void);

/* The readable loops (sgd.c, mlp13k.c) of the portable set. */
void it_sgd_update_portable(float *p, const float *g, size_t n, float lr);
/* The readable per-position loop of spec §11.6 (mlp13k.c). */
float it_mlp13k_loss_grad_portable(const float *params, const unsigned char *xs, const unsigned char *ys,
                                   size_t batch, float *grads);
/* The readable matrix product (portable.c). */
void it_matmul_portable(size_t M, size_t N, size_t K, const float *A, size_t ars, size_t acs, const float *B,
                        size_t ldb, float *C, size_t ldc, int accumulate);

#endif
