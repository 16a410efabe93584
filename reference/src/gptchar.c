/* Profile gptchar (spec §14): a two-block GPT that reads the essay of
 * spec/corpus/gptchar.txt one byte at a time and predicts the next byte.
 *
 * Read it like llm.c's train_gpt2.c: forward() runs the layers over every
 * row (sequence b, position t) of a batch, backward() runs them in reverse,
 * each layer a forward/backward pair from its own file (layernorm.c,
 * gelu.c, causal_attention.c), the products and row-wise layers through
 * isotrain.h's batched API (rows.c: the kernel set's packed products,
 * threads over independent outputs) and every SUM over the batch's rows
 * through a reducer (isotrain_reduce.h, spec §15). Every matrix product is
 * one ascending SUM per output element; the kernel sets and threads change
 * only who computes which element. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "isotrain.h"
#include "isotrain_gpt.h"
#include "isotrain_reduce.h"
#include "kernels/kernels.h"
#include "pool.h"

/* spec §14.1, a constant of the whole family (§16.3) */
#define LN_EPS_BITS 0x3727c5acu /* RN(1e-5) */
enum { STREAM_SAMPLE = 64 };

/* The sizes of the workspace's model (§16.2; gptchar's are §14.1's), as
 * the names the layers below are written with. */
#define DIMS(w)                                                                                                 \
    const size_t V = (w)->sh.vocab, D = (w)->sh.d_model, H = (w)->sh.heads, DH = (w)->der.head_width,           \
                 F = (w)->sh.mlp, T = (w)->sh.context, L = (w)->sh.blocks, P = (w)->der.nparams;                \
    (void)V, (void)D, (void)H, (void)DH, (void)F, (void)T, (void)L, (void)P
/* a block's tensor j (IT_GPT_*) within the block at bp */
#define BT(bp, j) ((bp) + w->der.boff[IT_GPT_##j])

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

/* spec §14.5, §16.5: sequence b of step t starts at o = below(word(seed,
 * stream, (t-1)*B + b), N - T); inputs are the tokens of bytes o..o+T-1,
 * targets those of o+1..o+T. */
void it_gpt_batch(const unsigned char *corpus, size_t n, const int token_of[256], uint32_t T, uint32_t B,
                  uint32_t stream, uint64_t seed, uint32_t step, uint32_t *x, uint32_t *y)
{
    const uint32_t starts = (uint32_t)(n - T);
    for (uint32_t b = 0; b < B; b++) {
        uint64_t index = (uint64_t)(step - 1) * B + b;
        uint32_t o = it_u32_below(it_rng_u32(seed, stream, index), starts);
        for (uint32_t i = 0; i < T; i++) {
            x[b * T + i] = (uint32_t)token_of[corpus[o + i]];
            y[b * T + i] = (uint32_t)token_of[corpus[o + i + 1]];
        }
    }
}

void it_gptchar_batch(uint64_t seed, uint32_t step, uint32_t x[IT_GC_ROWS], uint32_t y[IT_GC_ROWS])
{
    unsigned char bytes[256];
    int tok[256];
    it_gptchar_vocab(bytes, tok);
    it_gpt_batch(it_gptchar_corpus, it_gptchar_corpus_len, tok, IT_GC_CTX, IT_GC_SEQS, STREAM_SAMPLE, seed, step, x,
                 y);
}

/* §5.20 (the one-call form; a training step hands the two sides to its
 * reducer in this order, below) */
void it_tied_embedding_grad(const float *f, const float *dlogits, const uint32_t *tokens, const float *dx,
                            size_t n, size_t nv, size_t dim, float *dE)
{
    for (size_t i = 0; i < nv * dim; i++)
        dE[i] = 0.0f;
    it_rows_linear_backward_params(n, dim, nv, dlogits, nv, f, dim, dE, NULL, 1);
    for (size_t r = 0; r < n; r++)
        it_embedding_backward(dE, dim, tokens[r], dx + r * dim);
}

/* ---- the workspace: activations of a batch, gradients, scratch ---- */

