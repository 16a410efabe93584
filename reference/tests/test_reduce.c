/* The reduction seam (isotrain_reduce.h, spec §15, §4.1): the profiles' step
 * code run as P "ranks" one after another in this process, with a reducer
 * that passes each partial sum from one to the next through memory, exactly
 * as reference/mpi/reduce_mpi.c passes it through MPI. The last rank's
 * gradient and loss must be the bits of one process (it_mlp13k_loss_grad,
 * it_addmod113_loss_grad) for every rank count, also counts that do not
 * divide the batch; the negative control adds per-rank partials that each
 * started from +0 (what MPI_Allreduce(MPI_SUM) does) and must differ. */
#include <stdlib.h>
#include <string.h>

#include "isotrain_reduce.h"
#include "testutil.h"

typedef struct {
    it_reducer rd;
    int rank, size;
    int add_partials;   /* the negative control: every rank from +0, partials added */
    const float *base;  /* this rank's gradient buffer */
    float *wire;        /* the partials "in flight", laid out as a gradient */
    float wire_loss;
} sim;

static void sim_rows(const it_reducer *rd, size_t n, size_t *lo, size_t *hi)
{
    const sim *s = rd->ctx;
    *lo = n * (size_t)s->rank / (size_t)s->size;
    *hi = n * (size_t)(s->rank + 1) / (size_t)s->size;
}

/* before a rank's terms: the partial of the ranks before it (chain only) */
static void sim_receive(sim *s, float *dst, size_t n)
{
    if (!s->add_partials && s->rank > 0 && n)
        memcpy(dst, s->wire + (dst - s->base), n * sizeof *dst);
}

/* after them: on to the next rank, or (control) added to the others' */
static void sim_send(sim *s, const float *src, size_t n)
{
    float *w = s->wire + (src - s->base);
    for (size_t i = 0; i < n; i++)
        w[i] = s->add_partials && s->rank > 0 ? w[i] + src[i] : src[i];
}

static int sim_linear(const it_reducer *rd, size_t rows, size_t in, size_t out, const float *dY, size_t lddy,
                      const float *X, size_t ldx, float *dW, float *db, unsigned th)
{
    sim *s = rd->ctx;
    sim_receive(s, dW, out * in);
    if (db)
        sim_receive(s, db, out);
    int rc = it_rows_linear_backward_params(rows, in, out, dY, lddy, X, ldx, dW, db, th);
    sim_send(s, dW, out * in);
    if (db)
        sim_send(s, db, out);
    return rc;
}

static int sim_embedding(const it_reducer *rd, size_t rows, size_t dim, size_t vocab, const uint32_t *tokens,
                         const float *dY, size_t lddy, float *dE, unsigned th)
{
    sim *s = rd->ctx;
    sim_receive(s, dE, vocab * dim);
    int rc = it_rows_embedding_backward(rows, dim, vocab, tokens, dY, lddy, dE, th);
    sim_send(s, dE, vocab * dim);
    return rc;
}

static float sim_loss(const it_reducer *rd, float partial, const float *terms, size_t n)
{
    sim *s = rd->ctx;
    if (!s->add_partials && s->rank > 0)
        partial = s->wire_loss;
    for (size_t i = 0; i < n; i++)
        partial = partial + terms[i];
    s->wire_loss = s->add_partials && s->rank > 0 ? s->wire_loss + partial : partial;
    return partial;
}

/* the last rank's sums are the batch's (chain); the control's are the wire's */
static void sim_finish(const it_reducer *rd, float *grads, size_t n, float *loss_sum)
{
    sim *s = rd->ctx;
    if (s->add_partials && s->rank == s->size - 1) {
        memcpy(grads, s->wire, n * sizeof *grads);
        *loss_sum = s->wire_loss;
    }
}

static size_t differing(const float *a, const float *b, size_t n)
{
    size_t d = 0;
    for (size_t i = 0; i < n; i++)
        d += B(a[i]) != B(b[i]);
    return d;
}

