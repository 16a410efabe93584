/* The thread pool behind the `threads` argument (pool.h). Threads only ever
 * compute different outputs (spec §4.1), so how many run, and which share
 * runs where, never changes a bit: that is why every fallback below simply
 * computes the remaining shares on the calling thread.
 *
 * The workers are started on first use and then wait for work; one parallel
 * call at a time owns them (the `owner` mutex, taken with trylock: a second
 * caller, or a share that calls back into the library, runs its shares
 * itself rather than wait). Each worker probes the floating-point
 * environment it inherited (spec §2.2: "SHOULD probe on each thread"); a
 * failed probe retires the pool for good. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>

#include "isotrain.h"
#include "pool.h"

void it_share(size_t n, size_t align, unsigned part, unsigned parts, size_t *lo, size_t *hi)
{
    size_t units = (n + align - 1) / align;
    size_t u0 = units * part / parts, u1 = units * (part + 1) / parts;
    *lo = u0 * align < n ? u0 * align : n;
    *hi = u1 * align < n ? u1 * align : n;
}

static void run_inline(unsigned parts, it_part_fn fn, void *ctx, unsigned from)
{
    for (unsigned p = from; p < parts; p++)
        fn(ctx, p, parts);
}

#if defined(_WIN32)
/* MinGW's C library has no POSIX threads (libwinpthread is a separate DLL,
 * and the reference links libc only): every share on the calling thread. */
void it_parallel(unsigned parts, it_part_fn fn, void *ctx)
{
    if (parts > IT_POOL_MAX)
        parts = IT_POOL_MAX;
    run_inline(parts, fn, ctx, 0);
}
#else
#include <pthread.h>
#include <stdatomic.h>

/* Before sleeping on a condition variable, a worker waiting for work and
 * the caller waiting for the last share spin this many times on the atomic
 * they wait for (about 20 us on a Zen 3): a gptchar step makes about 60
 * parallel calls a few hundred microseconds apart, and a wake-up from sleep
 * costs tens of microseconds. Short enough that an idle pool sleeps, not
 * burns a core (speed only). */
enum { SPIN = 300 };

static inline void relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __asm__ __volatile__("pause");
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

static pthread_mutex_t owner = PTHREAD_MUTEX_INITIALIZER; /* held for a whole parallel call */
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;    /* guards the job and the sleeps */
static pthread_cond_t go = PTHREAD_COND_INITIALIZER, done = PTHREAD_COND_INITIALIZER;
static unsigned workers;     /* started so far: ids 1 .. workers */
static atomic_uint round_;   /* bumped once per parallel call (under mu) */
static unsigned seen0[IT_POOL_MAX]; /* the round each worker was started in */
static it_part_fn job_fn;
static void *job_ctx;
static unsigned job_parts;
/* Shares are claimed, not assigned: (round << 32) | next share. Any thread
 * may run any share (each computes its own outputs), so a worker the OS has
 * not scheduled yet delays nothing: the caller takes its shares. The round
 * in the ticket keeps a late worker from claiming a later call's share. */
static _Atomic unsigned long long ticket;
static atomic_uint finished; /* shares of this round finished */
static int retired; /* a worker failed its FTZ/DAZ probe, or could not start */

/* Runs shares of round r until none is left; returns how many it ran. */
static unsigned claim_and_run(unsigned r, it_part_fn fn, void *ctx, unsigned parts)
{
    unsigned ran = 0;
    unsigned long long t = atomic_load(&ticket);
    for (;;) {
        if ((unsigned)(t >> 32) != r || (unsigned)(t & 0xffffffffu) >= parts)
            return ran;
        if (!atomic_compare_exchange_weak(&ticket, &t, t + 1))
            continue; /* t now holds the current ticket */
        fn(ctx, (unsigned)(t & 0xffffffffu), parts);
        ran++;
        if (atomic_fetch_add(&finished, 1) + 1 == parts) {
            pthread_mutex_lock(&mu); /* the caller may be about to sleep */
            pthread_cond_signal(&done);
            pthread_mutex_unlock(&mu);
        }
        t = atomic_load(&ticket);
    }
}

static void *worker(void *arg)
{
    unsigned id = (unsigned)(uintptr_t)arg;
    int ok = it_fpenv_probe(NULL) == 0;
    pthread_mutex_lock(&mu);
    unsigned seen = seen0[id];
    if (!ok)
        retired = 1;
    for (;;) {
        if (atomic_load(&round_) == seen) {
            pthread_mutex_unlock(&mu);
            for (int i = 0; i < SPIN && atomic_load(&round_) == seen; i++)
                relax();
            pthread_mutex_lock(&mu);
            while (atomic_load(&round_) == seen)
                pthread_cond_wait(&go, &mu);
        }
        seen = atomic_load(&round_);
        it_part_fn fn = job_fn;
        void *ctx = job_ctx;
        unsigned parts = job_parts;
        pthread_mutex_unlock(&mu);
        if (ok)
            claim_and_run(seen, fn, ctx, parts);
        pthread_mutex_lock(&mu);
    }
    return NULL;
}

/* Starts workers up to id want - 1 (called by the owner); returns how many
 * exist. */
static unsigned start_workers(unsigned want)
{
    pthread_mutex_lock(&mu);
    while (!retired && workers + 1 < want) {
        pthread_t t;
        pthread_attr_t attr;
        unsigned id = workers + 1;
        seen0[id] = atomic_load(&round_);
        int rc = pthread_attr_init(&attr);
        if (rc == 0) {
            pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
            rc = pthread_create(&t, &attr, worker, (void *)(uintptr_t)id);
            pthread_attr_destroy(&attr);
        }
        if (rc != 0)
            break; /* the shares without a worker run on the caller */
        workers = id;
    }
    unsigned n = workers;
    pthread_mutex_unlock(&mu);
    return n;
}

void it_parallel(unsigned parts, it_part_fn fn, void *ctx)
{
    if (parts > IT_POOL_MAX)
        parts = IT_POOL_MAX;
    if (parts <= 1 || pthread_mutex_trylock(&owner) != 0) {
        run_inline(parts, fn, ctx, 0);
        return;
    }
    unsigned have = start_workers(parts);
    pthread_mutex_lock(&mu);
    if (retired || have == 0) {
        pthread_mutex_unlock(&mu);
        pthread_mutex_unlock(&owner);
        run_inline(parts, fn, ctx, 0);
        return;
    }
    job_fn = fn;
    job_ctx = ctx;
    job_parts = parts;
    atomic_store(&finished, 0);
    unsigned r = atomic_load(&round_) + 1;
    atomic_store(&ticket, (unsigned long long)r << 32);
    atomic_store(&round_, r);
    pthread_cond_broadcast(&go);
    pthread_mutex_unlock(&mu);
    claim_and_run(r, fn, ctx, parts);
    for (int i = 0; i < SPIN && atomic_load(&finished) < parts; i++)
        relax();
    if (atomic_load(&finished) < parts) {
        pthread_mutex_lock(&mu);
        while (atomic_load(&finished) < parts)
            pthread_cond_wait(&done, &mu);
        pthread_mutex_unlock(&mu);
    }
    pthread_mutex_unlock(&owner);
}
#endif