typedef struct {
    float *xin, *ln1, *ln1_xhat, *ln1_rstd, *q, *k, *v, *att, *z, *o, *xmid, *ln2, *ln2_xhat, *ln2_rstd, *h, *g,
        *m, *xout;
    float *tanh_h; /* tanh(u(h)) where the kernel set keeps it for the GELU backward */
} layer_acts;

typedef struct {
    size_t rows, nseq; /* of the batch in hand: at most the workspace's */
    float *x0;
    layer_acts *l; /* one per block */
    float *lnf, *lnf_xhat, *lnf_rstd, *probs, *loss;
} acts;

/* Every buffer is sized for max_seqs sequences; a batch of fewer uses the
 * first rows of each. Where a value lives takes no part in any operation. */
struct it_gptchar_work {
    it_gpt_shape sh;   /* the model's sizes (§16.2) */
    it_gpt_derived der; /* and what follows from them (§16.3) */
    size_t max_seqs;
    unsigned threads; /* for independent outputs: any count, the same bits */
    float *arena;     /* everything below, one allocation */
    uint32_t *pos;    /* the position of each row: wpe's scatter-add tokens */
    acts a;
    float *dlogits, *dx, *dbranch, *dh, *dq, *dk, *dv, *tmp, *lnp; /* backward, rows of the batch */
    float *att_wp, *att_dkp, *att_dvp; /* causal attention scratch, per sequence */
};

/* floats per sequence: the activations, then the backward's rows, then one
 * sequence's attention scratch (sequences run on any thread) */
static size_t floats_per_seq(const it_gptchar_work *w)
{
    DIMS(w);
    const size_t acts = T * D + L * (14 * T * D + 2 * T + T * H * T + 3 * T * F) + 2 * T * D + T + T * V + T;
    const size_t backward = T * V + 8 * T * D + T * F;
    const size_t scratch = H * T + 2 * T * D;
    return acts + backward + scratch;
}

/* the next n floats of the arena at p */
#define TAKE(n) (p += (n), p - (n))

static float *acts_carve(const it_gptchar_work *w, acts *a, size_t nseq, float *p)
{
    DIMS(w);
    const size_t R = nseq * T;
    a->x0 = TAKE(R * D);
    float *cur = a->x0;
    for (size_t l = 0; l < L; l++) {
        layer_acts *la = &a->l[l];
        la->xin = cur;
        la->ln1 = TAKE(R * D), la->ln1_xhat = TAKE(R * D), la->ln1_rstd = TAKE(R);
        la->q = TAKE(R * D), la->k = TAKE(R * D), la->v = TAKE(R * D), la->att = TAKE(nseq * T * H * T);
        la->z = TAKE(R * D), la->o = TAKE(R * D), la->xmid = TAKE(R * D);
        la->ln2 = TAKE(R * D), la->ln2_xhat = TAKE(R * D), la->ln2_rstd = TAKE(R);
        la->h = TAKE(R * F), la->g = TAKE(R * F), la->tanh_h = TAKE(R * F), la->m = TAKE(R * D), la->xout = TAKE(R * D);
        cur = la->xout;
    }
    a->lnf = TAKE(R * D), a->lnf_xhat = TAKE(R * D), a->lnf_rstd = TAKE(R);
    a->probs = TAKE(R * V), a->loss = TAKE(R);
    return p;
}

