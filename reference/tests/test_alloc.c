/* No allocation inside a step (issue 18): every activation, gradient and
 * scratch buffer of every profile is allocated once per run (addmod113's
 * and gptchar's workspaces) or lives on the stack (mlp13k's chunks of
 * positions).
 *
 * Two measures. Allocation calls: this test binary counts every malloc,
 * calloc, realloc (its own definitions, forwarding to glibc's; under ASan
 * the sanitizer's malloc hooks), and the library's real run functions write
 * their trace into a stream that notes the count at each step's line:
 * steps 2-10 must not allocate at all. The negative control drives the same
 * steps through the entry point that allocates a workspace per call and
 * must see the count move. Page faults: the CLI's runs of 2 and 10 steps
 * must take the same minor faults within a few pages (main before this
 * change: about 21,000 more per addmod113 step). */
#define _GNU_SOURCE 1 /* fopencookie, wait4 */
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testutil.h"

/* ---- counting allocations ------------------------------------------------ */

static atomic_long allocations;

#if defined(__SANITIZE_ADDRESS__)
/* compiler-rt's sanitizer_common (GCC 12 ships the function in libasan but
 * not its header, sanitizer/allocator_interface.h) */
int __sanitizer_install_malloc_and_free_hooks(void (*malloc_hook)(const volatile void *, size_t),
                                              void (*free_hook)(const volatile void *));
static void on_malloc(const volatile void *p, size_t n)
{
    (void)p, (void)n;
    atomic_fetch_add(&allocations, 1);
}
static void on_free(const volatile void *p) { (void)p; }
static void start_counting(void) { __sanitizer_install_malloc_and_free_hooks(on_malloc, on_free); }
#else
/* glibc's allocator under its exported names; these definitions replace
 * malloc for the whole test process (glibc manual, "Replacing malloc") */
extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void __libc_free(void *);
void *malloc(size_t n)
{
    atomic_fetch_add(&allocations, 1);
    return __libc_malloc(n);
}
void *calloc(size_t k, size_t n)
{
    atomic_fetch_add(&allocations, 1);
    return __libc_calloc(k, n);
}
void *realloc(void *p, size_t n)
{
    atomic_fetch_add(&allocations, 1);
    return __libc_realloc(p, n);
}
void free(void *p) { __libc_free(p); }
static void start_counting(void) {}
#endif

/* A trace stream that notes the allocation count when each step's line is
 * written (after the step's computation, digest included). */
enum { MAX_STEP = 16 };
typedef struct {
    long at_step[MAX_STEP + 1];
    char line[512];
    size_t used;
} step_log;

static ssize_t log_write(void *cookie, const char *buf, size_t n)
{
    step_log *l = cookie;
    for (size_t i = 0; i < n; i++) {
        if (l->used + 1 < sizeof l->line)
            l->line[l->used++] = buf[i];
        if (buf[i] != '\n')
            continue;
        l->line[l->used] = '\0';
        unsigned s;
        if (sscanf(l->line, "step=%u", &s) == 1 && s <= MAX_STEP)
            l->at_step[s] = atomic_load(&allocations);
        l->used = 0;
    }
    return (ssize_t)n;
}

static FILE *log_stream(step_log *l)
{
    memset(l, 0, sizeof *l);
    cookie_io_functions_t io = {NULL, log_write, NULL, NULL};
    FILE *f = fopencookie(l, "w", io);
    cr_assert(f);
    setvbuf(f, NULL, _IONBF, 0); /* every line reaches log_write when it is written */
    return f;
}

