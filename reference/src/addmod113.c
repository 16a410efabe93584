/* Profile addmod113 (spec §13): the one-layer transformer of Nanda et al.'s
 * grokking study learning (a + b) mod 113 from [a, b, =], trained full batch
 * with AdamW.
 *
 * Read it like llm.c's train_gpt2.c: forward() runs the layers over all pairs
 * of a batch, backward() runs them in reverse. Every matrix product goes
 * through matmul(), whose portable form (kernels/portable.c) is the
 * definition: one ascending SUM per output element. The kernel sets and the
 * threads change only who computes which output element. Only position 2
 * (the '=' token) is computed beyond the keys and values: nothing at
 * positions 0 and 1 after attention reaches the loss (spec §13.5). */
#define _POSIX_C_SOURCE 200809L
/* Threads come from libc's POSIX threads (glibc 2.34+ has them in libc
 * itself). A Windows build (MinGW) would need libwinpthread beside the C
 * library, so there every share runs on the calling thread: the same bits,
 * since threads only ever split independent outputs. */
#if defined(_WIN32)
#define IT_NO_THREADS 1
#else
#include <pthread.h>
#endif
#include <stdlib.h>
#include <string.h>

#include "isotrain.h"
#include "kernels/kernels.h"

enum { D = IT_AM_D, H = IT_AM_HEADS, DH = IT_AM_DHEAD, F = IT_AM_MLP, NV = IT_AM_VOCAB, NO = IT_AM_MOD, T = IT_AM_CTX };

/* spec §13.2: checkpoint order; the stream of §13.4 is the index here */
const it_tensor_info it_addmod113_tensors[11] = {
    {"w_e", IT_AM_OFF_WE, NV, D},      {"w_pos", IT_AM_OFF_WPOS, T, D}, {"w_q", IT_AM_OFF_WQ, D, D},
    {"w_k", IT_AM_OFF_WK, D, D},       {"w_v", IT_AM_OFF_WV, D, D},     {"w_o", IT_AM_OFF_WO, D, D},
    {"w_in", IT_AM_OFF_WIN, F, D},     {"b_in", IT_AM_OFF_BIN, F, 1},   {"w_out", IT_AM_OFF_WOUT, D, F},
    {"b_out", IT_AM_OFF_BOUT, D, 1},   {"w_u", IT_AM_OFF_WU, NO, D},
};

/* spec §13.1 and §13.4 */
#define SCALE_D_BITS 0x3e1cc471u   /* RN(sqrt(3/128)): uniform with the std of randn/sqrt(128) */
#define SCALE_U_BITS 0x3e261d5fu   /* RN(sqrt(3/114)): W_U was randn/sqrt(d_vocab = 114) */
#define ATTN_SCALE_BITS 0x3e3504f3u /* RN(1/sqrt(32)) */
#define INV_NTRAIN_BITS 0x3988daa5u /* RN(1/3831) = 1 / 3831 in one rounding */
enum { STREAM_PERM = 11 };

/* spec §6.5: Fisher-Yates from the top, draw k for position n-1-k */
void it_addmod113_permutation(uint64_t seed, uint32_t perm[IT_AM_PAIRS])
{
    for (uint32_t i = 0; i < IT_AM_PAIRS; i++)
        perm[i] = i;
    for (uint32_t k = 0; k + 1 < IT_AM_PAIRS; k++) {
        uint32_t i = IT_AM_PAIRS - 1 - k;
        uint32_t j = it_u32_below(it_rng_u32(seed, STREAM_PERM, k), i + 1);
        uint32_t tmp = perm[i];
        perm[i] = perm[j];
        perm[j] = tmp;
    }
}

/* spec §13.4: every weight uniform on [-c, c) from its own stream; biases +0 */
void it_addmod113_init(uint64_t seed, float *params)
{
    for (uint32_t s = 0; s < 11; s++) {
        const it_tensor_info *ti = &it_addmod113_tensors[s];
        size_t n = ti->rows * ti->cols;
        float *t = params + ti->offset;
        if (ti->cols == 1) { /* b_in, b_out */
            for (size_t i = 0; i < n; i++)
                t[i] = 0.0f;
            continue;
        }
        float c = it_f32_from_bits(s == 10 ? SCALE_U_BITS : SCALE_D_BITS);
        for (size_t i = 0; i < n; i++)
            t[i] = it_u32_to_symmetric(it_rng_u32(seed, s, i)) * c;
    }
}

