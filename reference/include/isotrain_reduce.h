/*
 * isotrain_reduce.h — where the order-dependent sums of a training step run
 * (spec §4.1, §4.3, §4.5, §15).
 *
 * In a step, forward and backward are independent per row (a position of
 * mlp13k, a pair of addmod113, a sequence of gptchar); what ties the rows together are SUMs over
 * them in batch order: every parameter-gradient element (dW, db), every
 * embedding scatter-add, and the loss. The profiles' step code (mlp13k.c,
 * addmod113.c, gptchar.c) computes the rows [lo, hi) a reducer gives this process and
 * hands each of those sums to the reducer, which continues it over these
 * rows from the partial the rows before them left (spec §4.1: a SUM may be
 * suspended and resumed from its stored partial; it is the same sequence of
 * additions):
 *
 *   - it_reducer_local (reduce_local.c): one process, rows [0, n), every
 *     call the direct call of isotrain.h's batched API. The reference.
 *   - a data-parallel trainer (reference/mpi/reduce_mpi.c): process r holds
 *     the r-th contiguous range of rows; a partial arrives from process
 *     r-1, is continued over r's rows and goes on to r+1, in blocks of
 *     outputs so that every process works at once; the last one has the
 *     batch's sums and gives them to all.
 *
 * Either way every sum is the spec's one sequence of additions, so the bits
 * cannot depend on how many processes there are (spec §15 says what a
 * reducer may and must not do: e.g. add partials that each started from +0,
 * as MPI_Allreduce(MPI_SUM) does, is not allowed).
 */
#ifndef ISOTRAIN_REDUCE_H
#define ISOTRAIN_REDUCE_H

#include "isotrain.h"

typedef struct it_reducer it_reducer;

struct it_reducer {
    /* The rows [*lo, *hi) of a batch of n rows whose terms this process
     * computes: one contiguous range, the ranges of all processes in batch
     * order covering 0..n-1. */
    void (*rows)(const it_reducer *rd, size_t n, size_t *lo, size_t *hi);
    /* it_rows_linear_backward_params (same arguments, the same rows of this
     * process): dW and db continued from the partial sums of every row
     * before this process's first row (zeros, i.e. +0, for the first). */
    int (*linear_params)(const it_reducer *rd, size_t rows, size_t in, size_t out, const float *dY, size_t lddy,
                         const float *X, size_t ldx, float *dW, float *db, unsigned threads);
    /* it_rows_embedding_backward, continued the same way. */
    int (*embedding)(const it_reducer *rd, size_t rows, size_t dim, size_t vocab, const uint32_t *tokens,
                     const float *dY, size_t lddy, float *dE, unsigned threads);
    /* The loss SUM (§4.3, §4.5): ((partial + terms[0]) + terms[1]) + ...,
     * one rounding each, where partial is the sum of the rows before these
     * (in this process: the value given). */
    float (*loss)(const it_reducer *rd, float partial, const float *terms, size_t n);
    /* Every sum of the step has been handed over: afterwards grads[0..n-1]
     * and *loss_sum hold the complete sums of the batch, in every process.
     * (A reducer that cannot complete a step ends the process: the step
     * has no partial result to return.) */
    void (*finish)(const it_reducer *rd, float *grads, size_t n, float *loss_sum);
    void *ctx; /* the reducer's own state */
};

/* One process: rows [0, n), the direct calls, finish does nothing. */
extern const it_reducer it_reducer_local;

/* spec §11.6 over the rows the reducer gives this process (xs, ys: the
 * whole batch of `batch` positions; the scale is 1/batch): the loss of the
 * batch, and its gradient in grads (IT_MLP13K_NPARAMS values), complete in
 * every process once the reducer's finish has run. With it_reducer_local it
 * is it_mlp13k_loss_grad's result, bit for bit. */
float it_mlp13k_loss_grad_reduced(const float *params, const unsigned char *xs, const unsigned char *ys, size_t batch,
                                  float *grads, const it_reducer *rd);
/* spec §13.5 likewise (pairs: the whole batch of n pairs; the workspace
 * must hold this process's rows in one piece when the reducer passes
 * partials between processes: it_addmod113_run_reduced sizes it so). */
float it_addmod113_loss_grad_reduced(it_addmod113_work *w, const float *params, const uint32_t *pairs, size_t n,
                                     float *grads, unsigned threads, const it_reducer *rd);
/* spec §14.6 likewise, over the sequences [lo, hi) the reducer gives this
 * process (x, y: the whole batch of nseq sequences; the scale is
 * 1/(nseq*T); the workspace must hold hi - lo sequences) on `threads`
 * threads; rd NULL: it_reducer_local, which is it_gptchar_loss_grad_work's
 * result bit for bit. Besides dW/db, the LayerNorm gains and biases go
 * through linear_params with in = 0 (a column sum: dW and db are the same
 * pointer, the gradient), and wte takes two sums in this order: its output
 * side (linear_params over every row of the batch), then its input side
 * (embedding) continuing the completed output-side sums (spec §5.20): a
 * reducer that passes partials between processes must hand the first one's
 * complete result to the process of row 0 before the second starts. */
it_status it_gptchar_loss_grad_reduced(it_gptchar_work *w, const float *params, const uint32_t *x, const uint32_t *y,
                                       size_t nseq, float *grads, unsigned threads, float *loss, const it_reducer *rd);

/* The runs of spec §11.8 and §13.8 with every step's sums handed to rd
 * (NULL: it_reducer_local); it_mlp13k_run and it_addmod113_run are these with
 * NULL. Every process of a data-parallel run calls it with the same recipe
 * and steps; the one that writes gives the trace and checkpoint directory in
 * o, the others NULL for both (the parameters are the same bits in all). */
it_status it_mlp13k_run_reduced(const it_mlp13k_recipe *r, const it_run_options *o, const it_reducer *rd,
                                it_mlp13k_state *s, char *err, size_t cap);
it_status it_addmod113_run_reduced(const it_addmod113_recipe *r, const it_run_options *o, const it_reducer *rd,
                                   it_addmod113_state *s, char *err, size_t cap);

#endif