Test(alloc, runs_of_every_profile_allocate_nothing_in_steps_2_to_10, .timeout = 300)
{
    start_counting();
    static it_mlp13k_state ms;
    static it_addmod113_state as;
    static it_gptchar_state gs;
    static const char *const name[3] = {"mlp13k", "addmod113", "gptchar"};
    char err[256];
    for (int profile = 0; profile < 3; profile++)
        for (unsigned threads = 1; threads <= (profile == 1 ? 2u : 1u); threads++) {
            step_log l;
            FILE *f = log_stream(&l);
            it_run_options o = {.steps = 10, .trace = f};
            it_status st;
            if (profile == 0) {
                it_mlp13k_recipe r = it_mlp13k_default_recipe();
                st = it_mlp13k_run(&r, &o, &ms, err, sizeof err);
            } else if (profile == 1) {
                it_addmod113_recipe r = {IT_AM_SEED, threads, 1};
                st = it_addmod113_run(&r, &o, &as, err, sizeof err);
            } else {
                it_gptchar_recipe r = {IT_GC_SEED};
                st = it_gptchar_run(&r, &o, &gs, err, sizeof err);
            }
            fclose(f);
            cr_assert_eq(st, IT_OK, "%s", err);
            long moved = l.at_step[10] - l.at_step[2];
            cr_log_info("%s, %u threads: %ld allocations from step 0 to 2, %ld in steps 3-10", name[profile], threads,
                        l.at_step[2] - l.at_step[0], moved);
            cr_assert_eq(moved, 0, "%s, %u threads: steps 3-10 allocated %ld times", name[profile], threads, moved);
        }
}

/* The negative control: the same measure on steps that allocate (the
 * entry point with a workspace per call, what every step did before) */
Test(alloc, an_allocating_step_is_seen, .timeout = 300)
{
    start_counting();
    static uint32_t perm[IT_AM_PAIRS];
    static float params[IT_AM_NPARAMS], grads[IT_AM_NPARAMS];
    it_addmod113_permutation(IT_AM_SEED, perm);
    it_addmod113_init(IT_AM_SEED, params);
    it_addmod113_work *w = it_addmod113_work_new(300);
    cr_assert(w);
    long counts[2];
    it_addmod113_loss_grad_work(w, params, perm, 300, grads, 2); /* the first step starts the thread pool */
    for (int allocating = 0; allocating < 2; allocating++) {
        long before = atomic_load(&allocations);
        for (int step = 0; step < 3; step++)
            if (allocating)
                it_addmod113_loss_grad(params, perm, 300, grads, 2);
            else
                it_addmod113_loss_grad_work(w, params, perm, 300, grads, 2);
        counts[allocating] = atomic_load(&allocations) - before;
    }
    it_addmod113_work_free(w);
    cr_log_info("3 steps: %ld allocations through a workspace, %ld allocating per call", counts[0], counts[1]);
    cr_assert_eq(counts[0], 0);
    cr_assert(counts[1] >= 3 * 10, "the count did not see a workspace allocated per step (%ld)", counts[1]);
}

/* The same negative control for gptchar: its step with a workspace per call
 * (it_gptchar_step) against the one with the run's (it_gptchar_step_work) */
Test(alloc, an_allocating_gptchar_step_is_seen, .timeout = 300)
{
    start_counting();
    static it_gptchar_state s;
    const it_gptchar_recipe r = {IT_GC_SEED};
    it_gptchar_start(&r, &s);
    it_gptchar_work *w = it_gptchar_work_new(IT_GC_SEQS);
    cr_assert(w);
    long counts[2];
    for (int allocating = 0; allocating < 2; allocating++) {
        long before = atomic_load(&allocations);
        for (int step = 0; step < 3; step++)
            cr_assert_eq(allocating ? it_gptchar_step(&r, &s) : it_gptchar_step_work(&r, &s, w), IT_OK);
        counts[allocating] = atomic_load(&allocations) - before;
    }
    it_gptchar_work_free(w);
    cr_log_info("gptchar, 3 steps: %ld allocations through a workspace, %ld allocating per call", counts[0],
                counts[1]);
    cr_assert_eq(counts[0], 0);
    cr_assert(counts[1] >= 3, "the count did not see a workspace allocated per step (%ld)", counts[1]);
}

/* One gptchar workspace through batches of 16, 3 and 16 sequences gives
 * the bits of a fresh workspace per call: a smaller batch uses the first
 * rows of every buffer, and nothing of the batch before reaches it. The 3-
 * and 16-sequence gradients differ, so a workspace that computed over its
 * whole capacity (or kept the last batch's rows) would fail. */