/* ---- matrix products on threads: rows of C split, each sum whole ---------- */

typedef struct {
    const it_kernel_set *ks;
    size_t M, N, K, ars, acs, ldb, ldc;
    const float *A, *B;
    float *C;
    int acc;
} mm_job;

static void *mm_run(void *arg)
{
    const mm_job *j = arg;
    j->ks->matmul(j->M, j->N, j->K, j->A, j->ars, j->acs, j->B, j->ldb, j->C, j->ldc, j->acc);
    return NULL;
}

enum { MAX_THREADS = 64 };

static void matmul(unsigned threads, size_t M, size_t N, size_t K, const float *A, size_t ars, size_t acs,
                   const float *B, size_t ldb, float *C, size_t ldc, int acc)
{
    const it_kernel_set *ks = it_kernels(); /* chosen here, never racing in the threads */
    if (threads > MAX_THREADS)
        threads = MAX_THREADS;
    if (threads <= 1 || M < 2 * (size_t)threads) {
        ks->matmul(M, N, K, A, ars, acs, B, ldb, C, ldc, acc);
        return;
    }
    mm_job jobs[MAX_THREADS];
    size_t m0 = 0;
    for (unsigned t = 0; t < threads; t++) {
        size_t m1 = M * (t + 1) / threads;
        jobs[t] = (mm_job){ks, m1 - m0, N, K, ars, acs, ldb, ldc, A + m0 * ars, B, C + m0 * ldc, acc};
        m0 = m1;
    }
#ifdef IT_NO_THREADS
    for (unsigned t = 0; t < threads; t++)
        mm_run(&jobs[t]);
#else
    /* thread 0's share runs here; a thread that cannot start runs inline */
    pthread_t tid[MAX_THREADS];
    int started[MAX_THREADS];
    for (unsigned t = 1; t < threads; t++) {
        started[t] = pthread_create(&tid[t], NULL, mm_run, &jobs[t]) == 0;
        if (!started[t])
            mm_run(&jobs[t]);
    }
    mm_run(&jobs[0]);
    for (unsigned t = 1; t < threads; t++)
        if (started[t])
            pthread_join(tid[t], NULL);
#endif
}

/* W (rows x cols) into WT (cols x rows): products read B[k][n] */
static void transpose(const float *W, size_t rows, size_t cols, float *WT)
{
    for (size_t r = 0; r < rows; r++)
        for (size_t c = 0; c < cols; c++)
            WT[c * rows + r] = W[r * cols + c];
}

/* acc[c] = SUM over rows i ascending of X[i][c], from +0 (bias gradients) */
static void column_sums(const float *X, size_t n, size_t cols, float *acc)
{
    for (size_t c = 0; c < cols; c++)
        acc[c] = 0.0f;
    for (size_t i = 0; i < n; i++)
        for (size_t c = 0; c < cols; c++)
            acc[c] = acc[c] + X[i * cols + c];
}

/* ---- activations of a batch of n pairs ------------------------------------ */

typedef struct {
    size_t n;
    float *X;    /* 3n x D: row 3i+t is x_t = W_E[token_t] + W_pos[t] of pair i */
    float *Q;    /* n x D: the query of position 2 */
    float *K, *V; /* 3n x D */
    float *W;    /* n x H x T attention weights */
    float *Z;    /* n x D: heads concatenated */
    float *R;    /* n x D: x_2 + attention output */
    float *PRE, *POST; /* n x F */
    float *R2;   /* n x D: R + MLP output */
    float *L;    /* n x NO: logits, then probabilities */
    float *loss; /* n per-pair losses */
    unsigned char *label;
} acts;

typedef struct {
    float WQt[D * D], WKt[D * D], WVt[D * D], WOt[D * D], WINt[D * F], WOUTt[F * D], WUt[D * NO];
} weights_t;

