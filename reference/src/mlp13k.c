/* Profile mlp13k (spec §11): a byte-level MLP that reads one byte and
 * predicts the next. embed 256x16 -> linear 16->32 -> tanh -> linear 32->256
 * -> softmax cross-entropy. */
#include <string.h>

#include "isotrain.h"
#include "isotrain_reduce.h"
#include "kernels/kernels.h"

enum { V = IT_MLP13K_VOCAB, D = IT_MLP13K_EMBED, H = IT_MLP13K_HIDDEN };

/* spec §11.1 */
#define MLP13K_SEED 0x69736f747261696eull /* "isotrain" in ASCII */
#define MLP13K_LR_BITS 0x3f000000u        /* 0.5 */

/* spec §11.5: sampling's stream comes after the tensors' (§11.4: a
 * tensor's stream is its checkpoint index) */
enum { STREAM_SAMPLE = 5 };

it_mlp13k_recipe it_mlp13k_default_recipe(void)
{
    it_mlp13k_recipe r;
    r.seed = MLP13K_SEED;
    r.lr = it_f32_from_bits(MLP13K_LR_BITS);
    r.corpus = it_mlp13k_corpus;
    r.corpus_len = it_mlp13k_corpus_len;
    return r;
}

/* spec §11.4, by the init columns of the table (profiles.c) */
void it_mlp13k_init(const it_mlp13k_recipe *r, float *params)
{
    it_tensors_init(it_mlp13k_tensors, 5, r->seed, params);
}

/* spec §11.5: a uniformly drawn offset o in [0, len-1) gives the pair
 * (corpus[o], corpus[o+1]). */
void it_mlp13k_batch(const it_mlp13k_recipe *r, uint32_t step,
                     unsigned char xs[IT_MLP13K_BATCH], unsigned char ys[IT_MLP13K_BATCH])
{
    uint32_t pairs = (uint32_t)(r->corpus_len - 1);
    for (uint32_t p = 0; p < IT_MLP13K_BATCH; p++) {
        uint64_t index = (uint64_t)(step - 1) * IT_MLP13K_BATCH + p;
        uint32_t o = it_u32_below(it_rng_u32(r->seed, STREAM_SAMPLE, index), pairs);
        xs[p] = r->corpus[o];
        ys[p] = r->corpus[o + 1];
    }
}

/* spec §11.6 with the kernel set in use (kernels/kernels.h): every set gives
 * the bits of the portable loop below. */
float it_mlp13k_loss_grad(const float *params, const unsigned char *xs, const unsigned char *ys, size_t batch,
                          float *grads)
{
    return it_kernels()->mlp13k_loss_grad(params, xs, ys, batch, grads);
}

/* spec §11.6: positions one after another in ascending order, each adding its
 * terms to every gradient, so each gradient element is an ascending-position
 * sum that starts from +0. */
float it_mlp13k_loss_grad_portable(const float *params, const unsigned char *xs,
                          const unsigned char *ys, size_t batch, float *grads)
{
    const float *E = params + IT_MLP13K_OFF_EMBED, *W1 = params + IT_MLP13K_OFF_W1,
                *b1 = params + IT_MLP13K_OFF_B1, *W2 = params + IT_MLP13K_OFF_W2,
                *b2 = params + IT_MLP13K_OFF_B2;
    float *dE = grads + IT_MLP13K_OFF_EMBED, *dW1 = grads + IT_MLP13K_OFF_W1,
          *db1 = grads + IT_MLP13K_OFF_B1, *dW2 = grads + IT_MLP13K_OFF_W2,
          *db2 = grads + IT_MLP13K_OFF_B2;
    /* 1/B: exact for the profile's B = 64 */
    const float inv_batch = 1.0f / (float)batch;

    for (size_t i = 0; i < IT_MLP13K_NPARAMS; i++)
        grads[i] = 0.0f;

    float loss_sum = 0.0f;
    for (size_t p = 0; p < batch; p++) {
        float e[D], z1[H], h[H], z2[V], probs[V];
        float dz2[V], dh[H], dz1[H], de[D];

        it_embedding_forward(E, D, xs[p], e);
        it_linear_forward(W1, b1, e, D, H, z1);
        it_tanh_forward(z1, H, h);
        it_linear_forward(W2, b2, h, H, V, z2);
        loss_sum = loss_sum + it_softmax_xent_forward(z2, V, ys[p], probs);

        it_softmax_xent_backward(probs, V, ys[p], inv_batch, dz2);
        it_linear_backward(W2, h, dz2, H, V, dW2, db2, dh);
        it_tanh_backward(h, dh, H, dz1);
        it_linear_backward(W1, e, dz1, D, H, dW1, db1, de);
        it_embedding_backward(dE, D, xs[p], de);
    }
    return loss_sum * inv_batch;
}