Test(alloc, a_reused_gptchar_workspace_gives_the_bits_of_a_fresh_one, .timeout = 300)
{
    static float p[IT_GC_NPARAMS], g[IT_GC_NPARAMS], want[IT_GC_NPARAMS];
    static uint32_t x[IT_GC_ROWS], y[IT_GC_ROWS];
    it_gptchar_init(IT_GC_SEED, p);
    it_gptchar_work *w = it_gptchar_work_new(IT_GC_SEQS);
    cr_assert(w);
    const size_t seqs[] = {IT_GC_SEQS, 3, IT_GC_SEQS};
    char digest[3][65], fresh[65];
    for (int i = 0; i < 3; i++) {
        it_gptchar_batch(IT_GC_SEED, (uint32_t)i + 1, x, y);
        float loss = -1.0f, want_loss = it_gptchar_loss_grad(p, x, y, seqs[i], want);
        cr_assert_eq(it_gptchar_loss_grad_work(w, p, x, y, seqs[i], g, NULL, NULL, &loss), IT_OK);
        it_params_digest(g, IT_GC_NPARAMS, digest[i]);
        it_params_digest(want, IT_GC_NPARAMS, fresh);
        cr_assert_eq(it_f32_bits(loss), it_f32_bits(want_loss), "batch %d (%zu sequences): loss %08x, fresh %08x", i,
                     seqs[i], (unsigned)it_f32_bits(loss), (unsigned)it_f32_bits(want_loss));
        cr_assert_str_eq(digest[i], fresh, "batch %d (%zu sequences): another gradient than a fresh workspace's", i,
                         seqs[i]);
    }
    it_gptchar_batch(IT_GC_SEED, 2, x, y);
    it_gptchar_loss_grad(p, x, y, IT_GC_SEQS, want);
    it_params_digest(want, IT_GC_NPARAMS, fresh);
    cr_assert_str_neq(digest[1], fresh, "3 and 16 sequences of step 2 give one gradient: the test cannot tell");
    float loss;
    cr_assert_eq(it_gptchar_loss_grad_work(w, p, x, y, IT_GC_SEQS + 1, g, NULL, NULL, &loss), IT_ERR_ARG);
    cr_assert_eq(it_gptchar_loss_grad_work(NULL, p, x, y, 1, g, NULL, NULL, &loss), IT_ERR_ARG);
    it_gptchar_work_free(w);
}

/* ---- page faults of the CLI ------------------------------------------------- */

/* 8 steps may touch this many new pages (a stack page, a stdio buffer) */
enum { SLACK_PAGES = 64 };

static long child_faults(const char *bin, const char *profile, const char *steps, const char *threads)
{
    pid_t pid = fork();
    cr_assert(pid >= 0);
    if (pid == 0) {
        int fd = open("/dev/null", O_WRONLY);
        if (fd >= 0)
            dup2(fd, 1), dup2(fd, 2);
        execl(bin, bin, "train", "--profile", profile, "--steps", steps, "--threads", threads, "--trace", "-",
              (char *)NULL);
        _exit(127);
    }
    int st;
    struct rusage ru;
    cr_assert_eq(wait4(pid, &st, 0, &ru), pid);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s train --profile %s --steps %s failed", bin, profile, steps);
    return ru.ru_minflt;
}

Test(alloc, cli_steps_after_the_first_fault_no_new_pages, .timeout = 600)
{
    const char *bin = test_env("IT_CLI");
    const char *profiles[] = {"mlp13k", "addmod113"}, *threads[] = {"1", "2"};
    for (int p = 0; p < 2; p++)
        for (int t = 0; t < 2; t++) {
            long two = child_faults(bin, profiles[p], "2", threads[t]);
            long ten = child_faults(bin, profiles[p], "10", threads[t]);
            cr_log_info("%s, %s threads: %ld minor faults for 2 steps, %ld for 10", profiles[p], threads[t], two,
                        ten);
            cr_assert(ten - two <= SLACK_PAGES,
                      "%s, %s threads: steps 3-10 faulted %ld new pages (2 steps: %ld, 10 steps: %ld): a step "
                      "allocates",
                      profiles[p], threads[t], ten - two, two, ten);
        }
}