/* mlp13k, step 1's batch (spec §11.5-§11.6), on `size` ranks */
static size_t mlp13k_on_ranks(int size, int add_partials, float *loss_bits_out)
{
    it_mlp13k_recipe r = it_mlp13k_default_recipe();
    static float params[IT_MLP13K_NPARAMS], want[IT_MLP13K_NPARAMS], got[IT_MLP13K_NPARAMS],
        wire[IT_MLP13K_NPARAMS];
    unsigned char xs[IT_MLP13K_BATCH], ys[IT_MLP13K_BATCH];
    it_mlp13k_init(&r, params);
    it_mlp13k_batch(&r, 1, xs, ys);
    float want_loss = it_mlp13k_loss_grad(params, xs, ys, IT_MLP13K_BATCH, want);
    float loss = 0, wire_loss = 0;
    for (int k = 0; k < size; k++) {
        sim s = {{sim_rows, sim_linear, sim_embedding, sim_loss, sim_finish, NULL}, k, size, add_partials, got, wire,
                 wire_loss};
        s.rd.ctx = &s;
        loss = it_mlp13k_loss_grad_reduced(params, xs, ys, IT_MLP13K_BATCH, got, &s.rd);
        wire_loss = s.wire_loss;
    }
    *loss_bits_out = loss;
    return differing(got, want, IT_MLP13K_NPARAMS) + (B(loss) != B(want_loss));
}

Test(reduce, mlp13k_chain_through_ranks_gives_one_process_bits)
{
    const int sizes[] = {1, 2, 3, 5, 7, 13, 63, 64};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        float loss;
        size_t d = mlp13k_on_ranks(sizes[i], 0, &loss);
        cr_assert(d == 0, "%d ranks: %zu values differ from one process", sizes[i], d);
        assert_bits(loss, 0x40b15a22, "(spec §11.6 step-1 loss, %d ranks)", sizes[i]);
    }
}

/* the negative control: MPI_Allreduce(MPI_SUM)'s way (spec §15.3) */
Test(reduce, mlp13k_partials_added_differ)
{
    const int sizes[] = {2, 3, 4};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        float loss;
        size_t d = mlp13k_on_ranks(sizes[i], 1, &loss);
        cr_assert(d > 0, "%d ranks: adding per-rank partials gave the chain's bits", sizes[i]);
    }
}

/* addmod113 (spec §13.5) on a batch of 45 training pairs */
static size_t addmod113_on_ranks(int size, int add_partials)
{
    enum { N = 45 };
    float *params = malloc(sizeof(float) * IT_AM_NPARAMS), *want = malloc(sizeof(float) * IT_AM_NPARAMS),
          *got = malloc(sizeof(float) * IT_AM_NPARAMS), *wire = malloc(sizeof(float) * IT_AM_NPARAMS);
    uint32_t *perm = malloc(sizeof(uint32_t) * IT_AM_PAIRS);
    cr_assert(params && want && got && wire && perm);
    it_addmod113_init(IT_AM_SEED, params);
    it_addmod113_permutation(IT_AM_SEED, perm);
    float want_loss = it_addmod113_loss_grad(params, perm, N, want, 1);
    it_addmod113_work *w = it_addmod113_work_new(N);
    cr_assert(w);
    float loss = 0, wire_loss = 0;
    for (int k = 0; k < size; k++) {
        sim s = {{sim_rows, sim_linear, sim_embedding, sim_loss, sim_finish, NULL}, k, size, add_partials, got, wire,
                 wire_loss};
        s.rd.ctx = &s;
        loss = it_addmod113_loss_grad_reduced(w, params, perm, N, got, 1, &s.rd);
        wire_loss = s.wire_loss;
    }
    size_t d = differing(got, want, IT_AM_NPARAMS) + (B(loss) != B(want_loss));
    it_addmod113_work_free(w);
    free(params), free(want), free(got), free(wire), free(perm);
    return d;
}

Test(reduce, addmod113_chain_through_ranks_gives_one_process_bits, .timeout = 120)
{
    const int sizes[] = {1, 2, 3, 4, 7, 45};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        size_t d = addmod113_on_ranks(sizes[i], 0);
        cr_assert(d == 0, "%d ranks: %zu values differ from one process", sizes[i], d);
    }
}

Test(reduce, addmod113_partials_added_differ, .timeout = 120)
{
    size_t d = addmod113_on_ranks(3, 1);
    cr_assert(d > 0, "3 ranks: adding per-rank partials gave the chain's bits");
}

/* it_reducer_local is the one-process path: rows 0..n, nothing else to do */
Test(reduce, local_reducer_is_the_direct_call)
{
    size_t lo = 7, hi = 7;
    it_reducer_local.rows(&it_reducer_local, 64, &lo, &hi);
    cr_assert(lo == 0 && hi == 64);
    float terms[3] = {F(0x4cbebc20), F(0x3f800000), F(0xccbebc20)}; /* 1e8, 1, -1e8 (spec §4.2) */
    assert_bits(it_reducer_local.loss(&it_reducer_local, 0.0f, terms, 3), 0x00000000);
}
