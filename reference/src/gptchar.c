/* Profile gptchar (spec §14): a two-block GPT that reads the essay of
 * spec/corpus/gptchar.txt one byte at a time and predicts the next byte.
 *
 * Read it like llm.c's train_gpt2.c: forward() runs the layers over every
 * row (sequence b, position t) of a batch, backward() runs them in reverse,
 * each layer a forward/backward pair from its own file (layernorm.c,
 * gelu.c, causal_attention.c, residual.c, linear products through the
 * kernel set's matmul). Every matrix product is one ascending SUM per output
 * element; the kernel sets change only who computes which element. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "isotrain.h"
#include "kernels/kernels.h"

enum {
    V = IT_GC_VOCAB, D = IT_GC_D, H = IT_GC_HEADS, DH = IT_GC_DHEAD, F = IT_GC_MLP, T = IT_GC_CTX,
    L = IT_GC_LAYERS, P = IT_GC_NPARAMS
};

/* spec §14.1 */
#define LN_EPS_BITS 0x3727c5acu     /* RN(1e-5) */
#define ATTN_SCALE_BITS 0x3e800000u /* 1/sqrt(16) = 0.25, exact */
enum { STREAM_SAMPLE = 64 };

/* spec §14.4, by the init columns of the table (profiles.c) */
void it_gptchar_init(uint64_t seed, float *params)
{
    it_tensors_init(it_gptchar_tensors, IT_GC_NTENSORS, seed, params);
}

/* spec §14.3 */
size_t it_gptchar_vocab(unsigned char bytes[256], int token_of[256])
{
    int seen[256] = {0};
    for (size_t i = 0; i < it_gptchar_corpus_len; i++)
        seen[it_gptchar_corpus[i]] = 1;
    size_t v = 0;
    for (int b = 0; b < 256; b++) {
        token_of[b] = seen[b] ? (int)v : -1;
        if (seen[b])
            bytes[v++] = (unsigned char)b;
    }
    return v;
}

/* spec §14.5: sequence b of step t starts at o = below(word(seed, 64,
 * (t-1)*16 + b), N - 32); inputs are the tokens of bytes o..o+31, targets
 * those of o+1..o+32. */
void it_gptchar_batch(uint64_t seed, uint32_t step, uint32_t x[IT_GC_ROWS], uint32_t y[IT_GC_ROWS])
{
    unsigned char bytes[256];
    int tok[256];
    it_gptchar_vocab(bytes, tok);
    const uint32_t starts = (uint32_t)(it_gptchar_corpus_len - T);
    for (uint32_t b = 0; b < IT_GC_SEQS; b++) {
        uint64_t index = (uint64_t)(step - 1) * IT_GC_SEQS + b;
        uint32_t o = it_u32_below(it_rng_u32(seed, STREAM_SAMPLE, index), starts);
        for (uint32_t i = 0; i < T; i++) {
            x[b * T + i] = (uint32_t)tok[it_gptchar_corpus[o + i]];
            y[b * T + i] = (uint32_t)tok[it_gptchar_corpus[o + i + 1]];
        }
    }
}

/* ---- linear layers over rows: one SUM per output element (§4.6) ---- */

/* Y[r][o] = SUM_i X[r][i] * W[o][i], then + b[o] (§5.2; no bias: b NULL);
 * Wt: in * out floats of scratch for the transposed weight */
static void linear_forward(const float *X, size_t rows, size_t in, const float *W, const float *b, size_t out,
                           float *Y, float *Wt)
{
    for (size_t o = 0; o < out; o++)
        for (size_t i = 0; i < in; i++)
            Wt[i * out + o] = W[o * in + i];
    it_kernels()->matmul(rows, out, in, X, in, 1, Wt, out, Y, out, 0);
    for (size_t r = 0; b && r < rows; r++)
        for (size_t o = 0; o < out; o++)
            Y[r * out + o] = Y[r * out + o] + b[o];
}

/* dW[o][i] = SUM_r dY[r][o] * X[r][i]; db[o] = SUM_r dY[r][o];
 * dX[r][i] = SUM_o dY[r][o] * W[o][i] (§5.7 over rows, §4.6) */
