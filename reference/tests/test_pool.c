/* The thread pool behind the `threads` argument (pool.c; spec §4.1: threads
 * compute different outputs only). Its bits rest on one property: every
 * share of every parallel call runs exactly once, with the call's own
 * parts, before it_parallel returns. Checked here over many calls in a row
 * (late workers must not run a later call's share), every count of parts
 * up to the cap, calls with gaps long enough for the workers to fall
 * asleep, calls from two threads at once (one gets the pool, the other
 * runs inline) and a call from inside a share (runs inline). */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pool.h"
#include "testutil.h"

typedef struct {
    unsigned parts;
    atomic_uint runs[IT_POOL_MAX];
    atomic_uint wrong_parts;
    int nest; /* a share calls it_parallel itself */
} tally;

static void count_share(void *ctx, unsigned part, unsigned parts)
{
    tally *t = ctx;
    if (parts != t->parts || part >= parts)
        atomic_fetch_add(&t->wrong_parts, 1);
    else
        atomic_fetch_add(&t->runs[part], 1);
    if (t->nest && part == 0) {
        tally inner;
        memset(&inner, 0, sizeof inner);
        inner.parts = 3;
        it_parallel(3, count_share, &inner);
        for (unsigned p = 0; p < 3; p++)
            if (atomic_load(&inner.runs[p]) != 1)
                atomic_fetch_add(&t->wrong_parts, 1);
    }
}

/* one call of parts shares; 0 when each ran once with the call's parts */
static int one_call(unsigned parts, int nest)
{
    tally t;
    memset(&t, 0, sizeof t);
    t.parts = parts > IT_POOL_MAX ? IT_POOL_MAX : parts;
    t.nest = nest;
    it_parallel(parts, count_share, &t);
    if (atomic_load(&t.wrong_parts))
        return 1;
    for (unsigned p = 0; p < t.parts; p++)
        if (atomic_load(&t.runs[p]) != 1)
            return 1;
    return 0;
}

Test(pool, every_share_runs_once_over_many_calls_and_counts)
{
    int bad = 0;
    for (int rep = 0; rep < 20000 && !bad; rep++)
        bad = one_call(1 + (unsigned)rep % 5, 0);
    cr_assert_eq(bad, 0, "a share ran twice, never, or with another call's parts");
    for (unsigned parts = 0; parts <= IT_POOL_MAX + 2; parts++)
        cr_assert_eq(one_call(parts, 0), 0, "parts=%u", parts);
}

Test(pool, shares_after_the_workers_fell_asleep)
{
    struct timespec gap = {0, 3000000}; /* past the pool's spin: its workers sleep */
    for (int rep = 0; rep < 30; rep++) {
        cr_assert_eq(one_call(2 + (unsigned)rep % 3, 0), 0, "call %d after a sleep", rep);
        nanosleep(&gap, NULL);
    }
}

Test(pool, a_share_that_calls_the_pool_runs_its_call_inline)
{
    for (int rep = 0; rep < 200; rep++)
        cr_assert_eq(one_call(4, 1), 0, "call %d", rep);
}

static void *caller(void *arg)
{
    int *bad = arg;
    for (int rep = 0; rep < 5000 && !*bad; rep++)
        *bad = one_call(2 + (unsigned)rep % 3, 0);
    return NULL;
}

Test(pool, two_callers_at_once)
{
    pthread_t t[2];
    int bad[2] = {0, 0};
    for (int i = 0; i < 2; i++)
        cr_assert_eq(pthread_create(&t[i], NULL, caller, &bad[i]), 0);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    cr_assert_eq(bad[0] + bad[1], 0, "a share of a concurrent call ran twice or never");
}

/* it_parts (pool.h), the rule gptchar.c's row jobs take their shares by: a
 * job of n positions in units of `unit`, on T threads, gets it_parts(n /
 * unit, T) shares of it_share(n, align, ...), and every position must run
 * exactly once, every share holding at least one. The MPI trainer's tiny
 * recipe on 2-4 ranks found the old rule (min(units, T): no share for a
 * job under one unit, so it_parallel ran nothing and GELU was skipped); it
 * is kept here as the negative control, failing the same check. */
typedef unsigned (*parts_rule)(size_t units, unsigned threads);

static unsigned parts_before_the_fix(size_t units, unsigned threads)
{
    return units < threads ? (unsigned)units : threads;
}

typedef struct {
    size_t n, align;
    unsigned char *hits;
    atomic_uint empty; /* shares that held no position */
} cover;

static void cover_share(void *ctx, unsigned part, unsigned parts)
{
    cover *c = ctx;
    size_t lo, hi;
    it_share(c->n, c->align, part, parts, &lo, &hi);
    if (hi <= lo)
        atomic_fetch_add(&c->empty, 1);
    for (size_t i = lo; i < hi; i++)
        c->hits[i]++; /* shares are disjoint: no two threads write one position */
}

/* 1 when rule's split of n positions over T threads, run by the pool,
 * gives every position once and no share none */
static int split_is_whole(parts_rule rule, size_t n, size_t unit, size_t align, unsigned threads)
{
    const unsigned parts = rule(n / unit, threads);
    cover c = {.n = n, .align = align, .hits = calloc(n, 1)};
    cr_assert_not_null(c.hits);
    atomic_init(&c.empty, 0);
    it_parallel(parts, cover_share, &c);
    int whole = parts >= 1 && parts <= threads && atomic_load(&c.empty) == 0;
    for (size_t i = 0; i < n && whole; i++)
        whole = c.hits[i] == 1;
    free(c.hits);
    return whole;
}

Test(pool, every_share_of_a_row_job_holds_a_position_and_none_is_lost)
{
    /* gptchar.c's three kinds: LayerNorm rows (unit 8, align 8), GELU
     * elements (unit 4096, align 64), attention sequences (1, 1) */
    const size_t kinds[3][2] = {{8, 8}, {4096, 64}, {1, 1}};
    const size_t sizes[] = {1, 2, 7, 8, 9, 32, 63, 64, 65, 1152, 2304, 4095, 4096, 4097, 12293, 36864};
    for (unsigned t = 1; t <= 4; t++)
        for (size_t k = 0; k < 3; k++)
            for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
                cr_assert(split_is_whole(it_parts, sizes[i], kinds[k][0], kinds[k][1], t),
                          "%zu positions in units of %zu on %u threads: a position lost, run twice, or a share "
                          "empty", sizes[i], kinds[k][0], t);
    cr_assert_eq(it_parts(5, 0), 1, "0 threads counts as 1");
    /* the control: tiny.json's GELU on one of 2 ranks (2 sequences of 16
     * rows, F = 72: 2,304 elements, under one unit) under the old rule */
    for (unsigned t = 1; t <= 4; t++)
        cr_assert(!split_is_whole(parts_before_the_fix, 2304, 4096, 64, t),
                  "negative control: the old rule passed on %u threads", t);
}
