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
#include <stdint.h>

#include "isotrain.h"

/* One matrix product (spec §4.1, §4.5): for every m < M, n < N
 *   C(m, n) = SUM over k = 0 .. K-1 ascending of A(m, k) * B(k, n),
 * started from +0, or with `accumulate` continued from the partial sum
 * already stored in C(m, n) (the same sequential sum, resumed); then, when
 * bias is not NULL, C(m, n) = C(m, n) + bias[n] after the whole sum. Every
 * product is rounded before it is added. Operands are read through strides,
 * so a transposed matrix costs nothing:
 *   A(m, k) = A[m*ars + k*acs], B(k, n) = B[k*brs + n*bcs], C(m, n) = C[m*ldc + n].
 * Kernel sets may tile, pack and block this in any way that keeps each
 * C(m, n) one sum in ascending k; a block of k may end and the next one
 * resume from the value stored in C (spec §4.1), never start from +0 and be
 * added afterwards (the mutant `gemm-split-k`). */
typedef struct it_gemm_args {
    size_t M, N, K;
    const float *A;
    size_t ars, acs;
    const float *B;
    size_t brs, bcs;
    float *C;
    size_t ldc;
    int accumulate;
    const float *bias;
} it_gemm_args;

/* Attention over rows (spec §5.11, §5.12), the arguments of
 * it_rows_attention_forward/backward: row r has the query Q + r*ldq, the T
 * keys and values K, V + (r*T + t)*ldkv, the weights Wt + r*H*T; forward
 * writes Z + r*ldz; backward reads dZ + r*ldz and writes dQ + r*ldq_out,
 * dK, dV + (r*T + t)*ldkv_out. */
typedef struct it_attention_args {
    size_t T, H, dh;
    float scale;
    const float *Q;
    size_t ldq;
    const float *K, *V;
    size_t ldkv;
    float *Wt;
    float *Z; /* forward: output */
    const float *dZ;
    size_t ldz;
    float *dQ;
    size_t lddq;
    float *dK, *dV;
    size_t lddkv;
} it_attention_args;

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

    /* ---- the batched layers of isotrain.h's it_rows_* API (rows.c splits
     * them over threads; each entry computes one share). The portable
     * entries are the readable definitions: a loop over rows (or elements)
     * calling the one-row function of the clause. ---- */

    /* spec §4.1, §4.5: the general product of it_gemm_args */
    void (*gemm)(const struct it_gemm_args *g);
    /* §4.5: acc[c] = acc[c] + X[0][c] + X[1][c] + ... (rows ascending): bias
     * gradients, resumed from the stored partial */
    void (*colsum_acc)(size_t rows, size_t cols, const float *X, size_t ldx, float *acc);
    /* Y = A + B elementwise (one rounding each); ldb = 0 repeats B's row */
    void (*add_rows)(size_t rows, size_t cols, const float *A, size_t lda, const float *B, size_t ldb, float *Y,
                     size_t ldy);
    void (*relu_fwd)(const float *x, size_t n, float *y);                    /* §5.9 */
    void (*relu_bwd)(const float *x, const float *dy, size_t n, float *dx);  /* §5.10 */
    void (*tanh_bwd)(const float *y, const float *dy, size_t n, float *dx);  /* §5.6 */
    /* §5.4 over rows: probabilities into P (may be Z), loss[r] when loss
     * is not NULL */
    void (*softmax_xent_fwd)(size_t rows, size_t n, const float *Z, size_t ldz, const uint32_t *targets,
                             float *loss, float *P, size_t ldp);
    /* §5.5 over rows (dZ may be P) */
    void (*softmax_xent_bwd)(size_t rows, size_t n, const float *P, size_t ldp, const uint32_t *targets,
                             float scale, float *dZ, size_t lddz);
    /* §5.11 / §5.12 over rows (struct it_attention_args, rows.c) */
    void (*attention_fwd)(const struct it_attention_args *a, size_t r0, size_t r1);
    void (*attention_bwd)(const struct it_attention_args *a, size_t r0, size_t r1);
    /* §7.2 over n elements */
    void (*adamw)(const it_adamw_consts *c, float bc1, float bc2, float *p, const float *g, float *m, float *v,
                  size_t n);
    /* §3.6 over arrays: y[i] = sqrt(x[i]) */
    void (*sqrtf_v)(const float *x, float *y, size_t n);
    /* §5.18 / §5.19 for one sequence: it_causal_attention_forward_scratch
     * and _backward_scratch (isotrain.h), the same arguments and bits */
    void (*causal_fwd)(const float *q, const float *k, const float *v, size_t T, size_t H, size_t dh, float scale,
                       float *w, float *z, float *wp);
    void (*causal_bwd)(const float *q, const float *k, const float *v, const float *w, const float *dz, size_t T,
                       size_t H, size_t dh, float scale, float *dq, float *dk, float *dv, float *wp, float *dkp,
                       float *dvp);
    /* §5.16 / §5.17 over n elements: it_gelu_forward, it_gelu_backward.
     * t (n floats, or NULL): where the forward may keep tanh(u(x)) and the
     * backward read it instead of recomputing it (the same bits); the
     * portable set recomputes, as §5.17 is written. */
    void (*gelu_fwd)(const float *x, size_t n, float *y, float *t);
    void (*gelu_bwd)(const float *x, const float *t, const float *dy, size_t n, float *dx);
    /* §5.14 over `rows` contiguous rows of n: it_layernorm_forward per row */
    void (*layernorm_fwd)(size_t rows, size_t n, const float *X, const float *w, const float *b, float eps,
                          float *Y, float *xhat, float *rstd);
    /* §5.15's input side per row (it_layernorm_backward_input) and the
     * terms of dw, P = dY * xhat, elementwise */
    void (*layernorm_bwd)(size_t rows, size_t n, const float *xhat, const float *rstd, const float *w,
                          const float *dY, float *dX, float *P);
} it_kernel_set;

