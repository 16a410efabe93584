/* reduce_mpi.h — the reducer of isotrain_reduce.h for MPI ranks (spec §15):
 * the batch's rows split across the ranks of a communicator in batch order,
 * every sum carried through the ranks as one chain, pipelined over blocks of
 * outputs. */
#ifndef IT_REDUCE_MPI_H
#define IT_REDUCE_MPI_H

#include <mpi.h>
#include <stdint.h>

#include "isotrain_reduce.h"

/* What one rank did, for --stats (make mpi-scaling). */
typedef struct {
    uint64_t bytes_sent;  /* partial sums passed on to the next rank; the last rank: the step's sums the
                           * broadcast delivers to the P-1 others */
    uint64_t messages;    /* sends of partials */
    double wait_s;        /* seconds blocked in MPI: a partial not yet there, or the step's result */
    double wait_cpu_s;    /* CPU seconds of this thread in those waits (MPI polls while it waits) */
    uint64_t steps;       /* finish() calls */
} it_mpi_stats;

/* A reducer over the ranks of comm (collective: every rank calls it).
 * block_bytes: the size of one block of a partial gradient passed from a
 * rank to the next (rank 0's value is used on every rank, so all cut the
 * same blocks). NULL: out of memory. */
it_reducer *it_mpi_reducer_new(MPI_Comm comm, size_t block_bytes);
void it_mpi_reducer_free(it_reducer *rd);
/* The tensors of the run and the gradient array its steps hand over: a sum
 * this rank cannot continue ends the whole job (MPI_Abort) with a message
 * naming the rank and the tensor. */
void it_mpi_reducer_describe(it_reducer *rd, const it_tensor_info *tensors, size_t ntensors, const float *grads);
const it_mpi_stats *it_mpi_reducer_stats(const it_reducer *rd);

/* CPU seconds of the calling thread so far (CLOCK_THREAD_CPUTIME_ID). */
double it_mpi_thread_cpu(void);

/* The rows [lo, hi) of n that rank r of p computes: contiguous, in rank
 * order, sizes differing by at most one (r < p <= n: none is empty). */
void it_mpi_rows_of(size_t n, int r, int p, size_t *lo, size_t *hi);

#endif