it_gptchar_work *it_gpt_work_new(const it_gpt_shape *sh, const it_gpt_derived *dv, size_t max_seqs)
{
    if (max_seqs == 0)
        max_seqs = 1;
    it_gptchar_work *w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    w->sh = *sh;
    w->der = *dv;
    DIMS(w);
    if (max_seqs > SIZE_MAX / sizeof(float) / floats_per_seq(w)) {
        free(w);
        return NULL; /* the size would wrap */
    }
    const size_t R = max_seqs * T;
    const size_t total = max_seqs * floats_per_seq(w);
    w->arena = malloc(sizeof(float) * total);
    w->pos = malloc(sizeof(uint32_t) * R);
    w->a.l = calloc(L, sizeof *w->a.l);
    if (!w->arena || !w->pos || !w->a.l) {
        it_gptchar_work_free(w);
        return NULL;
    }
    w->max_seqs = max_seqs;
    w->threads = 1;
    for (size_t r = 0; r < R; r++)
        w->pos[r] = (uint32_t)(r % T);
    float *p = acts_carve(w, &w->a, max_seqs, w->arena);
    w->dlogits = TAKE(R * V), w->dx = TAKE(R * D), w->dbranch = TAKE(R * D), w->dh = TAKE(R * F);
    w->dq = TAKE(R * D), w->dk = TAKE(R * D), w->dv = TAKE(R * D), w->tmp = TAKE(R * D), w->lnp = TAKE(R * D);
    w->att_wp = TAKE(max_seqs * H * T), w->att_dkp = TAKE(R * D), w->att_dvp = TAKE(R * D);
    return w;
}
#undef TAKE

it_gptchar_work *it_gptchar_work_new(size_t max_seqs)
{
    it_gpt_derived dv;
    char err[256];
    if (it_gpt_derive(&it_gpt_shape_gptchar, &dv, err, sizeof err))
        return NULL; /* never: §14.1's sizes are in §16.2's ranges */
    return it_gpt_work_new(&it_gpt_shape_gptchar, &dv, max_seqs);
}

void it_gptchar_work_free(it_gptchar_work *w)
{
    if (!w)
        return;
    free(w->a.l);
    free(w->arena);
    free(w->pos);
    free(w);
}

void it_gptchar_work_threads(it_gptchar_work *w, unsigned threads)
{
    if (w)
        w->threads = threads ? threads : 1;
}

static const float *block(const it_gptchar_work *w, const float *params, size_t l)
{
    return params + w->der.off_h0 + l * w->der.block_len;
}

/* ---- row-wise layers, split over threads by rows (each row is its own) ---- */

typedef struct {
    const float *X, *w, *b, *dY;
    float *Y, *xhat, *rstd, *dX, *P;
    size_t rows;
    it_gptchar_work *work;
    const float *q, *k, *v;
    float *att, *z;
    const float *xhat_in, *rstd_in, *att_in; /* backward: what the forward kept */
    float *tanh_out;                         /* GELU: tanh(u) kept by the forward ... */
    const float *tanh_in;                    /* ... and read by the backward */
} rows_job;

/* §5.14 over rows */
static void ln_fwd_part(void *ctx, unsigned part, unsigned parts)
{
    const rows_job *j = ctx;
    DIMS(j->work);
    size_t lo, hi;
    it_share(j->rows, 8, part, parts, &lo, &hi);
    if (lo < hi)
        it_kernels()->layernorm_fwd(hi - lo, D, j->X + lo * D, j->w, j->b, it_f32_from_bits(LN_EPS_BITS),
                                    j->Y + lo * D, j->xhat + lo * D, j->rstd + lo);
}

/* §5.15's input side over rows, and each row's parameter-side terms
 * P[r][i] = dy[r][i] * xhat[r][i] (their SUM over rows is the caller's) */
static void ln_bwd_part(void *ctx, unsigned part, unsigned parts)
{
    const rows_job *j = ctx;
    DIMS(j->work);
    size_t lo, hi;
    it_share(j->rows, 8, part, parts, &lo, &hi);
    if (lo < hi)
        it_kernels()->layernorm_bwd(hi - lo, D, j->xhat_in + lo * D, j->rstd_in + lo, j->w, j->dY + lo * D,
                                    j->dX + lo * D, j->P + lo * D);
}

/* Shares of a job of `units` units of work: at most one per thread, and
 * never none. A job smaller than one unit (a process's few rows: a small
 * recipe on several MPI ranks, R * F below 4096) is still one share: with
 * none, it_parallel runs nothing and the step skips that op, which the MPI
 * trainer's tiny-recipe run on 2-4 ranks showed (ci/mpi-recipe.sh); the
 * rule is pool.c's it_parts, tested in tests/test_pool.c. */