static void linear_backward(const float *X, size_t rows, size_t in, const float *W, const float *dY, size_t out,
                            float *dW, float *db, float *dX)
{
    const it_kernel_set *ks = it_kernels();
    ks->matmul(out, in, rows, dY, 1, out, X, in, dW, in, 0);
    for (size_t o = 0; o < out; o++)
        db[o] = 0.0f;
    for (size_t r = 0; r < rows; r++)
        for (size_t o = 0; o < out; o++)
            db[o] = db[o] + dY[r * out + o];
    ks->matmul(rows, in, out, dY, out, 1, W, in, dX, in, 0);
}

/* §5.20 */
void it_tied_embedding_grad(const float *f, const float *dlogits, const uint32_t *tokens, const float *dx,
                            size_t n, size_t nv, size_t dim, float *dE)
{
    it_kernels()->matmul(nv, dim, n, dlogits, 1, nv, f, dim, dE, dim, 0);
    for (size_t r = 0; r < n; r++)
        it_embedding_backward(dE, dim, tokens[r], dx + r * dim);
}

/* ---- the workspace: activations of a batch, gradients, scratch ---- */

typedef struct {
    float *xin, *ln1, *ln1_xhat, *ln1_rstd, *q, *k, *v, *att, *z, *o, *xmid, *ln2, *ln2_xhat, *ln2_rstd, *h, *g,
        *m, *xout;
} layer_acts;

typedef struct {
    size_t rows, nseq; /* of the batch in hand: at most the workspace's */
    float *x0;
    layer_acts l[L];
    float *lnf, *lnf_xhat, *lnf_rstd, *probs, *loss;
} acts;

/* Every buffer is sized for max_seqs sequences; a batch of fewer uses the
 * first rows of each. Where a value lives takes no part in any operation. */
struct it_gptchar_work {
    size_t max_seqs;
    float *arena; /* everything below, one allocation */
    acts a;
    float *Wt;                                          /* a transposed weight, at most F x D */
    float *dlogits, *dx, *dbranch, *dh, *dq, *dk, *dv, *tmp; /* backward, rows of the batch */
    float *att_wp, *att_dkp, *att_dvp;                  /* causal attention of one sequence */
};

/* floats per sequence: the activations, then the backward's rows */
enum {
    ACTS_PER_SEQ = T * D + L * (14 * T * D + 2 * T + T * H * T + 2 * T * F) + 2 * T * D + T + T * V + T,
    BACKWARD_PER_SEQ = T * V + 7 * T * D + T * F,
    /* and once: a transposed weight, one sequence's attention scratch */
    SCRATCH_ONCE = F * D + H * T + 2 * T * D
};

/* the next n floats of the arena at p */
#define TAKE(n) (p += (n), p - (n))

static float *acts_carve(acts *a, size_t nseq, float *p)
{
    const size_t R = nseq * T;
    a->x0 = TAKE(R * D);
    float *cur = a->x0;
    for (int l = 0; l < L; l++) {
        layer_acts *la = &a->l[l];
        la->xin = cur;
        la->ln1 = TAKE(R * D), la->ln1_xhat = TAKE(R * D), la->ln1_rstd = TAKE(R);
        la->q = TAKE(R * D), la->k = TAKE(R * D), la->v = TAKE(R * D), la->att = TAKE(nseq * T * H * T);
        la->z = TAKE(R * D), la->o = TAKE(R * D), la->xmid = TAKE(R * D);
        la->ln2 = TAKE(R * D), la->ln2_xhat = TAKE(R * D), la->ln2_rstd = TAKE(R);
        la->h = TAKE(R * F), la->g = TAKE(R * F), la->m = TAKE(R * D), la->xout = TAKE(R * D);
        cur = la->xout;
    }
    a->lnf = TAKE(R * D), a->lnf_xhat = TAKE(R * D), a->lnf_rstd = TAKE(R);
    a->probs = TAKE(R * V), a->loss = TAKE(R);
    return p;
}