extern const it_kernel_set it_kernels_portable;
#if defined(__x86_64__)
extern const it_kernel_set it_kernels_sse2, it_kernels_avx, it_kernels_avx2, it_kernels_avx512;
#endif
#if defined(__aarch64__)
extern const it_kernel_set it_kernels_neon;
#endif

/* ---- SHA-256 compression (spec §8.2, FIPS 180-4 §6.2.2): the portable
 * definition (sha256.c) and the CPU's instructions, which give its bits;
 * dispatch.c uses the instructions with every set but portable when the
 * CPU has them. */
extern const uint32_t it_sha256_k[64];
typedef void (*it_sha256_blocks_fn)(uint32_t h[8], const unsigned char *p, size_t nblocks);
void it_sha256_blocks_portable(uint32_t h[8], const unsigned char *p, size_t nblocks);
#if defined(__x86_64__)
void it_sha256_blocks_shani(uint32_t h[8], const unsigned char *p, size_t nblocks); /* x86_sha.c */
#endif
#if defined(__aarch64__)
void it_sha256_blocks_armv8(uint32_t h[8], const unsigned char *p, size_t nblocks); /* arm_sha2.c */
#endif
/* the compression in use */
it_sha256_blocks_fn it_sha256_blocks(void);

/* 1: the SIMD sets' matrix products use 128-bit tiles (simd_body.h), the
 * faster ones where a wider vector runs as two halves (AMD Zen 1). Chosen
 * from CPUID, or by ISOTRAIN_GEMM_TILE=wide|narrow|auto; speed only, never
 * bits. it_gemm_tile_select(NULL) goes back to the automatic choice;
 * -1 for a name it does not know. */
int it_gemm_narrow(void);
int it_gemm_tile_select(const char *name);
/* The blocks of the SIMD products (gemm_body.h) and this thread's buffer for
 * their packed copies: KC*NC floats of B, then MC*KC of A (dispatch.c; one
 * per thread, shared by every set, never allocated in a step). */
enum { IT_GEMM_KC = 256, IT_GEMM_NC = 128, IT_GEMM_MC = 48 };
float *it_gemm_scratch(void);

/* The set in use (chosen on first use if nothing was selected). */
const it_kernel_set *it_kernels(void);

/* The readable loops (sgd.c, mlp13k.c) of the portable set. */
void it_sgd_update_portable(float *p, const float *g, size_t n, float lr);
/* The readable per-position loop of spec §11.6 (mlp13k.c). */
float it_mlp13k_loss_grad_portable(const float *params, const unsigned char *xs, const unsigned char *ys,
                                   size_t batch, float *grads);
/* The readable definitions of the batched entries (portable.c, attention.c,
 * adamw.c, sqrt.c), which every kernel set must reproduce bit for bit. */
void it_gemm_portable(const it_gemm_args *g);
void it_relu_forward_portable(const float *x, size_t n, float *y);
void it_relu_backward_portable(const float *x, const float *dy, size_t n, float *dx);
void it_adamw_update_portable(const it_adamw_consts *c, float bc1, float bc2, float *p, const float *g, float *m,
                              float *v, size_t n);
void it_tanh_backward_portable(const float *y, const float *dy, size_t n, float *dx);
/* spec §11.6 built on the it_rows_* API (mlp13k.c): the SIMD sets' entry */
float it_mlp13k_loss_grad_rows(const float *params, const unsigned char *xs, const unsigned char *ys, size_t batch,
                               float *grads);
/* §5.15's input side for one row (layernorm.c): dx only; gptchar.c sums
 * the parameter side over rows through isotrain_reduce.h. */
void it_layernorm_backward_input(const float *xhat, float rstd, const float *w, const float *dy, size_t n, float *dx);
/* The readable matrix product (portable.c). */
void it_matmul_portable(size_t M, size_t N, size_t K, const float *A, size_t ars, size_t acs, const float *B,
                        size_t ldb, float *C, size_t ldc, int accumulate);

#endif
