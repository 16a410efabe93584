/* Profile addmod113 (spec §13): the one-layer transformer of Nanda et al.'s
 * grokking study learning (a + b) mod 113 from [a, b, =], trained full batch
 * with AdamW.
 *
 * Read it like llm.c's train_gpt2.c: forward() runs the layers over the
 * pairs of a chunk, backward() runs them in reverse, each layer one call of
 * isotrain.h's batched API (rows.c: the kernel set in use, outputs split
 * over `threads`; its portable entries are the definitions). Only position
 * 2 (the '=' token) is computed beyond the keys and values: nothing at
 * positions 0 and 1 after attention reaches the loss (spec §13.5).
 *
 * Every buffer lives in an it_addmod113_work allocated once (per run, in
 * it_addmod113_run): no step allocates. A batch larger than the workspace
 * runs in chunks of pairs, every gradient SUM resumed from the partial the
 * previous chunk stored (spec §4.1): the bits of one pass. */
#include <stdlib.h>
#include <string.h>

#include "isotrain.h"
#include "isotrain_reduce.h"

enum { D = IT_AM_D, H = IT_AM_HEADS, DH = IT_AM_DHEAD, F = IT_AM_MLP, NV = IT_AM_VOCAB, NO = IT_AM_MOD, T = IT_AM_CTX };

/* spec §13.1 */
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

/* spec §13.4, by the init columns of the table (profiles.c) */
void it_addmod113_init(uint64_t seed, float *params)
{
    it_tensors_init(it_addmod113_tensors, 11, seed, params);
}

/* ---- the workspace: activations and gradients of a chunk of pairs ----------- */

struct it_addmod113_work {
    size_t cap;      /* pairs per chunk */
    uint32_t *tok;   /* 3 cap: [a, b, 113] of each pair */
    uint32_t *pos;   /* 3 cap: 0, 1, 2, 0, 1, 2, ... */
    uint32_t *label; /* cap */
    float *X;        /* 3cap x D: row 3i+t is x_t = W_E[token_t] + W_pos[t] of pair i */
    float *Q;        /* cap x D: the query of position 2; backward: dxq */
    float *K, *V;    /* 3cap x D; backward: dxk, dxv */
    float *W;        /* cap x H x T attention weights */
    float *Z;        /* cap x D: heads concatenated; backward: dz */
    float *R;        /* cap x D: x_2 + attention output */
    float *PRE;      /* cap x F */
    float *POST;     /* cap x F; backward: dpost, then dpre */
    float *R2;       /* cap x D: r + MLP output */
    float *L;        /* cap x NO: logits, then probabilities, then dlogits */
    float *loss;     /* cap per-pair losses */
    float *dR2, *dR, *dQ, *dK, *dV;
};

it_addmod113_work *it_addmod113_work_new(size_t max_pairs)
{
    if (max_pairs == 0)
        max_pairs = 1;
    const size_t c = max_pairs;
    it_addmod113_work *w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    w->cap = c;
    w->tok = malloc(sizeof(uint32_t) * 3 * c);
    w->pos = malloc(sizeof(uint32_t) * 3 * c);
    w->label = malloc(sizeof(uint32_t) * c);
    float **f[] = {&w->X, &w->Q, &w->K, &w->V, &w->W, &w->Z, &w->R, &w->PRE, &w->POST,
                   &w->R2, &w->L, &w->loss, &w->dR2, &w->dR, &w->dQ, &w->dK, &w->dV};
    const size_t per_pair[] = {3 * D, D, 3 * D, 3 * D, H * T, D, D, F, F, D, NO, 1, D, D, D, 3 * D, 3 * D};
    int ok = w->tok && w->pos && w->label;
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
        ok &= (*f[i] = malloc(sizeof(float) * per_pair[i] * c)) != NULL;
    if (!ok) {
        it_addmod113_work_free(w);
        return NULL;
    }
    for (size_t r = 0; r < 3 * c; r++)
        w->pos[r] = (uint32_t)(r % T);
    return w;
}

