/* The batched layers of isotrain.h (it_rows_*, it_tensor_*): argument
 * checks, then the kernel set's entry, with the outputs split over threads
 * (pool.c). Every split here divides OUTPUTS: rows of Y or dX, rows of dW
 * (with their db elements), columns of dE, elements of an elementwise op.
 * No sum is ever divided, so every thread count gives the same bits
 * (spec §4.1, §13.5). */
#include <string.h>

#include "isotrain.h"
#include "kernels/kernels.h"
#include "pool.h"

/* Below this many multiply-adds (or elements) per extra thread, a call
 * stays on one thread: waking a worker costs more than it saves. Speed
 * only; never bits. */
enum { MIN_WORK_PER_THREAD = 1 << 16 };

/* Row shares of a product are multiples of ROW_ALIGN rows: 8, not a whole
 * number of every set's tiles (24), so 64 or 63 rows split 32/32, not 24/40
 * (gptchar's weight gradients: the second thread waited for the first); a
 * share's last tile is then a partial one (speed only). */
enum { ROW_ALIGN = 8 };

static unsigned parts_for(unsigned threads, double work)
{
    if (threads > IT_POOL_MAX)
        threads = IT_POOL_MAX;
    if (threads <= 1)
        return 1;
    double most = work / MIN_WORK_PER_THREAD;
    if (most < 2)
        return 1;
    return most < threads ? (unsigned)most : threads;
}

/* a matrix argument: NULL only when it has no element; ld covers its row */
static int bad_matrix(const void *p, size_t rows, size_t cols, size_t ld)
{
    if (rows == 0 || cols == 0)
        return 0;
    return p == NULL || (rows > 1 && ld < cols);
}

/* ---- products --------------------------------------------------------------- */

typedef struct {
    const it_kernel_set *ks;
    it_gemm_args g;
    int split_n; /* 1: shares are column ranges, 0: row ranges */
} gemm_job;

static void gemm_part(void *ctx, unsigned part, unsigned parts)
{
    const gemm_job *j = ctx;
    it_gemm_args g = j->g;
    size_t lo, hi;
    if (j->split_n) {
        it_share(g.N, 32, part, parts, &lo, &hi);
        g.N = hi - lo;
        g.B += lo * g.bcs;
        g.C += lo;
        if (g.bias)
            g.bias += lo;
    } else {
        it_share(g.M, ROW_ALIGN, part, parts, &lo, &hi);
        g.M = hi - lo;
        g.A += lo * g.ars;
        g.C += lo * g.ldc;
    }
    if (g.M > 0 && g.N > 0)
        j->ks->gemm(&g);
}

static void gemm_threads(const it_gemm_args *g, unsigned threads)
{
    gemm_job j = {it_kernels(), *g, 0};
    unsigned parts = parts_for(threads, (double)g->M * (double)g->N * (double)(g->K + 1));
    j.split_n = g->M < (size_t)parts * 24 && g->N > g->M;
    it_parallel(parts, gemm_part, &j);
}

int it_rows_linear_forward(size_t rows, size_t in, size_t out, const float *X, size_t ldx, const float *W,
                           const float *b, float *Y, size_t ldy, unsigned threads)
{
    if (bad_matrix(X, rows, in, ldx) || bad_matrix(W, out, in, in) || bad_matrix(Y, rows, out, ldy))
        return -1;
    if (rows == 0 || out == 0)
        return 0;
    /* Y(r, o) = SUM_i X(r, i) W(o, i): A = X, B(i, o) = W[o*in + i] */
    it_gemm_args g = {rows, out, in, X, ldx, 1, W, 1, in, Y, ldy, 0, b};
    gemm_threads(&g, threads);
    return 0;
}

int it_rows_linear_backward_input(size_t rows, size_t in, size_t out, const float *dY, size_t lddy, const float *W,
                                  float *dX, size_t lddx, unsigned threads)
{
    if (bad_matrix(dY, rows, out, lddy) || bad_matrix(W, out, in, in) || bad_matrix(dX, rows, in, lddx))
        return -1;
    if (rows == 0 || in == 0)
        return 0;
    /* dX(r, i) = SUM_o dY(r, o) W(o, i): B = W as it is stored */
    it_gemm_args g = {rows, in, out, dY, lddy, 1, W, in, 1, dX, lddx, 0, NULL};
    gemm_threads(&g, threads);
    return 0;
}

