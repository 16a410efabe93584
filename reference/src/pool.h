/* Threads for independent outputs (spec §4.1, §13.5): the pool behind the
 * `threads` argument of isotrain.h's batched API. */
#ifndef ISOTRAIN_POOL_H
#define ISOTRAIN_POOL_H

#include <stddef.h>

/* One share of a parallel call: part p of parts computes its own outputs
 * and nothing else (it never writes what another part reads). */
typedef void (*it_part_fn)(void *ctx, unsigned part, unsigned parts);

/* Runs fn(ctx, p, parts) for every p < parts, part 0 on the calling thread,
 * the others on pool threads when the pool is free (started on first use);
 * otherwise all of them on the calling thread, one after another. Returns
 * when every part has finished. parts is capped at IT_POOL_MAX. */
enum { IT_POOL_MAX = 64 };
void it_parallel(unsigned parts, it_part_fn fn, void *ctx);

/* How many shares a job of `units` units of work gets on `threads`
 * threads: at most one per thread and one per unit, and never none, since
 * it_parallel(0, ...) runs nothing (a job smaller than one unit is still
 * one share: a small recipe's few rows on an MPI rank skipped its GELU when
 * it got none, reference/src/gptchar.c). threads 0 counts as 1. */
unsigned it_parts(size_t units, unsigned threads);

/* [lo, hi) of part p when n items are split into parts shares whose
 * boundaries are multiples of align (except the end). */
void it_share(size_t n, size_t align, unsigned part, unsigned parts, size_t *lo, size_t *hi);

#endif