void it_addmod113_work_free(it_addmod113_work *w)
{
    if (!w)
        return;
    free(w->tok), free(w->pos), free(w->label);
    float *f[] = {w->X, w->Q, w->K, w->V, w->W, w->Z, w->R, w->PRE, w->POST,
                  w->R2, w->L, w->loss, w->dR2, w->dR, w->dQ, w->dK, w->dV};
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
        free(f[i]);
    free(w);
}

/* spec §13.5 forward for pairs[0..n-1] (n <= cap): logits in w->L */
static void forward(const float *params, const uint32_t *pairs, size_t n, it_addmod113_work *w, unsigned th)
{
    const float *WE = params + IT_AM_OFF_WE, *WP = params + IT_AM_OFF_WPOS, *WQ = params + IT_AM_OFF_WQ,
                *WK = params + IT_AM_OFF_WK, *WV = params + IT_AM_OFF_WV, *WO = params + IT_AM_OFF_WO,
                *WIN = params + IT_AM_OFF_WIN, *BIN = params + IT_AM_OFF_BIN, *WOUT = params + IT_AM_OFF_WOUT,
                *BOUT = params + IT_AM_OFF_BOUT, *WU = params + IT_AM_OFF_WU;
    const float scale = it_f32_from_bits(ATTN_SCALE_BITS);

    /* step 1: x_t = W_E[token_t] + W_pos[t] */
    for (size_t i = 0; i < n; i++) {
        uint32_t a = pairs[i] / IT_AM_MOD, b = pairs[i] % IT_AM_MOD;
        w->tok[3 * i] = a;
        w->tok[3 * i + 1] = b;
        w->tok[3 * i + 2] = IT_AM_EQ;
        w->label[i] = (a + b) % IT_AM_MOD;
    }
    it_rows_embedding_forward(3 * n, D, NV, WE, w->tok, w->X, D, th);
    for (size_t t = 0; t < T; t++)
        it_rows_add(n, D, w->X + t * D, 3 * D, WP + t * D, 0, w->X + t * D, 3 * D, th);
    /* step 2: q of position 2; k and v of every position */
    it_rows_linear_forward(n, D, D, w->X + 2 * D, 3 * D, WQ, NULL, w->Q, D, th);
    it_rows_linear_forward(3 * n, D, D, w->X, D, WK, NULL, w->K, D, th);
    it_rows_linear_forward(3 * n, D, D, w->X, D, WV, NULL, w->V, D, th);
    /* step 3: attention of the query at position 2 over positions 0, 1, 2 */
    it_rows_attention_forward(n, T, H, DH, scale, w->Q, D, w->K, w->V, D, w->W, w->Z, D, th);
    /* step 4: r = x_2 + W_O z */
    it_rows_linear_forward(n, D, D, w->Z, D, WO, NULL, w->R, D, th);
    it_rows_add(n, D, w->X + 2 * D, 3 * D, w->R, D, w->R, D, th);
    /* steps 5-6: pre = W_in r + b_in, post = relu(pre), r2 = r + (W_out post + b_out) */
    it_rows_linear_forward(n, D, F, w->R, D, WIN, BIN, w->PRE, F, th);
    it_rows_relu_forward(n, F, w->PRE, F, w->POST, F, th);
    it_rows_linear_forward(n, F, D, w->POST, F, WOUT, BOUT, w->R2, D, th);
    it_rows_add(n, D, w->R, D, w->R2, D, w->R2, D, th);
    /* step 7: the logits */
    it_rows_linear_forward(n, D, NO, w->R2, D, WU, NULL, w->L, NO, th);
}

/* spec §13.5 steps 8-18 for the chunk in w (after forward and the
 * softmax, w->L holding the probabilities): every gradient continues the
 * sums in grads, through the reducer rd (isotrain_reduce.h, spec §15) */