typedef struct {
    const it_kernel_set *ks;
    size_t rows, in, out, lddy, ldx;
    const float *dY, *X;
    float *dW, *db;
    int split_in; /* 1: shares are column ranges of dW, 0: row ranges */
} params_job;

/* A share of dW and a share of db, each a set of whole sums. Rows [lo, hi)
 * of dW read dY's columns [lo, hi) and all of X; where X is the wider
 * (in > out: the MLP's projection), each thread would read all of it, so
 * the shares are columns of dW instead and each reads half of X. */
static void params_part(void *ctx, unsigned part, unsigned parts)
{
    const params_job *j = ctx;
    size_t lo, hi;
    /* dW(o, i) += SUM_r dY(r, o) X(r, i): A(o, r) = dY[r*lddy + o] */
    it_gemm_args g = {j->out, j->in, j->rows, j->dY, 1, j->lddy, j->X, j->ldx, 1, j->dW, j->in, 1, NULL};
    if (j->split_in) {
        it_share(j->in, 32, part, parts, &lo, &hi);
        g.N = hi - lo;
        g.B += lo;
        g.C += lo;
    } else {
        it_share(j->out, ROW_ALIGN, part, parts, &lo, &hi);
        g.M = hi - lo;
        g.A += lo;
        g.C += lo * j->in;
    }
    if (g.M > 0 && g.N > 0)
        j->ks->gemm(&g);
    if (j->db) {
        it_share(j->out, ROW_ALIGN, part, parts, &lo, &hi);
        if (lo < hi)
            j->ks->colsum_acc(j->rows, hi - lo, j->dY + lo, j->lddy, j->db + lo);
    }
}

int it_rows_linear_backward_params(size_t rows, size_t in, size_t out, const float *dY, size_t lddy, const float *X,
                                   size_t ldx, float *dW, float *db, unsigned threads)
{
    if (bad_matrix(dY, rows, out, lddy) || bad_matrix(X, rows, in, ldx) || bad_matrix(dW, out, in, in))
        return -1;
    if (rows == 0 || out == 0)
        return 0; /* no term: every partial sum stays as it is */
    params_job j = {it_kernels(), rows, in, out, lddy, ldx, dY, X, dW, db, in > out};
    it_parallel(parts_for(threads, (double)rows * (double)out * (double)(in + 1)), params_part, &j);
    return 0;
}

/* ---- embeddings ---------------------------------------------------------- */

static int bad_tokens(const uint32_t *tokens, size_t rows, size_t vocab)
{
    if (rows == 0)
        return 0;
    if (!tokens)
        return 1;
    for (size_t r = 0; r < rows; r++)
        if (tokens[r] >= vocab)
            return 1;
    return 0;
}

int it_rows_embedding_forward(size_t rows, size_t dim, size_t vocab, const float *E, const uint32_t *tokens,
                              float *Y, size_t ldy, unsigned threads)
{
    (void)threads; /* a copy: memory speed on one thread */
    if (bad_matrix(E, vocab, dim, dim) || bad_matrix(Y, rows, dim, ldy) || bad_tokens(tokens, rows, vocab))
        return -1;
    for (size_t r = 0; r < rows && dim > 0; r++)
        memcpy(Y + r * ldy, E + (size_t)tokens[r] * dim, sizeof(float) * dim);
    return 0;
}

typedef struct {
    const it_kernel_set *ks;
    size_t rows, dim, lddy;
    const uint32_t *tokens;
    const float *dY;
    float *dE;
} scatter_job;

/* columns [lo, hi) of every row of dE: each element's sum stays in one
 * share, its terms in ascending row order */
static void scatter_part(void *ctx, unsigned part, unsigned parts)
{
    const scatter_job *j = ctx;
    size_t lo, hi;
    it_share(j->dim, 16, part, parts, &lo, &hi);
    if (lo == hi)
        return;
    for (size_t r = 0; r < j->rows; r++) {
        float *row = j->dE + (size_t)j->tokens[r] * j->dim + lo;
        j->ks->add_rows(1, hi - lo, row, 0, j->dY + r * j->lddy + lo, 0, row, 0);
    }
}