static unsigned parts_of(const it_gptchar_work *w, size_t units)
{
    return it_parts(units, w->threads);
}

static void layernorm_rows(it_gptchar_work *w, const float *X, size_t rows, const float *g, const float *b,
                           float *Y, float *xhat, float *rstd)
{
    rows_job j = {.X = X, .w = g, .b = b, .Y = Y, .xhat = xhat, .rstd = rstd, .rows = rows, .work = w};
    it_parallel(parts_of(w, rows / 8), ln_fwd_part, &j);
}

/* §5.15 over rows: dX written; dw[i] = SUM_r dy*xhat and db[i] = SUM_r dy,
 * rows ascending, continued through the reducer (bias-only products) */
static void layernorm_rows_backward(it_gptchar_work *w, const it_reducer *rd, const float *xhat, const float *rstd,
                                    size_t rows, const float *g, const float *dY, float *dw, float *db, float *dX)
{
    rows_job j = {.w = g, .dY = dY, .xhat_in = xhat, .rstd_in = rstd, .dX = dX, .P = w->lnp, .rows = rows, .work = w};
    const size_t D = w->sh.d_model;
    it_parallel(parts_of(w, rows / 8), ln_bwd_part, &j);
    rd->linear_params(rd, rows, 0, D, w->lnp, D, NULL, 0, dw, dw, w->threads);
    rd->linear_params(rd, rows, 0, D, dY, D, NULL, 0, db, db, w->threads);
}

/* §5.16 / §5.17 over elements */
static void gelu_fwd_part(void *ctx, unsigned part, unsigned parts)
{
    const rows_job *j = ctx;
    size_t lo, hi;
    it_share(j->rows, 64, part, parts, &lo, &hi);
    it_kernels()->gelu_fwd(j->X + lo, hi - lo, j->Y + lo, j->tanh_out + lo);
}

static void gelu_bwd_part(void *ctx, unsigned part, unsigned parts)
{
    const rows_job *j = ctx;
    size_t lo, hi;
    it_share(j->rows, 64, part, parts, &lo, &hi);
    it_kernels()->gelu_bwd(j->X + lo, j->tanh_in + lo, j->dY + lo, hi - lo, j->dX + lo);
}

/* §5.18 / §5.19, one sequence per share */
static void attn_fwd_part(void *ctx, unsigned part, unsigned parts)
{
    const rows_job *j = ctx;
    DIMS(j->work);
    const float scale = it_f32_from_bits(j->work->der.attn_scale_bits);
    size_t lo, hi;
    it_share(j->rows, 1, part, parts, &lo, &hi);
    for (size_t b = lo; b < hi; b++)
        it_kernels()->causal_fwd(j->q + b * T * D, j->k + b * T * D, j->v + b * T * D, T, H, DH, scale,
                                            j->att + b * T * H * T, j->z + b * T * D, j->work->att_wp + b * H * T);
}

static void attn_bwd_part(void *ctx, unsigned part, unsigned parts)
{
    const rows_job *j = ctx;
    const it_gptchar_work *w = j->work;
    DIMS(w);
    const float scale = it_f32_from_bits(w->der.attn_scale_bits);
    size_t lo, hi;
    it_share(j->rows, 1, part, parts, &lo, &hi);
    for (size_t b = lo; b < hi; b++) {
        size_t o = b * T * D;
        it_kernels()->causal_bwd(j->q + o, j->k + o, j->v + o, j->att_in + b * T * H * T, j->dY + o, T, H,
                                             DH, scale, w->dq + o, w->dk + o, w->dv + o, w->att_wp + b * H * T,
                                             w->att_dkp + o, w->att_dvp + o);
    }
}

/* Hands an intermediate to the caller's tap (vectors, localization). */
#define TAP(tap, ctx, what, layer, data, n)                                                                      \
    do {                                                                                                        \
        if (tap)                                                                                                \
            (tap)((ctx), (what), (layer), (data), (n));                                                         \
    } while (0)