it_gptchar_work *it_gptchar_work_new(size_t max_seqs)
{
    if (max_seqs == 0)
        max_seqs = 1;
    if (max_seqs > (SIZE_MAX / sizeof(float) - SCRATCH_ONCE) / (ACTS_PER_SEQ + BACKWARD_PER_SEQ))
        return NULL; /* the size would wrap */
    const size_t R = max_seqs * T;
    const size_t total = max_seqs * (ACTS_PER_SEQ + BACKWARD_PER_SEQ) + SCRATCH_ONCE;
    it_gptchar_work *w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    w->arena = malloc(sizeof(float) * total);
    if (!w->arena) {
        free(w);
        return NULL;
    }
    w->max_seqs = max_seqs;
    float *p = acts_carve(&w->a, max_seqs, w->arena);
    w->Wt = TAKE((size_t)F * D);
    w->dlogits = TAKE(R * V), w->dx = TAKE(R * D), w->dbranch = TAKE(R * D), w->dh = TAKE(R * F);
    w->dq = TAKE(R * D), w->dk = TAKE(R * D), w->dv = TAKE(R * D), w->tmp = TAKE(R * D);
    w->att_wp = TAKE((size_t)H * T), w->att_dkp = TAKE((size_t)T * D), w->att_dvp = TAKE((size_t)T * D);
    return w;
}
#undef TAKE

void it_gptchar_work_free(it_gptchar_work *w)
{
    if (!w)
        return;
    free(w->arena);
    free(w);
}

static const float *block(const float *params, int l) { return params + IT_GC_OFF_H0 + (size_t)l * IT_GC_BLOCK; }

static void layernorm_rows(const float *X, size_t rows, const float *w, const float *b, float *Y, float *xhat,
                           float *rstd)
{
    const float eps = it_f32_from_bits(LN_EPS_BITS);
    for (size_t r = 0; r < rows; r++)
        it_layernorm_forward(X + r * D, w, b, D, eps, Y + r * D, xhat + r * D, NULL, &rstd[r]);
}

/* Hands an intermediate to the caller's tap (vectors, localization). */
#define TAP(tap, ctx, what, layer, data, n)                                                                      \
    do {                                                                                                        \
        if (tap)                                                                                                \
            (tap)((ctx), (what), (layer), (data), (n));                                                         \
    } while (0)

/* spec §14.6 steps 1-5: the logits of every row, then the per-row loss */
static void forward(const float *params, const uint32_t *x, const uint32_t *y, it_gptchar_work *w,
                    it_gptchar_tap tap, void *ctx)
{
    acts *a = &w->a;
    const size_t R = a->rows;
    const float *wte = params + IT_GC_OFF_WTE, *wpe = params + IT_GC_OFF_WPE;
    const float scale = it_f32_from_bits(ATTN_SCALE_BITS);
    for (size_t r = 0; r < R; r++)
        for (size_t c = 0; c < D; c++)
            a->x0[r * D + c] = wte[x[r] * D + c] + wpe[(r % T) * D + c];
    TAP(tap, ctx, "x0", -1, a->x0, R * D);
    for (int l = 0; l < L; l++) {
        const float *bp = block(params, l);
        layer_acts *la = &a->l[l];
        layernorm_rows(la->xin, R, bp + IT_GC_B_LN1_W, bp + IT_GC_B_LN1_B, la->ln1, la->ln1_xhat, la->ln1_rstd);
        linear_forward(la->ln1, R, D, bp + IT_GC_B_Q_W, bp + IT_GC_B_Q_B, D, la->q, w->Wt);
        linear_forward(la->ln1, R, D, bp + IT_GC_B_K_W, bp + IT_GC_B_K_B, D, la->k, w->Wt);
        linear_forward(la->ln1, R, D, bp + IT_GC_B_V_W, bp + IT_GC_B_V_B, D, la->v, w->Wt);
        for (size_t b = 0; b < a->nseq; b++)
            it_causal_attention_forward_scratch(la->q + b * T * D, la->k + b * T * D, la->v + b * T * D, T, H, DH,
                                                scale, la->att + b * T * H * T, la->z + b * T * D, w->att_wp);
        linear_forward(la->z, R, D, bp + IT_GC_B_O_W, bp + IT_GC_B_O_B, D, la->o, w->Wt);
        it_residual_add(la->xin, la->o, R * D, la->xmid);
        layernorm_rows(la->xmid, R, bp + IT_GC_B_LN2_W, bp + IT_GC_B_LN2_B, la->ln2, la->ln2_xhat, la->ln2_rstd);
        linear_forward(la->ln2, R, D, bp + IT_GC_B_FC_W, bp + IT_GC_B_FC_B, F, la->h, w->Wt);
        it_gelu_forward(la->h, R * F, la->g);
        linear_forward(la->g, R, F, bp + IT_GC_B_PROJ_W, bp + IT_GC_B_PROJ_B, D, la->m, w->Wt);
        it_residual_add(la->xmid, la->m, R * D, la->xout);
        TAP(tap, ctx, "ln1", l, la->ln1, R * D);
        TAP(tap, ctx, "q", l, la->q, R * D);
        TAP(tap, ctx, "k", l, la->k, R * D);
        TAP(tap, ctx, "v", l, la->v, R * D);
        TAP(tap, ctx, "att", l, la->att, a->nseq * T * H * T);
        TAP(tap, ctx, "z", l, la->z, R * D);
        TAP(tap, ctx, "o", l, la->o, R * D);
        TAP(tap, ctx, "xmid", l, la->xmid, R * D);
        TAP(tap, ctx, "ln2", l, la->ln2, R * D);
        TAP(tap, ctx, "h", l, la->h, R * F);
        TAP(tap, ctx, "xout", l, la->xout, R * D);
    }
    layernorm_rows(a->l[L - 1].xout, R, params + IT_GC_OFF_LNF_W, params + IT_GC_OFF_LNF_B, a->lnf, a->lnf_xhat,
                   a->lnf_rstd);
    /* tied output: logits[r][v] = SUM_c lnf[r][c] * wte[v][c] (no bias) */
    linear_forward(a->lnf, R, D, wte, NULL, V, a->probs, w->Wt);
    for (size_t r = 0; r < R; r++) {
        float logits[V];
        memcpy(logits, a->probs + r * V, sizeof logits);
        a->loss[r] = it_softmax_xent_forward(logits, V, y[r], a->probs + r * V);
    }
    TAP(tap, ctx, "lnf", -1, a->lnf, R * D);
    TAP(tap, ctx, "probs", -1, a->probs, R * V);
}

