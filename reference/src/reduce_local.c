/* The one-process reducer of isotrain_reduce.h: this process computes every
 * row, and every sum is the direct call of isotrain.h's batched API,
 * continued from what the step code stored before it (spec §4.1). */
#include "isotrain_reduce.h"

static void local_rows(const it_reducer *rd, size_t n, size_t *lo, size_t *hi)
{
    (void)rd;
    *lo = 0;
    *hi = n;
}

static int local_linear_params(const it_reducer *rd, size_t rows, size_t in, size_t out, const float *dY, size_t lddy,
                               const float *X, size_t ldx, float *dW, float *db, unsigned threads)
{
    (void)rd;
    return it_rows_linear_backward_params(rows, in, out, dY, lddy, X, ldx, dW, db, threads);
}

static int local_embedding(const it_reducer *rd, size_t rows, size_t dim, size_t vocab, const uint32_t *tokens,
                           const float *dY, size_t lddy, float *dE, unsigned threads)
{
    (void)rd;
    return it_rows_embedding_backward(rows, dim, vocab, tokens, dY, lddy, dE, threads);
}

/* §4.3 / §4.5: the batch loss, in row order */
static float local_loss(const it_reducer *rd, float partial, const float *terms, size_t n)
{
    (void)rd;
    for (size_t i = 0; i < n; i++)
        partial = partial + terms[i];
    return partial;
}

static void local_finish(const it_reducer *rd, float *grads, size_t n, float *loss_sum)
{
    (void)rd, (void)grads, (void)n, (void)loss_sum; /* the sums are complete here already */
}

const it_reducer it_reducer_local = {local_rows, local_linear_params, local_embedding, local_loss, local_finish, NULL};