static void backward(const float *params, size_t n, float s, it_addmod113_work *w, float *grads, unsigned th,
                     const it_reducer *rd)
{
    const float *WQ = params + IT_AM_OFF_WQ, *WK = params + IT_AM_OFF_WK, *WV = params + IT_AM_OFF_WV,
                *WO = params + IT_AM_OFF_WO, *WIN = params + IT_AM_OFF_WIN, *WOUT = params + IT_AM_OFF_WOUT,
                *WU = params + IT_AM_OFF_WU;
    const float scale = it_f32_from_bits(ATTN_SCALE_BITS);
    float *dL = w->L, *dPOST = w->POST, *dZ = w->Z, *dXq = w->Q, *dXk = w->K, *dXv = w->V;

    /* 8: dlogits */
    it_rows_softmax_xent_backward(n, NO, w->L, NO, w->label, s, dL, NO, th);
    /* 9: unembedding */
    rd->linear_params(rd, n, D, NO, dL, NO, w->R2, D, grads + IT_AM_OFF_WU, NULL, th);
    it_rows_linear_backward_input(n, D, NO, dL, NO, WU, w->dR2, D, th);
    /* 10: MLP out (the gradient of mlp_out is dr2: r2 = r + mlp_out); post is
     * read before its buffer takes dpost */
    rd->linear_params(rd, n, F, D, w->dR2, D, w->POST, F, grads + IT_AM_OFF_WOUT, grads + IT_AM_OFF_BOUT, th);
    it_rows_linear_backward_input(n, F, D, w->dR2, D, WOUT, dPOST, F, th);
    /* 11: relu, MLP in */
    it_rows_relu_backward(n, F, w->PRE, F, dPOST, F, dPOST, F, th);
    rd->linear_params(rd, n, D, F, dPOST, F, w->R, D, grads + IT_AM_OFF_WIN, grads + IT_AM_OFF_BIN, th);
    it_rows_linear_backward_input(n, D, F, dPOST, F, WIN, w->dR, D, th);
    /* 12: dr = dr2 + dr_mlp */
    it_rows_add(n, D, w->dR2, D, w->dR, D, w->dR, D, th);
    /* 13: output projection (z is read before its buffer takes dz) */
    rd->linear_params(rd, n, D, D, w->dR, D, w->Z, D, grads + IT_AM_OFF_WO, NULL, th);
    it_rows_linear_backward_input(n, D, D, w->dR, D, WO, dZ, D, th);
    /* 14: attention */
    it_rows_attention_backward(n, T, H, DH, scale, w->Q, D, w->K, w->V, D, w->W, dZ, D, w->dQ, D, w->dK, w->dV, D,
                               th);
    /* 15: projection weights, rows (pair, position) ascending */
    rd->linear_params(rd, n, D, D, w->dQ, D, w->X + 2 * D, 3 * D, grads + IT_AM_OFF_WQ, NULL, th);
    rd->linear_params(rd, 3 * n, D, D, w->dK, D, w->X, D, grads + IT_AM_OFF_WK, NULL, th);
    rd->linear_params(rd, 3 * n, D, D, w->dV, D, w->X, D, grads + IT_AM_OFF_WV, NULL, th);
    /* 16: their inputs (q, k, v are no longer read: their buffers take dxq, dxk, dxv) */
    it_rows_linear_backward_input(n, D, D, w->dQ, D, WQ, dXq, D, th);
    it_rows_linear_backward_input(3 * n, D, D, w->dK, D, WK, dXk, D, th);
    it_rows_linear_backward_input(3 * n, D, D, w->dV, D, WV, dXv, D, th);
    /* 17: dx_t = dxk_t + dxv_t (t < 2), dx_2 = ((dr + dxq) + dxk_2) + dxv_2, into dXk */
    it_rows_add(n, D, w->dR, D, dXq, D, dXq, D, th);
    it_rows_add(n, D, dXq, D, dXk + 2 * D, 3 * D, dXk + 2 * D, 3 * D, th);
    it_rows_add(3 * n, D, dXk, D, dXv, D, dXk, D, th);
    /* 18: scatter-add in (pair, position) order */
    rd->embedding(rd, 3 * n, D, NV, w->tok, dXk, D, grads + IT_AM_OFF_WE, th);
    rd->embedding(rd, 3 * n, D, T, w->pos, dXk, D, grads + IT_AM_OFF_WPOS, th);
}