int it_rows_embedding_backward(size_t rows, size_t dim, size_t vocab, const uint32_t *tokens, const float *dY,
                               size_t lddy, float *dE, unsigned threads)
{
    if (bad_matrix(dE, vocab, dim, dim) || bad_matrix(dY, rows, dim, lddy) || bad_tokens(tokens, rows, vocab))
        return -1;
    if (rows == 0 || dim == 0)
        return 0;
    scatter_job j = {it_kernels(), rows, dim, lddy, tokens, dY, dE};
    it_parallel(parts_for(threads, (double)rows * (double)dim), scatter_part, &j);
    return 0;
}

/* ---- elementwise ----------------------------------------------------------- */

enum { OP_ADD, OP_RELU_F, OP_RELU_B, OP_TANH_F, OP_TANH_B };

typedef struct {
    const it_kernel_set *ks;
    int op;
    size_t rows, cols;
    const float *A;
    size_t lda;
    const float *B;
    size_t ldb;
    float *Y;
    size_t ldy;
} elem_job;

static void elem_rows(const elem_job *j, size_t r0, size_t r1)
{
    const it_kernel_set *ks = j->ks;
    if (j->op == OP_ADD) {
        ks->add_rows(r1 - r0, j->cols, j->A + r0 * j->lda, j->lda, j->B + r0 * j->ldb, j->ldb, j->Y + r0 * j->ldy,
                     j->ldy);
        return;
    }
    /* contiguous rows go through as one array */
    int flat = j->lda == j->cols && j->ldy == j->cols && (j->op == OP_RELU_F || j->op == OP_TANH_F ||
                                                            j->ldb == j->cols);
    size_t step = flat ? r1 - r0 : 1, n = flat ? (r1 - r0) * j->cols : j->cols;
    for (size_t r = r0; r < r1; r += step) {
        const float *a = j->A + r * j->lda;
        float *y = j->Y + r * j->ldy;
        switch (j->op) {
        case OP_RELU_F: ks->relu_fwd(a, n, y); break;
        case OP_RELU_B: ks->relu_bwd(a, j->B + r * j->ldb, n, y); break;
        case OP_TANH_F: ks->tanhf_v(a, y, n); break;
        case OP_TANH_B: ks->tanh_bwd(a, j->B + r * j->ldb, n, y); break;
        }
    }
}

static void elem_part(void *ctx, unsigned part, unsigned parts)
{
    const elem_job *j = ctx;
    size_t lo, hi;
    it_share(j->rows, 1, part, parts, &lo, &hi);
    if (lo < hi)
        elem_rows(j, lo, hi);
}

static int elementwise(int op, size_t rows, size_t cols, const float *A, size_t lda, const float *B, size_t ldb,
                       float *Y, size_t ldy, unsigned threads)
{
    int b_used = op != OP_RELU_F && op != OP_TANH_F;
    if (bad_matrix(A, rows, cols, lda) || bad_matrix(Y, rows, cols, ldy) ||
        (b_used && (op == OP_ADD && ldb == 0 ? bad_matrix(B, 1, cols, cols) : bad_matrix(B, rows, cols, ldb))))
        return -1;
    if (rows == 0 || cols == 0)
        return 0;
    elem_job j = {it_kernels(), op, rows, cols, A, lda, B, ldb, Y, ldy};
    it_parallel(parts_for(threads, (double)rows * (double)cols), elem_part, &j);
    return 0;
}

int it_rows_add(size_t rows, size_t cols, const float *A, size_t lda, const float *B, size_t ldb, float *Y,
                size_t ldy, unsigned threads)
{
    return elementwise(OP_ADD, rows, cols, A, lda, B, ldb, Y, ldy, threads);
}

int it_rows_relu_forward(size_t rows, size_t cols, const float *X, size_t ldx, float *Y, size_t ldy,
                         unsigned threads)
{
    return elementwise(OP_RELU_F, rows, cols, X, ldx, NULL, 0, Y, ldy, threads);
}