static void tap_layer(const it_gptchar_work *w, it_gptchar_tap tap, void *ctx, int l, const layer_acts *la,
                      size_t R, size_t nseq)
{
    DIMS(w);
    TAP(tap, ctx, "ln1", l, la->ln1, R * D);
    TAP(tap, ctx, "q", l, la->q, R * D);
    TAP(tap, ctx, "k", l, la->k, R * D);
    TAP(tap, ctx, "v", l, la->v, R * D);
    TAP(tap, ctx, "att", l, la->att, nseq * T * H * T);
    TAP(tap, ctx, "z", l, la->z, R * D);
    TAP(tap, ctx, "o", l, la->o, R * D);
    TAP(tap, ctx, "xmid", l, la->xmid, R * D);
    TAP(tap, ctx, "ln2", l, la->ln2, R * D);
    TAP(tap, ctx, "h", l, la->h, R * F);
    TAP(tap, ctx, "xout", l, la->xout, R * D);
}

/* spec §14.6 steps 2-4 for block l: attention and MLP branches */
static void block_forward(const float *bp, layer_acts *la, it_gptchar_work *w)
{
    DIMS(w);
    const size_t R = w->a.rows;
    const unsigned th = w->threads;
    layernorm_rows(w, la->xin, R, BT(bp, LN1_W), BT(bp, LN1_B), la->ln1, la->ln1_xhat, la->ln1_rstd);
    it_rows_linear_forward(R, D, D, la->ln1, D, BT(bp, Q_W), BT(bp, Q_B), la->q, D, th);
    it_rows_linear_forward(R, D, D, la->ln1, D, BT(bp, K_W), BT(bp, K_B), la->k, D, th);
    it_rows_linear_forward(R, D, D, la->ln1, D, BT(bp, V_W), BT(bp, V_B), la->v, D, th);
    rows_job aj = {.q = la->q, .k = la->k, .v = la->v, .att = la->att, .z = la->z, .rows = w->a.nseq, .work = w};
    it_parallel(parts_of(w, w->a.nseq), attn_fwd_part, &aj);
    it_rows_linear_forward(R, D, D, la->z, D, BT(bp, O_W), BT(bp, O_B), la->o, D, th);
    it_rows_add(R, D, la->xin, D, la->o, D, la->xmid, D, th);
    layernorm_rows(w, la->xmid, R, BT(bp, LN2_W), BT(bp, LN2_B), la->ln2, la->ln2_xhat, la->ln2_rstd);
    it_rows_linear_forward(R, D, F, la->ln2, D, BT(bp, FC_W), BT(bp, FC_B), la->h, F, th);
    rows_job gj = {.X = la->h, .Y = la->g, .tanh_out = la->tanh_h, .rows = R * F};
    it_parallel(parts_of(w, R * F / 4096), gelu_fwd_part, &gj);
    it_rows_linear_forward(R, F, D, la->g, F, BT(bp, PROJ_W), BT(bp, PROJ_B), la->m, D, th);
    it_rows_add(R, D, la->xmid, D, la->m, D, la->xout, D, th);
}

/* spec §14.6 steps 1-5: the logits of every row, then the per-row loss */
static void forward(const float *params, const uint32_t *x, const uint32_t *y, it_gptchar_work *w,
                    it_gptchar_tap tap, void *ctx)
{
    DIMS(w);
    acts *a = &w->a;
    const size_t R = a->rows;
    const float *wte = params, *wpe = params + V * D; /* §14.2: wte first, wpe second */
    for (size_t r = 0; r < R; r++)
        for (size_t c = 0; c < D; c++)
            a->x0[r * D + c] = wte[x[r] * D + c] + wpe[(r % T) * D + c];
    TAP(tap, ctx, "x0", -1, a->x0, R * D);
    for (size_t l = 0; l < L; l++) {
        block_forward(block(w, params, l), &a->l[l], w);
        tap_layer(w, tap, ctx, (int)l, &a->l[l], R, a->nseq);
    }
    const float *lnf_w = params + w->der.off_lnf_w;
    layernorm_rows(w, a->l[L - 1].xout, R, lnf_w, lnf_w + D, a->lnf, a->lnf_xhat,
                   a->lnf_rstd);
    /* tied output: logits[r][v] = SUM_c lnf[r][c] * wte[v][c] (no bias) */
    it_rows_linear_forward(R, D, V, a->lnf, D, wte, NULL, a->probs, V, w->threads);
    it_rows_softmax_xent_forward(R, V, a->probs, V, y, a->loss, a->probs, V, w->threads);
    TAP(tap, ctx, "lnf", -1, a->lnf, R * D);
    TAP(tap, ctx, "probs", -1, a->probs, R * V);
}