static void layernorm_rows_backward(const float *xhat, const float *rstd, size_t rows, const float *w,
                                    const float *dY, float *dw, float *db, float *dX)
{
    for (size_t i = 0; i < D; i++)
        dw[i] = 0.0f, db[i] = 0.0f;
    for (size_t r = 0; r < rows; r++)
        it_layernorm_backward(xhat + r * D, rstd[r], w, dY + r * D, D, dw, db, dX + r * D);
}

float it_gptchar_loss_grad(const float *params, const uint32_t *x, const uint32_t *y, size_t nseq, float *grads)
{
    return it_gptchar_loss_grad_tap(params, x, y, nseq, grads, NULL, NULL);
}

/* The workspace of one call: what the entry points without one do */
float it_gptchar_loss_grad_tap(const float *params, const uint32_t *x, const uint32_t *y, size_t nseq, float *grads,
                               it_gptchar_tap tap, void *ctx)
{
    it_gptchar_work *w = it_gptchar_work_new(nseq);
    if (!w)
        abort(); /* half a megabyte per sequence; these entry points have no error to return */
    float loss = 0.0f;
    it_gptchar_loss_grad_work(w, params, x, y, nseq, grads, tap, ctx, &loss);
    it_gptchar_work_free(w);
    return loss;
}