int it_rows_relu_backward(size_t rows, size_t cols, const float *X, size_t ldx, const float *dY, size_t lddy,
                          float *dX, size_t lddx, unsigned threads)
{
    return elementwise(OP_RELU_B, rows, cols, X, ldx, dY, lddy, dX, lddx, threads);
}

int it_rows_tanh_forward(size_t rows, size_t cols, const float *X, size_t ldx, float *Y, size_t ldy,
                         unsigned threads)
{
    return elementwise(OP_TANH_F, rows, cols, X, ldx, NULL, 0, Y, ldy, threads);
}

int it_rows_tanh_backward(size_t rows, size_t cols, const float *Y, size_t ldy, const float *dY, size_t lddy,
                          float *dX, size_t lddx, unsigned threads)
{
    return elementwise(OP_TANH_B, rows, cols, Y, ldy, dY, lddy, dX, lddx, threads);
}

/* ---- softmax and cross-entropy -------------------------------------------- */

typedef struct {
    const it_kernel_set *ks;
    int backward;
    size_t rows, n;
    const float *Z;
    size_t ldz;
    const uint32_t *targets;
    float *loss;
    float scale;
    float *P;
    size_t ldp;
} xent_job;

static void xent_part(void *ctx, unsigned part, unsigned parts)
{
    const xent_job *j = ctx;
    size_t lo, hi;
    it_share(j->rows, 8, part, parts, &lo, &hi);
    if (lo == hi)
        return;
    if (j->backward)
        j->ks->softmax_xent_bwd(hi - lo, j->n, j->Z + lo * j->ldz, j->ldz, j->targets + lo, j->scale,
                                j->P + lo * j->ldp, j->ldp);
    else
        j->ks->softmax_xent_fwd(hi - lo, j->n, j->Z + lo * j->ldz, j->ldz, j->targets + lo,
                                j->loss ? j->loss + lo : NULL, j->P + lo * j->ldp, j->ldp);
}

int it_rows_softmax_xent_forward(size_t rows, size_t n, const float *Z, size_t ldz, const uint32_t *targets,
                                 float *loss, float *P, size_t ldp, unsigned threads)
{
    if (n == 0 || bad_matrix(Z, rows, n, ldz) || bad_matrix(P, rows, n, ldp) || bad_tokens(targets, rows, n))
        return -1;
    if (rows == 0)
        return 0;
    xent_job j = {it_kernels(), 0, rows, n, Z, ldz, targets, loss, 0.0f, P, ldp};
    it_parallel(parts_for(threads, (double)rows * (double)n * 8), xent_part, &j);
    return 0;
}

int it_rows_softmax_xent_backward(size_t rows, size_t n, const float *P, size_t ldp, const uint32_t *targets,
                                  float scale, float *dZ, size_t lddz, unsigned threads)
{
    if (n == 0 || bad_matrix(P, rows, n, ldp) || bad_matrix(dZ, rows, n, lddz) || bad_tokens(targets, rows, n))
        return -1;
    if (rows == 0)
        return 0;
    xent_job j = {it_kernels(), 1, rows, n, P, ldp, targets, NULL, scale, dZ, lddz};
    it_parallel(parts_for(threads, (double)rows * (double)n), xent_part, &j);
    return 0;
}

/* ---- attention -------------------------------------------------------------- */

typedef struct {
    const it_kernel_set *ks;
    it_attention_args a;
    size_t rows;
    int backward;
} attn_job;

static void attn_part(void *ctx, unsigned part, unsigned parts)
{
    const attn_job *j = ctx;
    size_t lo, hi;
    it_share(j->rows, 8, part, parts, &lo, &hi);
    if (lo == hi)
        return;
    if (j->backward)
        j->ks->attention_bwd(&j->a, lo, hi);
    else
        j->ks->attention_fwd(&j->a, lo, hi);
}

/* T <= 16 keys (it_attention_backward's bound), H*dh the width */
static int bad_attention(size_t rows, size_t T, size_t H, size_t dh, const float *Q, size_t ldq, const float *K,
                         const float *V, size_t ldkv)
{
    return T == 0 || T > 16 || H == 0 || dh == 0 || bad_matrix(Q, rows, H * dh, ldq) ||
           bad_matrix(K, rows * T, H * dh, ldkv) || bad_matrix(V, rows * T, H * dh, ldkv);
}