static int acts_alloc(acts *a, size_t n)
{
    memset(a, 0, sizeof *a);
    a->n = n;
    a->X = malloc(sizeof(float) * 3 * n * D);
    a->Q = malloc(sizeof(float) * n * D);
    a->K = malloc(sizeof(float) * 3 * n * D);
    a->V = malloc(sizeof(float) * 3 * n * D);
    a->W = malloc(sizeof(float) * n * H * T);
    a->Z = malloc(sizeof(float) * n * D);
    a->R = malloc(sizeof(float) * n * D);
    a->PRE = malloc(sizeof(float) * n * F);
    a->POST = malloc(sizeof(float) * n * F);
    a->R2 = malloc(sizeof(float) * n * D);
    a->L = malloc(sizeof(float) * n * NO);
    a->loss = malloc(sizeof(float) * n);
    a->label = malloc(n);
    return a->X && a->Q && a->K && a->V && a->W && a->Z && a->R && a->PRE && a->POST && a->R2 && a->L &&
                   a->loss && a->label
               ? 0
               : -1;
}

static void acts_free(acts *a)
{
    free(a->X), free(a->Q), free(a->K), free(a->V), free(a->W), free(a->Z), free(a->R);
    free(a->PRE), free(a->POST), free(a->R2), free(a->L), free(a->loss), free(a->label);
}

static void prepare_weights(const float *params, weights_t *w)
{
    transpose(params + IT_AM_OFF_WQ, D, D, w->WQt);
    transpose(params + IT_AM_OFF_WK, D, D, w->WKt);
    transpose(params + IT_AM_OFF_WV, D, D, w->WVt);
    transpose(params + IT_AM_OFF_WO, D, D, w->WOt);
    transpose(params + IT_AM_OFF_WIN, F, D, w->WINt);
    transpose(params + IT_AM_OFF_WOUT, D, F, w->WOUTt);
    transpose(params + IT_AM_OFF_WU, NO, D, w->WUt);
}

/* spec §13.5 forward, for pairs[0..n-1]: logits in a->L, then a->L becomes
 * the probabilities and a->loss[i] each pair's §5.4 loss. */
static void forward(const float *params, const weights_t *w, const uint32_t *pairs, acts *a, unsigned threads)
{
    const size_t n = a->n;
    const float *WE = params + IT_AM_OFF_WE, *WP = params + IT_AM_OFF_WPOS;
    const float *bin = params + IT_AM_OFF_BIN, *bout = params + IT_AM_OFF_BOUT;
    const float scale = it_f32_from_bits(ATTN_SCALE_BITS);

    /* embeddings: token plus position (§13.5 step 1) */
    for (size_t i = 0; i < n; i++) {
        unsigned tok[T] = {pairs[i] / IT_AM_MOD, pairs[i] % IT_AM_MOD, IT_AM_EQ};
        a->label[i] = (unsigned char)((tok[0] + tok[1]) % IT_AM_MOD);
        for (size_t t = 0; t < T; t++)
            for (size_t c = 0; c < D; c++)
                a->X[(3 * i + t) * D + c] = WE[tok[t] * D + c] + WP[t * D + c];
    }
    /* q of position 2; k and v of every position (§13.5 step 2) */
    matmul(threads, n, D, D, a->X + 2 * D, 3 * D, 1, w->WQt, D, a->Q, D, 0);
    matmul(threads, 3 * n, D, D, a->X, D, 1, w->WKt, D, a->K, D, 0);
    matmul(threads, 3 * n, D, D, a->X, D, 1, w->WVt, D, a->V, D, 0);
    /* attention of the query at position 2 over positions 0, 1, 2 (§5.11) */
    for (size_t i = 0; i < n; i++)
        it_attention_forward(a->Q + i * D, a->K + 3 * i * D, a->V + 3 * i * D, T, H, DH, scale,
                             a->W + i * H * T, a->Z + i * D);
    /* output projection and residual: r = x_2 + W_O z (§13.5 step 3) */
    matmul(threads, n, D, D, a->Z, D, 1, w->WOt, D, a->R, D, 0);
    for (size_t i = 0; i < n; i++)
        for (size_t c = 0; c < D; c++)
            a->R[i * D + c] = a->X[(3 * i + 2) * D + c] + a->R[i * D + c];
    /* MLP: pre = W_in r + b_in, post = relu(pre), r2 = r + (W_out post + b_out) */
    matmul(threads, n, F, D, a->R, D, 1, w->WINt, F, a->PRE, F, 0);
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < F; k++)
            a->PRE[i * F + k] = a->PRE[i * F + k] + bin[k];
    it_relu_forward(a->PRE, n * F, a->POST);
    matmul(threads, n, D, F, a->POST, F, 1, w->WOUTt, D, a->R2, D, 0);
    for (size_t i = 0; i < n; i++)
        for (size_t c = 0; c < D; c++) {
            float mlp_out = a->R2[i * D + c] + bout[c];
            a->R2[i * D + c] = a->R[i * D + c] + mlp_out;
        }
    /* unembedding and the loss of §5.4 at position 2 */
    matmul(threads, n, NO, D, a->R2, D, 1, w->WUt, NO, a->L, NO, 0);
}

