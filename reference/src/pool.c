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

unsigned it_parts(size_t units, unsigned threads)
{
    if (threads == 0)
        threads = 1;
    if (units == 0)
        return 1;
    return units < threads ? (unsigned)units : threads;
}

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
#include <sched.h>
#include <stdatomic.h>

/* Before sleeping on a condition variable, a worker waiting for work and
 * the caller waiting for the last share spin on the atomic they wait for,
 * SPIN_PAUSES pauses (about 40 us on a Zen 4, 19 ns a pause), yielding the
 * core every SPIN_YIELD of them so that on a loaded machine a runnable
 * thread goes first. A gptchar step makes about 60 parallel calls of
 * 20-200 us each; a wake-up from sleep costs tens of microseconds (more in
 * a VM). Measured on the 2-core Zen 4 VM under the other sessions' load
 * (nice -10, min..max of interleaved runs, 2 threads): gptchar 300 steps
 * 1.23-1.54 s with this spin, 1.44-1.64 s spinning 1 ms, 1.65-1.91 s with
 * the old 300 pauses and a locked hand-off; addmod113 20 steps 1.01-1.32 s,
 * 1.21-1.56 s spinning 1 ms (the long spin burns the core another process
 * wanted), 1.00-1.21 s old. Speed only, never bits. */
enum { SPIN_PAUSES = 2048, SPIN_YIELD = 1024 };

static inline void relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __asm__ __volatile__("pause");
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

static pthread_mutex_t owner = PTHREAD_MUTEX_INITIALIZER; /* held for a whole parallel call */
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;    /* guards the sleeps only */
static pthread_cond_t go = PTHREAD_COND_INITIALIZER, done = PTHREAD_COND_INITIALIZER;
static unsigned workers; /* started so far: ids 1 .. workers (the owner is 0) */
static unsigned long long seen0[IT_POOL_MAX]; /* the round each worker was started in */
/* The job of the current round: written by the owner before it publishes
 * the round, used by a thread only once it holds a share of that round
 * (the owner cannot start the next round before that share has finished,
 * so what it reads is that round's). */
static it_part_fn job_fn;
static void *job_ctx;
/* round << 7 | parts, one word so that a thread never pairs one call's
 * round with another's parts. Rounds count parallel calls (57 bits: they
 * never wrap). Workers wait for this word to change, spinning, then
 * asleep: no lock on the way to work. */
static atomic_ullong round_;
enum { PARTS_BITS = 7 };
_Static_assert(IT_POOL_MAX < 1 << PARTS_BITS, "parts fit beside the round");
static unsigned long long round_now(void) { return atomic_load(&round_) >> PARTS_BITS; }
/* Shares are claimed, not assigned: share i belongs to the round stored in
 * claimed[i] by the one compare-and-swap that took it. Thread k (the owner
 * is 0) claims share k first, then the others in turn: with the same split
 * in consecutive calls, each thread keeps computing the same rows, which
 * its core's cache holds (a pass over rows another core wrote last took
 * twice as long on a Zen 4 VM). Any thread may run any share, so a worker
 * the OS has not scheduled yet delays nothing: the others take its shares. */
static atomic_ullong claimed[IT_POOL_MAX];
static atomic_uint finished;      /* shares of this round finished */
static atomic_uint sleepers;      /* workers asleep (or going to sleep) on go */
static atomic_uint caller_sleeps; /* the owner asleep (or going to sleep) on done */
static int retired; /* a worker failed its FTZ/DAZ probe, or could not start (under mu) */

/* Spins until the round differs from r (want == 0) or finished reaches
 * want, for at most SPIN_PAUSES. Returns 1 when what it waited for came. */
static int spin_for(unsigned long long r, unsigned want)
{
    for (unsigned i = 1; i <= SPIN_PAUSES; i++) {
        if (want ? atomic_load(&finished) >= want : round_now() != r)
            return 1;
        if (i % SPIN_YIELD == 0)
            sched_yield();
        relax();
    }
    return 0;
}

/* Takes share i of round r: 1 when this thread holds it. A claim made
 * after the round moved on is void (the round is read again after it). */
static int claim(unsigned long long r, unsigned i)
{
    unsigned long long x = atomic_load(&claimed[i]);
    return x < r && atomic_compare_exchange_strong(&claimed[i], &x, r) && round_now() == r;
}

/* Thread me runs shares of round r until none is left to claim. */
static void claim_and_run(unsigned long long r, unsigned me)
{
    for (unsigned k = 0;; k++) {
        unsigned long long word = atomic_load(&round_);
        unsigned parts = (unsigned)(word & ((1u << PARTS_BITS) - 1));
        if (word >> PARTS_BITS != r || k >= parts)
            return;
        unsigned i = (me + k) % parts;
        if (!claim(r, i))
            continue;
        job_fn(job_ctx, i, parts);
        if (atomic_fetch_add(&finished, 1) + 1 == parts && atomic_load(&caller_sleeps)) {
            pthread_mutex_lock(&mu); /* the caller is asleep or about to be */
            pthread_cond_signal(&done);
            pthread_mutex_unlock(&mu);
        }
    }
}

static void *worker(void *arg)
{
    unsigned id = (unsigned)(uintptr_t)arg;
    int ok = it_fpenv_probe(NULL) == 0;
    pthread_mutex_lock(&mu);
    unsigned long long seen = seen0[id];
    if (!ok)
        retired = 1;
    pthread_mutex_unlock(&mu);
    for (;;) {
        if (!spin_for(seen, 0)) {
            pthread_mutex_lock(&mu);
            atomic_fetch_add(&sleepers, 1); /* then the owner's new round, or its check of sleepers, is seen */
            while (round_now() == seen)
                pthread_cond_wait(&go, &mu);
            atomic_fetch_sub(&sleepers, 1);
            pthread_mutex_unlock(&mu);
        }
        seen = round_now();
        if (ok)
            claim_and_run(seen, id);
    }
    return NULL;
}

/* Starts workers up to id want - 1 (called by the owner); returns how many
 * exist, or 0 when the pool is retired. */
static unsigned start_workers(unsigned want)
{
    pthread_mutex_lock(&mu);
    while (!retired && workers + 1 < want) {
        pthread_t t;
        pthread_attr_t attr;
        unsigned id = workers + 1;
        seen0[id] = round_now();
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
    unsigned n = retired ? 0 : workers;
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
    if (start_workers(parts) == 0) {
        pthread_mutex_unlock(&owner);
        run_inline(parts, fn, ctx, 0);
        return;
    }
    job_fn = fn;
    job_ctx = ctx;
    atomic_store(&finished, 0);
    unsigned long long r = round_now() + 1;
    atomic_store(&round_, r << PARTS_BITS | parts);
    if (atomic_load(&sleepers)) {
        pthread_mutex_lock(&mu);
        pthread_cond_broadcast(&go);
        pthread_mutex_unlock(&mu);
    }
    claim_and_run(r, 0);
    if (!spin_for(0, parts)) {
        pthread_mutex_lock(&mu);
        atomic_store(&caller_sleeps, 1); /* then the last share's finish, or its check, is seen */
        while (atomic_load(&finished) < parts)
            pthread_cond_wait(&done, &mu);
        atomic_store(&caller_sleeps, 0);
        pthread_mutex_unlock(&mu);
    }
    pthread_mutex_unlock(&owner);
}
#endif
