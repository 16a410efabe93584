/* The MPI reducer (reduce_mpi.h; spec §15, §4.1).
 *
 * Rank r computes rows [lo_r, hi_r) of the batch, the ranges in rank order.
 * Every order-dependent sum of the step (each dW, db element, each
 * embedding-gradient element, the loss) is one SUM over the rows in batch
 * order; it runs through the ranks as a chain:
 *
 *   rank 0 starts it from +0 over its rows, sends the partial to rank 1,
 *   rank r receives it, continues it over its rows (the resumable calls of
 *   isotrain.h, spec §4.1) and sends it on, ..., the last rank holds the
 *   batch's sum.
 *
 * Each gradient tensor travels in blocks of outputs (rows of dW with their
 * db elements, rows of dE), so rank r continues block b while rank r-1
 * works on block b+1 and rank r+1 on block b-1: all ranks compute at once,
 * and the lag between neighbours (about the largest block's compute, once
 * it is established) carries over from tensor to tensor: the pipeline
 * fills once per step, not once per tensor. With one rank there is nothing
 * to pass on and every call is the direct one. Receives block; sends are non-blocking and are
 * completed in finish(), which then gives the last rank's sums to every
 * rank (MPI_Bcast: a copy, not arithmetic), so every rank applies the same
 * update to the same bits.
 *
 * A sum handed over a second time in a step continues the first one's
 * COMPLETE result (gptchar's tied wte, spec §5.20: the output side over
 * every row of the batch, then each row's input side, rows ascending): the
 * last rank, which holds the completed first sum, passes it to rank 0, and
 * the second sum runs through the ranks as a chain of its own. Only that
 * pattern is accepted (an embedding after a bias-free product of the same
 * tensor); any other repeat would need a rank's rows in two chunks.
 *
 * What this file must never do (spec §15): add two partial sums that each
 * started from +0 (MPI_Reduce/MPI_Allreduce with MPI_SUM, a ring or tree
 * reduction): binary32 addition is not associative, and those bits would
 * depend on the rank count. spec/mutants/mpi-allreduce.patch is exactly
 * that, and the runner fails it.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include "reduce_mpi.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* what a sum was handed over as: a repeat may continue only the §5.20 pair */
enum { SUM_PRODUCT, SUM_PRODUCT_NO_BIAS, SUM_EMBEDDING, SUM_LOSS, SUM_CONTINUED };
/* A block of dW is at least this many output rows: the matrix product
 * copies its other operand (X, rows x in) into panels once per call and per
 * 16 MR output rows, so a call for fewer rows repeats that copy for little
 * work; with 7-row blocks of addmod113's W_out the copies cost one rank 20 %
 * more CPU than one call (measured with one rank). */
enum { MIN_BLOCK_ROWS = 32 };

typedef struct {
    it_reducer rd; /* first: the struct is the reducer */
    MPI_Comm comm;
    int rank, size;
    size_t block_floats;
    MPI_Request *pending;
    size_t n_pending, cap_pending;
    int seq; /* messages of this step: their tags, so a block can only meet its own receive */
    /* the sums handed over this step: one per tensor at most, and the loss
     * (a recipe of the GPT family has up to 64 blocks, spec §16.2: the
     * table is sized by the run's tensors, it_mpi_reducer_describe) */
    const void **seen;
    int *seen_kind;
    size_t n_seen, cap_seen;
    float loss_out; /* the partial loss in flight to the next rank */
    uint32_t *tok;  /* embedding blocks: the rows whose token falls in the block */
    float *dy;
    size_t scratch_rows, scratch_dim;
    it_mpi_stats stats;
    const it_tensor_info *tensors; /* the run's tensors and gradient, to name a failed sum */
    size_t ntensors;
    const float *grads;
} mpi_reducer;

void it_mpi_rows_of(size_t n, int r, int p, size_t *lo, size_t *hi)
{
    /* floor(r n / p) .. floor((r+1) n / p): at most one row apart */
    *lo = (size_t)((unsigned long long)n * (unsigned)r / (unsigned)p);
    *hi = (size_t)((unsigned long long)n * (unsigned)(r + 1) / (unsigned)p);
}

