/* The reference run of mlp13k (spec 11.8) and the intermediates of chosen
 * positions, whose real values the Typical cases use. */
#include <string.h>

#include "mv.h"

it_mlp13k_recipe recipe;
float hist[STEPS + 1][NP];
uint32_t loss_bits[STEPS + 1]; /* loss of step t's batch (t >= 1) */
char digests[STEPS + 1][65];
unsigned char batch_x[STEPS + 2][B], batch_y[STEPS + 2][B];

void train(void)
{
    static it_mlp13k_state s;
    it_mlp13k_start(&recipe, &s);
    memcpy(hist[0], s.params, sizeof hist[0]);
    it_params_digest(s.params, NP, digests[0]);
    for (uint32_t t = 1; t <= STEPS; t++) {
        it_status st = it_mlp13k_step(&recipe, &s);
        if (st != IT_OK)
            die("the reference failed at step %u: %s", (unsigned)t, it_status_name(st));
        memcpy(hist[t], s.params, sizeof hist[t]);
        loss_bits[t] = U(s.last_loss);
        it_params_digest(s.params, NP, digests[t]);
    }
    for (uint32_t t = 1; t <= STEPS + 1; t++)
        it_mlp13k_batch(&recipe, t, batch_x[t], batch_y[t]);
}

const float *T_E(const float *p) { return p + IT_MLP13K_OFF_EMBED; }
const float *T_W1(const float *p) { return p + IT_MLP13K_OFF_W1; }
const float *T_B1(const float *p) { return p + IT_MLP13K_OFF_B1; }
const float *T_W2(const float *p) { return p + IT_MLP13K_OFF_W2; }
const float *T_B2(const float *p) { return p + IT_MLP13K_OFF_B2; }

/* One position of spec 11.6 rebuilt from the public API in the library's
 * order, keeping every intermediate so the op vectors can use real values.
 * rebuild_loss_grad() checks the rebuild against it_mlp13k_loss_grad bit
 * for bit, so these intermediates are the reference's. */
static void run_position(const float *params, unsigned x, unsigned y, float scale, position *P, float *grads)
{
    it_embedding_forward(T_E(params), D, x, P->e);
    it_linear_forward(T_W1(params), T_B1(params), P->e, D, H, P->z1);
    it_tanh_forward(P->z1, H, P->h);
    it_linear_forward(T_W2(params), T_B2(params), P->h, H, V, P->z2);
    P->loss = it_softmax_xent_forward(P->z2, V, y, P->probs);
    /* spec 5.4's denominator, kept for the log vectors */
    float m = P->z2[0], S = 0.0f;
    for (int k = 1; k < V; k++)
        if (P->z2[k] > m)
            m = P->z2[k];
    for (int k = 0; k < V; k++)
        S = S + it_expf(P->z2[k] - m);
    P->m = m;
    P->S = S;
    require(same(P->loss, it_logf(S) - (P->z2[y] - m)), "softmax rebuild: loss %08x", (unsigned)U(P->loss));
    it_softmax_xent_backward(P->probs, V, y, scale, P->dz2);
    it_linear_backward(T_W2(params), P->h, P->dz2, H, V, grads + IT_MLP13K_OFF_W2, grads + IT_MLP13K_OFF_B2, P->dh);
    it_tanh_backward(P->h, P->dh, H, P->dz1);
    it_linear_backward(T_W1(params), P->e, P->dz1, D, H, grads + IT_MLP13K_OFF_W1, grads + IT_MLP13K_OFF_B1, P->de);
    it_embedding_backward(grads + IT_MLP13K_OFF_EMBED, D, x, P->de);
}

/* Runs positions [0, upto) of a batch of m into grads (zeroed first);
 * returns the loss sum. pos (m entries) may be NULL. */
float run_positions(const float *params, const unsigned char *xs, const unsigned char *ys, size_t m,
                           size_t upto, float *grads, position *pos)
{
    static position scratch;
    const float scale = 1.0f / (float)m;
    float loss_sum = 0.0f;
    for (size_t i = 0; i < NP; i++)
        grads[i] = 0.0f;
    for (size_t p = 0; p < upto; p++) {
        position *P = pos ? &pos[p] : &scratch;
        run_position(params, xs[p], ys[p], scale, P, grads);
        loss_sum = loss_sum + P->loss;
    }
    return loss_sum;
}

/* The whole batch, checked against the library. Returns the loss sum. */
float rebuild_loss_grad(const float *params, const unsigned char *xs, const unsigned char *ys, size_t m,
                               position *pos, float *grads)
{
    static float lib_grads[NP];
    float loss_sum = run_positions(params, xs, ys, m, m, grads, pos);
    float lib_loss = it_mlp13k_loss_grad(params, xs, ys, m, lib_grads);
    require(U(lib_loss) == U(loss_sum * (1.0f / (float)m)),
            "rebuilt loss %08x, it_mlp13k_loss_grad %08x: update make_vectors' rebuild of spec 11.6",
            (unsigned)U(loss_sum * (1.0f / (float)m)), (unsigned)U(lib_loss));
    for (size_t i = 0; i < NP; i++)
        require(U(lib_grads[i]) == U(grads[i]), "rebuilt gradient %zu differs from it_mlp13k_loss_grad", i);
    return loss_sum;
}

/* Real intermediates: the step-(t+1) batch at the state after t updates. */
position pos_init[B], pos_100[B], pos_200[B];
float grads_init[NP], grads_100[NP];

void rebuild_states(void)
{
    static float g200[NP];
    rebuild_loss_grad(hist[0], batch_x[1], batch_y[1], B, pos_init, grads_init);
    rebuild_loss_grad(hist[100], batch_x[101], batch_y[101], B, pos_100, grads_100);
    /* step 200's batch at the state after 199 updates: the last gradient */
    rebuild_loss_grad(hist[199], batch_x[200], batch_y[200], B, pos_200, g200);
    require(U(pos_init[0].loss) != 0, "sanity");
}