/* spec §14.6: the mean loss of nseq sequences and its gradient */
it_status it_gptchar_loss_grad_work(it_gptchar_work *w, const float *params, const uint32_t *x, const uint32_t *y,
                                    size_t nseq, float *grads, it_gptchar_tap tap, void *ctx, float *loss)
{
    if (!w || nseq > w->max_seqs)
        return IT_ERR_ARG;
    acts *const a = &w->a;
    a->nseq = nseq;
    a->rows = nseq * T;
    const size_t R = a->rows;
    const float s = R == IT_GC_ROWS ? it_f32_from_bits(0x3b000000u) /* 2^-9 */ : 1.0f / (float)R;
    const float scale = it_f32_from_bits(ATTN_SCALE_BITS);
    forward(params, x, y, w, tap, ctx);

    float *const dlogits = w->dlogits, *const dx = w->dx, *const dbranch = w->dbranch, *const dh = w->dh,
                 *const dq = w->dq, *const dk = w->dk, *const dv = w->dv, *const tmp = w->tmp;

    float loss_sum = 0.0f;
    for (size_t r = 0; r < R; r++) {
        loss_sum = loss_sum + a->loss[r];
        it_softmax_xent_backward(a->probs + r * V, V, y[r], s, dlogits + r * V);
    }
    TAP(tap, ctx, "dlogits", -1, dlogits, R * V);
    const float *wte = params + IT_GC_OFF_WTE;
    /* dlnf[r][c] = SUM_v wte[v][c] * dlogits[r][v] (wte's own gradient is §5.20, below) */
    it_kernels()->matmul(R, D, V, dlogits, V, 1, wte, D, tmp, D, 0);
    layernorm_rows_backward(a->lnf_xhat, a->lnf_rstd, R, params + IT_GC_OFF_LNF_W, tmp, grads + IT_GC_OFF_LNF_W,
                            grads + IT_GC_OFF_LNF_B, dx);
    for (int l = L - 1; l >= 0; l--) {
        const float *bp = block(params, l);
        float *gp = grads + IT_GC_OFF_H0 + (size_t)l * IT_GC_BLOCK;
        layer_acts *la = &a->l[l];
        /* xout = xmid + m: the MLP branch gets dx, the stream passes it on */
        linear_backward(la->g, R, F, bp + IT_GC_B_PROJ_W, dx, D, gp + IT_GC_B_PROJ_W, gp + IT_GC_B_PROJ_B, dh);
        it_gelu_backward(la->h, dh, R * F, dh);
        linear_backward(la->ln2, R, D, bp + IT_GC_B_FC_W, dh, F, gp + IT_GC_B_FC_W, gp + IT_GC_B_FC_B, tmp);
        layernorm_rows_backward(la->ln2_xhat, la->ln2_rstd, R, bp + IT_GC_B_LN2_W, tmp, gp + IT_GC_B_LN2_W,
                                gp + IT_GC_B_LN2_B, dbranch);
        it_residual_add(dx, dbranch, R * D, dx); /* d xmid = d xout + the branch's */
        /* xmid = xin + o: the attention branch gets d xmid */
        linear_backward(la->z, R, D, bp + IT_GC_B_O_W, dx, D, gp + IT_GC_B_O_W, gp + IT_GC_B_O_B, tmp);
        for (size_t b = 0; b < a->nseq; b++)
            it_causal_attention_backward_scratch(la->q + b * T * D, la->k + b * T * D, la->v + b * T * D,
                                                 la->att + b * T * H * T, tmp + b * T * D, T, H, DH, scale,
                                                 dq + b * T * D, dk + b * T * D, dv + b * T * D, w->att_wp,
                                                 w->att_dkp, w->att_dvp);
        linear_backward(la->ln1, R, D, bp + IT_GC_B_Q_W, dq, D, gp + IT_GC_B_Q_W, gp + IT_GC_B_Q_B, tmp);
        linear_backward(la->ln1, R, D, bp + IT_GC_B_K_W, dk, D, gp + IT_GC_B_K_W, gp + IT_GC_B_K_B, dbranch);
        it_residual_add(tmp, dbranch, R * D, tmp); /* dxq + dxk */
        linear_backward(la->ln1, R, D, bp + IT_GC_B_V_W, dv, D, gp + IT_GC_B_V_W, gp + IT_GC_B_V_B, dbranch);
        it_residual_add(tmp, dbranch, R * D, tmp); /* (dxq + dxk) + dxv */
        layernorm_rows_backward(la->ln1_xhat, la->ln1_rstd, R, bp + IT_GC_B_LN1_W, tmp, gp + IT_GC_B_LN1_W,
                                gp + IT_GC_B_LN1_B, dbranch);
        it_residual_add(dx, dbranch, R * D, dx); /* d xin = d xmid + the branch's */
    }
    /* position embedding: rows in ascending order, each into its position's row */
    float *gwpe = grads + IT_GC_OFF_WPE;
    for (size_t i = 0; i < (size_t)T * D; i++)
        gwpe[i] = 0.0f;
    for (size_t r = 0; r < R; r++)
        it_embedding_backward(gwpe, D, (unsigned)(r % T), dx + r * D);
    TAP(tap, ctx, "dx0", -1, dx, R * D);
    /* the tied embedding: output side, then each row's input side (§5.20) */
    it_tied_embedding_grad(a->lnf, dlogits, x, dx, R, V, D, grads + IT_GC_OFF_WTE);
    *loss = loss_sum * s;
    return IT_OK;
}