/* spec §14.6, block l backward: dx holds d xout on entry, d xin on return;
 * every parameter gradient's SUM over rows goes through rd */
static void block_backward(const float *bp, float *gp, const layer_acts *la, it_gptchar_work *w,
                           const it_reducer *rd)
{
    DIMS(w);
    const size_t R = w->a.rows;
    const unsigned th = w->threads;
    float *const dx = w->dx, *const dbranch = w->dbranch, *const dh = w->dh, *const tmp = w->tmp;
    /* xout = xmid + m: the MLP branch gets dx, the stream passes it on */
    rd->linear_params(rd, R, F, D, dx, D, la->g, F, BT(gp, PROJ_W), BT(gp, PROJ_B), th);
    it_rows_linear_backward_input(R, F, D, dx, D, BT(bp, PROJ_W), dh, F, th);
    rows_job gj = {.X = la->h, .tanh_in = la->tanh_h, .dY = dh, .dX = dh, .rows = R * F};
    it_parallel(parts_of(w, R * F / 4096), gelu_bwd_part, &gj);
    rd->linear_params(rd, R, D, F, dh, F, la->ln2, D, BT(gp, FC_W), BT(gp, FC_B), th);
    it_rows_linear_backward_input(R, D, F, dh, F, BT(bp, FC_W), tmp, D, th);
    layernorm_rows_backward(w, rd, la->ln2_xhat, la->ln2_rstd, R, BT(bp, LN2_W), tmp, BT(gp, LN2_W),
                            BT(gp, LN2_B), dbranch);
    it_rows_add(R, D, dx, D, dbranch, D, dx, D, th); /* d xmid = d xout + the branch's */
    /* xmid = xin + o: the attention branch gets d xmid */
    rd->linear_params(rd, R, D, D, dx, D, la->z, D, BT(gp, O_W), BT(gp, O_B), th);
    it_rows_linear_backward_input(R, D, D, dx, D, BT(bp, O_W), tmp, D, th);
    rows_job aj = {.q = la->q, .k = la->k, .v = la->v, .att_in = la->att, .dY = tmp, .rows = w->a.nseq, .work = w};
    it_parallel(parts_of(w, w->a.nseq), attn_bwd_part, &aj);
    rd->linear_params(rd, R, D, D, w->dq, D, la->ln1, D, BT(gp, Q_W), BT(gp, Q_B), th);
    it_rows_linear_backward_input(R, D, D, w->dq, D, BT(bp, Q_W), tmp, D, th);
    rd->linear_params(rd, R, D, D, w->dk, D, la->ln1, D, BT(gp, K_W), BT(gp, K_B), th);
    it_rows_linear_backward_input(R, D, D, w->dk, D, BT(bp, K_W), dbranch, D, th);
    it_rows_add(R, D, tmp, D, dbranch, D, tmp, D, th); /* dxq + dxk */
    rd->linear_params(rd, R, D, D, w->dv, D, la->ln1, D, BT(gp, V_W), BT(gp, V_B), th);
    it_rows_linear_backward_input(R, D, D, w->dv, D, BT(bp, V_W), dbranch, D, th);
    it_rows_add(R, D, tmp, D, dbranch, D, tmp, D, th); /* (dxq + dxk) + dxv */
    layernorm_rows_backward(w, rd, la->ln1_xhat, la->ln1_rstd, R, BT(bp, LN1_W), tmp, BT(gp, LN1_W),
                            BT(gp, LN1_B), dbranch);
    it_rows_add(R, D, dx, D, dbranch, D, dx, D, th); /* d xin = d xmid + the branch's */
}