int it_rows_attention_forward(size_t rows, size_t T, size_t H, size_t dh, float scale, const float *Q, size_t ldq,
                              const float *K, const float *V, size_t ldkv, float *Wt, float *Z, size_t ldz,
                              unsigned threads)
{
    if (bad_attention(rows, T, H, dh, Q, ldq, K, V, ldkv) || bad_matrix(Z, rows, H * dh, ldz) ||
        (rows > 0 && !Wt))
        return -1;
    if (rows == 0)
        return 0;
    attn_job j = {it_kernels(), {T, H, dh, scale, Q, ldq, K, V, ldkv, Wt, Z, NULL, ldz, NULL, 0, NULL, NULL, 0},
                  rows, 0};
    it_parallel(parts_for(threads, (double)rows * (double)(T * H * dh) * 4), attn_part, &j);
    return 0;
}

int it_rows_attention_backward(size_t rows, size_t T, size_t H, size_t dh, float scale, const float *Q, size_t ldq,
                               const float *K, const float *V, size_t ldkv, const float *Wt, const float *dZ,
                               size_t lddz, float *dQ, size_t lddq, float *dK, float *dV, size_t lddkv,
                               unsigned threads)
{
    if (bad_attention(rows, T, H, dh, Q, ldq, K, V, ldkv) || bad_matrix(dZ, rows, H * dh, lddz) ||
        bad_matrix(dQ, rows, H * dh, lddq) || bad_matrix(dK, rows * T, H * dh, lddkv) ||
        bad_matrix(dV, rows * T, H * dh, lddkv) || (rows > 0 && !Wt))
        return -1;
    if (rows == 0)
        return 0;
    attn_job j = {it_kernels(),
                  {T, H, dh, scale, Q, ldq, K, V, ldkv, (float *)Wt, NULL, dZ, lddz, dQ, lddq, dK, dV, lddkv},
                  rows, 1};
    it_parallel(parts_for(threads, (double)rows * (double)(T * H * dh) * 6), attn_part, &j);
    return 0;
}

/* ---- optimizers --------------------------------------------------------------- */

typedef struct {
    const it_kernel_set *ks;
    const it_adamw_consts *c;
    float bc1, bc2, lr;
    float *p, *m, *v;
    const float *g;
    size_t n;
} opt_job;

static void adamw_part(void *ctx, unsigned part, unsigned parts)
{
    const opt_job *j = ctx;
    size_t lo, hi;
    it_share(j->n, 64, part, parts, &lo, &hi);
    if (lo < hi)
        j->ks->adamw(j->c, j->bc1, j->bc2, j->p + lo, j->g + lo, j->m + lo, j->v + lo, hi - lo);
}

static void sgd_part(void *ctx, unsigned part, unsigned parts)
{
    const opt_job *j = ctx;
    size_t lo, hi;
    it_share(j->n, 64, part, parts, &lo, &hi);
    if (lo < hi)
        j->ks->sgd(j->p + lo, j->g + lo, hi - lo, j->lr);
}

int it_tensor_adamw_update(const it_adamw_consts *c, float bc1, float bc2, float *p, const float *g, float *m,
                           float *v, size_t n, unsigned threads)
{
    if (n > 0 && (!c || !p || !g || !m || !v))
        return -1;
    opt_job j = {it_kernels(), c, bc1, bc2, 0.0f, p, m, v, g, n};
    it_parallel(parts_for(threads, (double)n * 8), adamw_part, &j);
    return 0;
}

int it_tensor_sgd_update(float *p, const float *g, size_t n, float lr, unsigned threads)
{
    if (n > 0 && (!p || !g))
        return -1;
    opt_job j = {it_kernels(), NULL, 0.0f, 0.0f, lr, p, NULL, NULL, g, n};
    it_parallel(parts_for(threads, (double)n), sgd_part, &j);
    return 0;
}

void it_sqrtf_array(const float *x, float *y, size_t n) { it_kernels()->sqrtf_v(x, y, n); }
