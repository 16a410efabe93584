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