/* spec §14.6: the mean loss of nseq sequences and its gradient, this
 * process computing the sequences [lo, hi) rd gives it; every SUM over
 * the batch's rows (each dW, db and LayerNorm gain/bias element, the
 * embedding scatter-adds, the loss) runs through rd in row order */
static it_status loss_grad(it_gptchar_work *w, const float *params, const uint32_t *x, const uint32_t *y,
                           size_t nseq, float *grads, it_gptchar_tap tap, void *ctx, float *loss,
                           const it_reducer *rd)
{
    size_t lo, hi;
    rd->rows(rd, nseq, &lo, &hi);
    if (hi - lo > w->max_seqs || hi < lo)
        return IT_ERR_ARG;
    DIMS(w);
    acts *const a = &w->a;
    a->nseq = hi - lo;
    a->rows = a->nseq * T;
    const size_t R = a->rows, NR = nseq * T;
    const float s = 1.0f / (float)NR; /* §16.3: RN(1 / f32(R)), 2^-9 for gptchar's 512 rows */
    x += lo * T, y += lo * T;
    memset(grads, 0, sizeof(float) * P); /* every gradient SUM starts at +0 */
    forward(params, x, y, w, tap, ctx);
    float loss_sum = rd->loss(rd, 0.0f, a->loss, R);
    it_rows_softmax_xent_backward(R, V, a->probs, V, y, s, w->dlogits, V, w->threads);
    TAP(tap, ctx, "dlogits", -1, w->dlogits, R * V);
    const float *wte = params;
    float *const dwte = grads, *const dwpe = grads + V * D, *const dlnf_w = grads + w->der.off_lnf_w;
    /* dlnf[r][c] = SUM_v dlogits[r][v] * wte[v][c] (wte's own gradient is §5.20, below) */
    it_rows_linear_backward_input(R, D, V, w->dlogits, V, wte, w->tmp, D, w->threads);
    layernorm_rows_backward(w, rd, a->lnf_xhat, a->lnf_rstd, R, params + w->der.off_lnf_w, w->tmp, dlnf_w,
                            dlnf_w + D, w->dx);
    for (size_t l = L; l-- > 0;)
        block_backward(block(w, params, l), grads + w->der.off_h0 + l * w->der.block_len, &a->l[l], w, rd);
    /* position embedding: rows in ascending order, each into its position's row */
    rd->embedding(rd, R, D, T, w->pos, w->dx, D, dwpe, w->threads);
    TAP(tap, ctx, "dx0", -1, w->dx, R * D);
    /* the tied embedding (§5.20): the output side over every row of the
     * batch, then each row's input side continuing the same sums */
    rd->linear_params(rd, R, D, V, w->dlogits, V, a->lnf, D, dwte, NULL, w->threads);
    rd->embedding(rd, R, D, V, x, w->dx, D, dwte, w->threads);
    rd->finish(rd, grads, P, &loss_sum);
    *loss = loss_sum * s;
    return IT_OK;
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

it_status it_gptchar_loss_grad_work(it_gptchar_work *w, const float *params, const uint32_t *x, const uint32_t *y,
                                    size_t nseq, float *grads, it_gptchar_tap tap, void *ctx, float *loss)
{
    if (!w)
        return IT_ERR_ARG;
    return loss_grad(w, params, x, y, nseq, grads, tap, ctx, loss, &it_reducer_local);
}

it_status it_gptchar_loss_grad_reduced(it_gptchar_work *w, const float *params, const uint32_t *x, const uint32_t *y,
                                       size_t nseq, float *grads, unsigned threads, float *loss, const it_reducer *rd)
{
    if (!w)
        return IT_ERR_ARG;
    unsigned keep = w->threads;
    it_gptchar_work_threads(w, threads);
    it_status st = loss_grad(w, params, x, y, nseq, grads, NULL, NULL, loss, rd ? rd : &it_reducer_local);
    w->threads = keep;
    return st;
}