/* this thread's CPU seconds: what a wait costs in CPU (--stats) */
double it_mpi_thread_cpu(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void die(const mpi_reducer *m, const char *what)
{
    fprintf(stderr, "isotrain-mpi: rank %d: %s\n", m->rank, what);
    fflush(stderr);
    MPI_Abort(m->comm, 70);
}

/* A sum this rank cannot continue: the chain cannot complete, and the
 * ranks after this one would wait for it forever, so the whole job ends,
 * naming the rank and the tensor (it_mpi_reducer_describe). */
static void die_in(const mpi_reducer *m, const void *sum, const char *what)
{
    const char *name = "(a tensor the run did not describe)";
    const float *f = sum;
    for (size_t t = 0; m->grads && t < m->ntensors; t++) {
        const it_tensor_info *ti = &m->tensors[t];
        if (f >= m->grads + ti->offset && f < m->grads + ti->offset + ti->rows * ti->cols)
            name = ti->name;
    }
    char why[512];
    snprintf(why, sizeof why, "the gradient sum of tensor %s: %s", name, what);
    die(m, why);
}

/* every tensor's sum goes through the chain once per step: a second call
 * for the same gradient would have to resume a partial that already left
 * this rank (the step must give each rank its rows in one chunk), except
 * the §5.20 pair (an embedding continuing a bias-free product's complete
 * sums), which is a second chain. Returns 1 for that continuation. */
static int once(mpi_reducer *m, const void *tensor, int kind)
{
    for (size_t i = 0; i < m->n_seen; i++)
        if (m->seen[i] == tensor) {
            if (m->seen_kind[i] == SUM_PRODUCT_NO_BIAS && kind == SUM_EMBEDDING) {
                m->seen_kind[i] = SUM_CONTINUED;
                return 1;
            }
            die_in(m, tensor, "handed over twice in one step (only an embedding may continue a bias-free "
                              "product's sums, spec 5.20): this reducer needs each rank's rows in one chunk");
        }
    if (m->n_seen == m->cap_seen)
        die(m, "more sums in one step than the run has tensors (or it_mpi_reducer_describe was not called)");
    m->seen_kind[m->n_seen] = kind;
    m->seen[m->n_seen++] = tensor;
    return 0;
}

static int next_tag(mpi_reducer *m)
{
    int t = m->seq;
    m->seq = (m->seq + 1) % 32768; /* MPI guarantees tags up to 32767 */
    return t;
}

/* the partial of rows before this rank (rank 0: keep what is there, +0) */
static void receive(mpi_reducer *m, float *buf, size_t count, int tag)
{
    if (m->rank == 0 || count == 0)
        return;
    MPI_Status st;
    double t0 = MPI_Wtime(), c0 = it_mpi_thread_cpu();
    MPI_Recv(buf, (int)count, MPI_FLOAT, m->rank - 1, tag, m->comm, &st);
    m->stats.wait_s += MPI_Wtime() - t0;
    m->stats.wait_cpu_s += it_mpi_thread_cpu() - c0;
    int got = -1;
    MPI_Get_count(&st, MPI_FLOAT, &got);
    if (got != (int)count) {
        char why[160];
        snprintf(why, sizeof why, "rank %d sent a block of %d values where %zu were expected (tag %d)", m->rank - 1,
                 got, count, tag);
        die(m, why);
    }
}

/* A continued sum (§5.20) starts from the first sum's complete result,
 * which the last rank holds: it hands the block to rank 0 (a blocking send:
 * it receives its own partial into the same block next). */
static void wrap_around(mpi_reducer *m, float *buf, size_t count, int tag)
{
    if (m->size == 1 || count == 0 || (m->rank != 0 && m->rank != m->size - 1))
        return;
    double t0 = MPI_Wtime(), c0 = it_mpi_thread_cpu();
    if (m->rank == m->size - 1) {
        MPI_Send(buf, (int)count, MPI_FLOAT, 0, tag, m->comm);
        m->stats.bytes_sent += 4 * count;
        m->stats.messages++;
    } else {
        MPI_Status st;
        MPI_Recv(buf, (int)count, MPI_FLOAT, m->size - 1, tag, m->comm, &st);
        int got = -1;
        MPI_Get_count(&st, MPI_FLOAT, &got);
        if (got != (int)count) {
            char why[160];
            snprintf(why, sizeof why, "rank %d sent a completed block of %d values where %zu were expected (tag %d)",
                     m->size - 1, got, count, tag);
            die_in(m, buf, why);
        }
    }
    m->stats.wait_s += MPI_Wtime() - t0;
    m->stats.wait_cpu_s += it_mpi_thread_cpu() - c0;
}

/* The sends of the first sum read the blocks a continued sum writes next:
 * they must be complete first (the next rank receives them without waiting
 * for anything of this rank's, so this ends). */
static void complete_sends(mpi_reducer *m)
{
    double t0 = MPI_Wtime(), c0 = it_mpi_thread_cpu();
    MPI_Waitall((int)m->n_pending, m->pending, MPI_STATUSES_IGNORE);
    m->n_pending = 0;
    m->stats.wait_s += MPI_Wtime() - t0;
    m->stats.wait_cpu_s += it_mpi_thread_cpu() - c0;
}

/* on to the next rank; buf must not change until finish() */
static void pass_on(mpi_reducer *m, const float *buf, size_t count, int tag)
{
    if (m->rank == m->size - 1 || count == 0)
        return;
    if (m->n_pending == m->cap_pending) {
        size_t cap = m->cap_pending ? 2 * m->cap_pending : 64;
        MPI_Request *p = realloc(m->pending, cap * sizeof *p);
        if (!p)
            die(m, "out of memory for send requests");
        m->pending = p;
        m->cap_pending = cap;
    }
    MPI_Isend(buf, (int)count, MPI_FLOAT, m->rank + 1, tag, m->comm, &m->pending[m->n_pending++]);
    m->stats.bytes_sent += 4 * count;
    m->stats.messages++;
}

static void mpi_rows(const it_reducer *rd, size_t n, size_t *lo, size_t *hi)
{
    const mpi_reducer *m = (const mpi_reducer *)rd;
    it_mpi_rows_of(n, m->rank, m->size, lo, hi);
}

/* dW (out x in) and db, in blocks of output rows: dW rows o0..o1-1 and
 * db[o0..o1-1] are whole sums, independent of the other blocks */
static int mpi_linear_params(const it_reducer *rd, size_t rows, size_t in, size_t out, const float *dY, size_t lddy,
                             const float *X, size_t ldx, float *dW, float *db, unsigned threads)
{
    mpi_reducer *m = (mpi_reducer *)rd;
    once(m, dW, db ? SUM_PRODUCT : SUM_PRODUCT_NO_BIAS);
    if (m->size == 1) { /* nothing to pass on: the call as it stands */
        if (it_rows_linear_backward_params(rows, in, out, dY, lddy, X, ldx, dW, db, threads) != 0)
            die_in(m, dW, "the product was refused (an invalid argument)");
        return 0;
    }
    size_t per_row = in + (db ? 1 : 0), ob = m->block_floats / (per_row ? per_row : 1);
    if (ob < MIN_BLOCK_ROWS)
        ob = MIN_BLOCK_ROWS;
    int rc = 0;
    for (size_t o0 = 0; o0 < out; o0 += ob) {
        size_t k = out - o0 < ob ? out - o0 : ob;
        int tw = next_tag(m), tb = next_tag(m);
        receive(m, dW + o0 * in, k * in, tw);
        if (db)
            receive(m, db + o0, k, tb);
        rc |= it_rows_linear_backward_params(rows, in, k, dY + o0, lddy, X, ldx, dW + o0 * in, db ? db + o0 : NULL,
                                             threads);
        if (rc)
            die_in(m, dW, "the product was refused (an invalid argument)");
        pass_on(m, dW + o0 * in, k * in, tw);
        if (db)
            pass_on(m, db + o0, k, tb);
    }
    return rc;
}

static void scratch(mpi_reducer *m, size_t rows, size_t dim)
{
    if (rows <= m->scratch_rows && dim <= m->scratch_dim)
        return;
    size_t r = rows > m->scratch_rows ? rows : m->scratch_rows, d = dim > m->scratch_dim ? dim : m->scratch_dim;
    free(m->tok);
    free(m->dy);
    m->tok = malloc(r * sizeof *m->tok);
    m->dy = malloc(r * d * sizeof *m->dy);
    if (!m->tok || !m->dy)
        die(m, "out of memory for the embedding blocks");
    m->scratch_rows = r;
    m->scratch_dim = d;
}

/* dE (vocab x dim), in blocks of vocabulary rows: the rows of this rank
 * whose token falls in the block, in their order, continue its sums */
static int mpi_embedding(const it_reducer *rd, size_t rows, size_t dim, size_t vocab, const uint32_t *tokens,
                         const float *dY, size_t lddy, float *dE, unsigned threads)
{
    mpi_reducer *m = (mpi_reducer *)rd;
    int cont = once(m, dE, SUM_EMBEDDING);
    for (size_t r = 0; r < rows; r++)
        if (tokens[r] >= vocab) { /* nothing written, and nothing can be passed on */
            char why[160];
            snprintf(why, sizeof why, "token %u of row %zu is not below the vocabulary of %zu", (unsigned)tokens[r], r,
                     vocab);
            die_in(m, dE, why);
        }
    size_t vb = m->block_floats / (dim ? dim : 1);
    if (vb < MIN_BLOCK_ROWS)
        vb = MIN_BLOCK_ROWS;
    if (cont)
        complete_sends(m);
    if (vb >= vocab || m->size == 1) { /* one block: the call as it stands */
        int tag = next_tag(m);
        if (cont)
            wrap_around(m, dE, vocab * dim, tag);
        receive(m, dE, vocab * dim, tag);
        if (it_rows_embedding_backward(rows, dim, vocab, tokens, dY, lddy, dE, threads) != 0)
            die_in(m, dE, "the scatter-add was refused (an invalid argument)");
        pass_on(m, dE, vocab * dim, tag);
        return 0;
    }
    scratch(m, rows, dim);
    int rc = 0;
    for (size_t v0 = 0; v0 < vocab; v0 += vb) {
        size_t k = vocab - v0 < vb ? vocab - v0 : vb, sel = 0;
        int tag = next_tag(m);
        for (size_t r = 0; r < rows; r++)
            if (tokens[r] >= v0 && tokens[r] < v0 + k) {
                m->tok[sel] = (uint32_t)(tokens[r] - v0);
                memcpy(m->dy + sel * dim, dY + r * lddy, dim * sizeof *dY);
                sel++;
            }
        if (cont)
            wrap_around(m, dE + v0 * dim, k * dim, tag);
        receive(m, dE + v0 * dim, k * dim, tag);
        rc |= it_rows_embedding_backward(sel, dim, k, m->tok, m->dy, dim, dE + v0 * dim, threads);
        if (rc)
            die_in(m, dE, "the scatter-add was refused (an invalid argument)");
        pass_on(m, dE + v0 * dim, k * dim, tag);
    }
    return rc;
}

/* §4.3 / §4.5: the loss, one binary32 partial through the ranks */
static float mpi_loss(const it_reducer *rd, float partial, const float *terms, size_t n)
{
    mpi_reducer *m = (mpi_reducer *)rd;
    once(m, terms, SUM_LOSS);
    int tag = next_tag(m);
    receive(m, &partial, 1, tag);
    for (size_t i = 0; i < n; i++)
        partial = partial + terms[i];
    m->loss_out = partial;
    pass_on(m, &m->loss_out, 1, tag);
    return partial;
}

static void mpi_finish(const it_reducer *rd, float *grads, size_t n, float *loss_sum)
{
    mpi_reducer *m = (mpi_reducer *)rd;
    double t0 = MPI_Wtime(), c0 = it_mpi_thread_cpu();
    MPI_Waitall((int)m->n_pending, m->pending, MPI_STATUSES_IGNORE);
    m->n_pending = 0;
    if (m->size > 1) {
        /* the last rank's sums, copied to every rank */
        MPI_Bcast(grads, (int)n, MPI_FLOAT, m->size - 1, m->comm);
        MPI_Bcast(loss_sum, 1, MPI_FLOAT, m->size - 1, m->comm);
        if (m->rank == m->size - 1) /* what the broadcast delivers, whatever its tree */
            m->stats.bytes_sent += 4 * ((uint64_t)n + 1) * (uint64_t)(m->size - 1);
    }
    m->stats.wait_s += MPI_Wtime() - t0;
    m->stats.wait_cpu_s += it_mpi_thread_cpu() - c0;
    m->stats.steps++;
    m->seq = 0;
    m->n_seen = 0;
}

it_reducer *it_mpi_reducer_new(MPI_Comm comm, size_t block_bytes)
{
    mpi_reducer *m = calloc(1, sizeof *m);
    int ok = m != NULL;
    /* collective even when this rank is out of memory, so no rank waits */
    int all_ok;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm);
    if (!all_ok) {
        free(m);
        return NULL;
    }
    m->comm = comm;
    MPI_Comm_rank(comm, &m->rank);
    MPI_Comm_size(comm, &m->size);
    unsigned long long bb = block_bytes;
    MPI_Bcast(&bb, 1, MPI_UNSIGNED_LONG_LONG, 0, comm); /* rank 0's blocks for all */
    m->block_floats = bb / 4 ? (size_t)(bb / 4) : 1;
    m->rd = (it_reducer){mpi_rows, mpi_linear_params, mpi_embedding, mpi_loss, mpi_finish, m};
    return &m->rd;
}

void it_mpi_reducer_free(it_reducer *rd)
{
    if (!rd)
        return;
    mpi_reducer *m = (mpi_reducer *)rd;
    if (m->n_pending)
        MPI_Waitall((int)m->n_pending, m->pending, MPI_STATUSES_IGNORE);
    free(m->pending);
    free(m->tok);
    free(m->dy);
    free(m->seen);
    free(m->seen_kind);
    free(m);
}

void it_mpi_reducer_describe(it_reducer *rd, const it_tensor_info *tensors, size_t ntensors, const float *grads)
{
    mpi_reducer *m = (mpi_reducer *)rd;
    m->tensors = tensors;
    m->ntensors = ntensors;
    m->grads = grads;
    free(m->seen);
    free(m->seen_kind);
    m->cap_seen = ntensors + 1; /* every tensor and the loss */
    m->seen = calloc(m->cap_seen, sizeof *m->seen);
    m->seen_kind = calloc(m->cap_seen, sizeof *m->seen_kind);
    if (!m->seen || !m->seen_kind)
        die(m, "out of memory for the table of a step's sums");
}

const it_mpi_stats *it_mpi_reducer_stats(const it_reducer *rd)
{
    return &((const mpi_reducer *)rd)->stats;
}