/* first maximal logit (strict >), the §5.4 scan */
static unsigned argmax(const float *z, size_t n)
{
    unsigned best = 0;
    for (size_t k = 1; k < n; k++)
        if (z[k] > z[best])
            best = (unsigned)k;
    return best;
}

float it_addmod113_pair_forward(const float *params, uint32_t pair, float *logits)
{
    static weights_t w; /* 500 KiB */
    acts a;
    if (acts_alloc(&a, 1) != 0) {
        acts_free(&a);
        return it_f32_from_bits(0x7fc00000u);
    }
    prepare_weights(params, &w);
    forward(params, &w, &pair, &a, 1);
    memcpy(logits, a.L, sizeof(float) * NO);
    float probs[NO];
    float loss = it_softmax_xent_forward(a.L, NO, a.label[0], probs);
    acts_free(&a);
    return loss;
}

void it_addmod113_eval(const float *params, const uint32_t *pairs, size_t n, float scale, float *loss,
                       uint32_t *correct, unsigned threads)
{
    static weights_t w;
    enum { CHUNK = 4096 };
    acts a;
    float sum = 0.0f, probs[NO];
    uint32_t right = 0;
    prepare_weights(params, &w);
    if (acts_alloc(&a, n < CHUNK ? n : CHUNK) != 0)
        abort(); /* tens of MiB; nothing sensible to do without them */
    for (size_t i0 = 0; i0 < n; i0 += CHUNK) {
        a.n = n - i0 < CHUNK ? n - i0 : CHUNK;
        forward(params, &w, pairs + i0, &a, threads);
        for (size_t i = 0; i < a.n; i++) {
            right += argmax(a.L + i * NO, NO) == a.label[i];
            sum = sum + it_softmax_xent_forward(a.L + i * NO, NO, a.label[i], probs);
        }
    }
    acts_free(&a);
    *loss = sum * scale;
    *correct = right;
}

/* spec §13.5 backward: gradients of the mean loss, every element an
 * ascending SUM over pairs (and positions within a pair) from +0. */