/* the §11.6 convention: s = 1/n in one rounding (RN(1/3831) for the profile) */
static float loss_scale(size_t n)
{
    return n == IT_AM_NTRAIN ? it_f32_from_bits(INV_NTRAIN_BITS) : 1.0f / (float)n;
}

float it_addmod113_loss_grad_work(it_addmod113_work *w, const float *params, const uint32_t *pairs, size_t n,
                                  float *grads, unsigned threads)
{
    return it_addmod113_loss_grad_reduced(w, params, pairs, n, grads, threads, &it_reducer_local);
}

/* The pairs [lo, hi) the reducer gives this process; every SUM over pairs
 * goes through rd (isotrain_reduce.h, spec §15) */
float it_addmod113_loss_grad_reduced(it_addmod113_work *w, const float *params, const uint32_t *pairs, size_t n,
                                     float *grads, unsigned threads, const it_reducer *rd)
{
    const float s = loss_scale(n);
    float loss_sum = 0.0f;
    size_t lo, hi;
    rd->rows(rd, n, &lo, &hi);
    memset(grads, 0, sizeof(float) * IT_AM_NPARAMS); /* every gradient SUM starts at +0 */
    for (size_t i0 = lo; i0 < hi; i0 += w->cap) {
        const size_t m = hi - i0 < w->cap ? hi - i0 : w->cap;
        forward(params, pairs + i0, m, w, threads);
        /* the loss (§5.4) per pair, its SUM in pair order */
        it_rows_softmax_xent_forward(m, NO, w->L, NO, w->label, w->loss, w->L, NO, threads);
        loss_sum = rd->loss(rd, loss_sum, w->loss, m);
        backward(params, m, s, w, grads, threads, rd);
    }
    rd->finish(rd, grads, IT_AM_NPARAMS, &loss_sum);
    return loss_sum * s;
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

void it_addmod113_eval_work(it_addmod113_work *w, const float *params, const uint32_t *pairs, size_t n, float scale,
                            float *loss, uint32_t *correct, unsigned threads)
{
    float sum = 0.0f;
    uint32_t right = 0;
    for (size_t i0 = 0; i0 < n; i0 += w->cap) {
        const size_t m = n - i0 < w->cap ? n - i0 : w->cap;
        forward(params, pairs + i0, m, w, threads);
        for (size_t i = 0; i < m; i++)
            right += argmax(w->L + i * NO, NO) == w->label[i];
        it_rows_softmax_xent_forward(m, NO, w->L, NO, w->label, w->loss, w->L, NO, threads);
        for (size_t i = 0; i < m; i++)
            sum = sum + w->loss[i];
    }
    *loss = sum * scale;
    *correct = right;
}

/* The entry points of 1.1.0, each with a workspace of its own. */
enum { CHUNK = IT_AM_NTRAIN };

float it_addmod113_loss_grad(const float *params, const uint32_t *pairs, size_t n, float *grads, unsigned threads)
{
    it_addmod113_work *w = it_addmod113_work_new(n < CHUNK ? n : CHUNK);
    if (!w)
        abort(); /* tens of MiB; nothing sensible to do without them */
    float loss = it_addmod113_loss_grad_work(w, params, pairs, n, grads, threads);
    it_addmod113_work_free(w);
    return loss;
}

void it_addmod113_eval(const float *params, const uint32_t *pairs, size_t n, float scale, float *loss,
                       uint32_t *correct, unsigned threads)
{
    it_addmod113_work *w = it_addmod113_work_new(n < CHUNK ? n : CHUNK);
    if (!w)
        abort();
    it_addmod113_eval_work(w, params, pairs, n, scale, loss, correct, threads);
    it_addmod113_work_free(w);
}

float it_addmod113_pair_forward(const float *params, uint32_t pair, float *logits)
{
    it_addmod113_work *w = it_addmod113_work_new(1);
    if (!w)
        return it_f32_from_bits(0x7fc00000u);
    forward(params, &pair, 1, w, 1);
    memcpy(logits, w->L, sizeof(float) * NO);
    float probs[NO];
    float loss = it_softmax_xent_forward(w->L, NO, w->label[0], probs);
    it_addmod113_work_free(w);
    return loss;
}
