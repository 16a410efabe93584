/* core/beside.h: work beside the main thread runs once, on its own thread,
 * with every signal the runner handles blocked there, and leaves the main
 * thread's mask as it was (the IUT keeper's SIGCHLD and SIGINT/SIGTERM must
 * reach the thread that waits in poll()). */
#include <signal.h>
#include <string.h>

#include "core/beside.h"
#include "testutil.h"

typedef struct {
    pthread_t ran_on;
    int runs;
    sigset_t mask;
} probe;

static void *record(void *arg)
{
    probe *p = arg;
    p->ran_on = pthread_self();
    p->runs++;
    pthread_sigmask(SIG_BLOCK, NULL, &p->mask);
    return NULL;
}

static const int runner_signals[] = {SIGCHLD, SIGINT, SIGTERM, SIGHUP, SIGALRM, SIGPIPE, SIGUSR1};

Test(beside, runs_once_on_its_own_thread_with_signals_blocked)
{
    sigset_t before, after;
    pthread_sigmask(SIG_BLOCK, NULL, &before);
    cr_assert_eq(sigismember(&before, SIGCHLD), 0, "the test starts with SIGCHLD unblocked");
    probe p;
    memset(&p, 0, sizeof p);
    beside_job b;
    beside_start(&b, record, &p);
    cr_assert(b.started, "a thread could be made");
    beside_finish(&b);
    cr_assert_eq(p.runs, 1);
    cr_assert_eq(pthread_equal(p.ran_on, pthread_self()), 0, "fn ran on another thread");
    for (size_t i = 0; i < sizeof runner_signals / sizeof *runner_signals; i++)
        cr_assert_eq(sigismember(&p.mask, runner_signals[i]), 1, "signal %d is blocked on the helper thread",
                     runner_signals[i]);
    pthread_sigmask(SIG_BLOCK, NULL, &after);
    for (int s = 1; s < 32; s++)
        cr_assert_eq(sigismember(&after, s), sigismember(&before, s), "the main thread's mask for signal %d is as it was",
                     s);
}

Test(beside, finish_without_a_thread_runs_the_work_here)
{
    /* the path taken when pthread_create fails: the work is not lost */
    probe p;
    memset(&p, 0, sizeof p);
    beside_job b = {.fn = record, .arg = &p, .started = 0};
    beside_finish(&b);
    cr_assert_eq(p.runs, 1);
    cr_assert(pthread_equal(p.ran_on, pthread_self()), "fn ran on the caller's thread");
}