float it_addmod113_loss_grad(const float *params, const uint32_t *pairs, size_t n, float *grads, unsigned threads)
{
    static weights_t w;
    const float scale = it_f32_from_bits(ATTN_SCALE_BITS);
    /* the §11.6 convention: s = 1/n in one rounding (RN(1/3831) for the profile) */
    const float s = n == IT_AM_NTRAIN ? it_f32_from_bits(INV_NTRAIN_BITS) : 1.0f / (float)n;
    acts a;
    if (acts_alloc(&a, n) != 0)
        abort();
    prepare_weights(params, &w);
    forward(params, &w, pairs, &a, threads);

    float *dL = malloc(sizeof(float) * n * NO), *dR2 = malloc(sizeof(float) * n * D),
          *dPOST = malloc(sizeof(float) * n * F), *dR = malloc(sizeof(float) * n * D),
          *dZ = malloc(sizeof(float) * n * D), *dQ = malloc(sizeof(float) * n * D),
          *dK = malloc(sizeof(float) * 3 * n * D), *dV = malloc(sizeof(float) * 3 * n * D),
          *dXq = malloc(sizeof(float) * n * D), *dXk = malloc(sizeof(float) * 3 * n * D),
          *dXv = malloc(sizeof(float) * 3 * n * D);
    if (!dL || !dR2 || !dPOST || !dR || !dZ || !dQ || !dK || !dV || !dXq || !dXk || !dXv)
        abort();
    const float *WQ = params + IT_AM_OFF_WQ, *WK = params + IT_AM_OFF_WK, *WV = params + IT_AM_OFF_WV,
                *WO = params + IT_AM_OFF_WO, *WIN = params + IT_AM_OFF_WIN, *WOUT = params + IT_AM_OFF_WOUT,
                *WU = params + IT_AM_OFF_WU;
    float *gWE = grads + IT_AM_OFF_WE, *gWP = grads + IT_AM_OFF_WPOS;

    /* loss (§5.4) and its gradient (§5.5) per pair, the loss SUM in pair order */
    float loss_sum = 0.0f;
    for (size_t i = 0; i < n; i++) {
        float probs[NO];
        float li = it_softmax_xent_forward(a.L + i * NO, NO, a.label[i], probs);
        loss_sum = loss_sum + li;
        it_softmax_xent_backward(probs, NO, a.label[i], s, dL + i * NO);
    }
    /* unembedding */
    matmul(threads, NO, D, n, dL, 1, NO, a.R2, D, grads + IT_AM_OFF_WU, D, 0);
    matmul(threads, n, D, NO, dL, NO, 1, WU, D, dR2, D, 0);
    /* MLP (the gradient of mlp_out is dR2: r2 = r + mlp_out) */
    column_sums(dR2, n, D, grads + IT_AM_OFF_BOUT);
    matmul(threads, D, F, n, dR2, 1, D, a.POST, F, grads + IT_AM_OFF_WOUT, F, 0);
    matmul(threads, n, F, D, dR2, D, 1, WOUT, F, dPOST, F, 0);
    it_relu_backward(a.PRE, dPOST, n * F, dPOST); /* dPOST becomes dPRE */
    column_sums(dPOST, n, F, grads + IT_AM_OFF_BIN);
    matmul(threads, F, D, n, dPOST, 1, F, a.R, D, grads + IT_AM_OFF_WIN, D, 0);
    matmul(threads, n, D, F, dPOST, F, 1, WIN, D, dR, D, 0);
    /* dr = dr2 + (gradient through the MLP) */
    for (size_t e = 0; e < n * D; e++)
        dR[e] = dR2[e] + dR[e];
    /* output projection */
    matmul(threads, D, D, n, dR, 1, D, a.Z, D, grads + IT_AM_OFF_WO, D, 0);
    matmul(threads, n, D, D, dR, D, 1, WO, D, dZ, D, 0);
    /* attention (§5.12) */
    for (size_t i = 0; i < n; i++)
        it_attention_backward(a.Q + i * D, a.K + 3 * i * D, a.V + 3 * i * D, a.W + i * H * T, dZ + i * D, T, H,
                              DH, scale, dQ + i * D, dK + 3 * i * D, dV + 3 * i * D);
    /* projections: weight gradients over rows (pair, position) ascending */
    matmul(threads, D, D, n, dQ, 1, D, a.X + 2 * D, 3 * D, grads + IT_AM_OFF_WQ, D, 0);
    matmul(threads, D, D, 3 * n, dK, 1, D, a.X, D, grads + IT_AM_OFF_WK, D, 0);
    matmul(threads, D, D, 3 * n, dV, 1, D, a.X, D, grads + IT_AM_OFF_WV, D, 0);
    matmul(threads, n, D, D, dQ, D, 1, WQ, D, dXq, D, 0);
    matmul(threads, 3 * n, D, D, dK, D, 1, WK, D, dXk, D, 0);
    matmul(threads, 3 * n, D, D, dV, D, 1, WV, D, dXv, D, 0);
    /* embeddings: dx_t = dxk + dxv (t < 2), ((dr + dxq) + dxk) + dxv (t = 2);
     * scatter-added in (pair, position) order (§5.8) */
    memset(gWE, 0, sizeof(float) * NV * D);
    memset(gWP, 0, sizeof(float) * T * D);
    for (size_t i = 0; i < n; i++) {
        unsigned tok[T] = {pairs[i] / IT_AM_MOD, pairs[i] % IT_AM_MOD, IT_AM_EQ};
        for (size_t t = 0; t < T; t++) {
            const size_t row = 3 * i + t;
            for (size_t c = 0; c < D; c++) {
                float dx;
                if (t < 2) {
                    dx = dXk[row * D + c] + dXv[row * D + c];
                } else {
                    float d1 = dR[i * D + c] + dXq[i * D + c];
                    float d2 = d1 + dXk[row * D + c];
                    dx = d2 + dXv[row * D + c];
                }
                gWE[tok[t] * D + c] = gWE[tok[t] * D + c] + dx;
                gWP[t * D + c] = gWP[t * D + c] + dx;
            }
        }
    }
    free(dL), free(dR2), free(dPOST), free(dR), free(dZ), free(dQ), free(dK), free(dV);
    free(dXq), free(dXk), free(dXv);
    acts_free(&a);
    return loss_sum * s;
}