/* spec §11.6 again, a chunk of positions at a time through the batched
 * layers of isotrain.h (rows = positions): the kernel sets' version. Each
 * gradient element takes its positions' terms in ascending order, the
 * sums resumed from one chunk to the next (spec §4.1), so these are the
 * bits of the loop above (test kernels::loss_and_gradient_...). */
float it_mlp13k_loss_grad_rows(const float *params, const unsigned char *xs, const unsigned char *ys, size_t batch,
                               float *grads)
{
    return it_mlp13k_loss_grad_reduced(params, xs, ys, batch, grads, &it_reducer_local);
}

/* The same over the rows rd gives this process (isotrain_reduce.h): every
 * order-dependent sum of the step goes through rd, the one seam between
 * one process and many (spec §15). */
float it_mlp13k_loss_grad_reduced(const float *params, const unsigned char *xs, const unsigned char *ys, size_t batch,
                                  float *grads, const it_reducer *rd)
{
    enum { PB = 64 }; /* positions per chunk: the activations stay on the stack */
    const float *E = params + IT_MLP13K_OFF_EMBED, *W1 = params + IT_MLP13K_OFF_W1,
                *b1 = params + IT_MLP13K_OFF_B1, *W2 = params + IT_MLP13K_OFF_W2,
                *b2 = params + IT_MLP13K_OFF_B2;
    float *dE = grads + IT_MLP13K_OFF_EMBED, *dW1 = grads + IT_MLP13K_OFF_W1,
          *db1 = grads + IT_MLP13K_OFF_B1, *dW2 = grads + IT_MLP13K_OFF_W2,
          *db2 = grads + IT_MLP13K_OFF_B2;
    const float inv_batch = 1.0f / (float)batch;

    size_t lo, hi;
    rd->rows(rd, batch, &lo, &hi);
    memset(grads, 0, sizeof(float) * IT_MLP13K_NPARAMS); /* every sum from +0 */
    float loss_sum = 0.0f;
    for (size_t p0 = lo; p0 < hi; p0 += PB) {
        const size_t P = hi - p0 < PB ? hi - p0 : PB;
        uint32_t tok[PB], tgt[PB];
        float e[PB * D], h[PB * H], z[PB * V], loss[PB], dh[PB * H], de[PB * D];
        for (size_t p = 0; p < P; p++) {
            tok[p] = xs[p0 + p];
            tgt[p] = ys[p0 + p];
        }
        /* forward: e, h = tanh(W1 e + b1), z = W2 h + b2, softmax + loss */
        it_rows_embedding_forward(P, D, V, E, tok, e, D, 1);
        it_rows_linear_forward(P, D, H, e, D, W1, b1, h, H, 1);
        it_rows_tanh_forward(P, H, h, H, h, H, 1);
        it_rows_linear_forward(P, H, V, h, H, W2, b2, z, V, 1);
        it_rows_softmax_xent_forward(P, V, z, V, tgt, loss, z, V, 1);
        loss_sum = rd->loss(rd, loss_sum, loss, P);
        /* backward: z becomes dz2, dh becomes dz1 in place */
        it_rows_softmax_xent_backward(P, V, z, V, tgt, inv_batch, z, V, 1);
        rd->linear_params(rd, P, H, V, z, V, h, H, dW2, db2, 1);
        it_rows_linear_backward_input(P, H, V, z, V, W2, dh, H, 1);
        it_rows_tanh_backward(P, H, h, H, dh, H, dh, H, 1);
        rd->linear_params(rd, P, D, H, dh, H, e, D, dW1, db1, 1);
        it_rows_linear_backward_input(P, D, H, dh, H, W1, de, D, 1);
        rd->embedding(rd, P, D, V, tok, de, D, dE, 1);
    }
    rd->finish(rd, grads, IT_MLP13K_NPARAMS, &loss_sum);
    return loss_sum * inv_batch;
}
