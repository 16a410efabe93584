/* make bench (issue 18): the certified path at this machine's limit, in one
 * run. A benchmark, not a test: the one thing it checks is that every
 * configuration ends on the same parameter bytes.
 *
 *   1. this core's non-FMA peak, measured: independent chains of vector
 *      multiplies and of vector adds (128-bit, 256-bit, 512-bit where the CPU
 *      has them), never fused; then the widest on 2 threads at once, the
 *      ceiling of a 2-thread wall speed-up on this machine at this load;
 *   2. mlp13k per kernel set: the library's steps/s, and the CLI's with the
 *      trace and a checkpoint digest at every step (what the runner
 *      certifies), both without their first step: the CLI's figure is a
 *      run of 1 + N steps less a run of 1, and what a run pays once (process
 *      start, initialization, step 1's first touch of the workspace) is
 *      printed beside it for addmod113;
 *   3. addmod113 per kernel set: the library's seconds per full-batch step on
 *      1 thread, the best set on 2 threads (wall and CPU), and the CLI's with
 *      a digest at every step;
 *   4. gptchar (issue 30) per kernel set: the library's seconds per step of
 *      16 sequences on 1 thread, the best set on 2 threads (wall and CPU),
 *      and the CLI's with a digest at every step, on 1 and 2 threads (--threads);
 *      then a larger member of the GPT family (a recipe, spec §16) on the
 *      best set: the library on 1 and 2 threads, the CLI's --recipe;
 *   5. exp, log, tanh: ns per element per set.
 *
 * Figures are CPU time (on a shared machine the wall clock also counts the
 * wait for a core; the load average is printed), wall clock beside; % of
 * peak = FLOPs of the step's products / time / measured peak.
 *
 *   bench CLI [RUNS [MLP_STEPS]]   CLI: the isotrain binary for the CLI figures;
 *                                  medians of RUNS runs (default 5) of MLP_STEPS
 *                                  mlp13k steps (default 2000)
 * Environment: BENCH_AM_STEPS (addmod113 steps per run, default 8: the
 * CLI figure is a difference of two runs, and 3 steps left it within the
 * noise of a 1-step run),
 * BENCH_AM_RUNS (default 3), BENCH_GC_STEPS (gptchar steps per run, default 10),
 * BENCH_GC_RUNS (default 3), BENCH_ONLY=recipe (the peaks, then the recipe
 * section alone), BENCH_RECIPE (a GPT-family recipe, spec §16:
 * default spec/recipes/shakespeare.json, 4 blocks, d_model 128, context
 * 64), BENCH_RECIPE_STEPS (default 2), BENCH_RECIPE_RUNS (default 5). */
#define _DEFAULT_SOURCE 1 /* wait4 */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "isotrain.h"
#include "isotrain_profile.h"
#include "isotrain_gpt.h"

static double clock_of(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
static double now(void) { return clock_of(CLOCK_MONOTONIC); }
static double thread_cpu(void) { return clock_of(CLOCK_THREAD_CPUTIME_ID); }
static double proc_cpu(void) { return clock_of(CLOCK_PROCESS_CPUTIME_ID); }

/* CPU time the hypervisor gave to other guests (steal, /proc/stat's eighth
 * field of the "cpu" line, all CPUs), in seconds; -1 where there is none to
 * read. A 2-thread speed-up on a VM falls with it, whatever the code does. */
static double steal_seconds(void)
{
    FILE *f = fopen("/proc/stat", "r");
    unsigned long long v[8] = {0};
    int n = f ? fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5],
                       &v[6], &v[7])
              : 0;
    if (f)
        fclose(f);
    long hz = sysconf(_SC_CLK_TCK);
    return n == 8 && hz > 0 ? (double)v[7] / (double)hz : -1;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return v[n / 2];
}

/* ---- 1. the peak ------------------------------------------------------------
 * NCH multiply chains and NCH add chains, each operation depending only on
 * its own chain's previous one, so the core can keep every multiply and add
 * unit busy; a product is never added (no FMA to fuse). FLOPs = lanes per
 * operation. Best of reps. */

#define PEAK_FN(NAME, VB, NCH, ATTR)                                                                                 \
    ATTR static double NAME(long iters, int reps)                                                                     \
    {                                                                                                                \
        typedef float v __attribute__((vector_size(VB)));                                                            \
        v m[NCH], a[NCH], x, y, s;                                                                                   \
        for (int l = 0; l < (VB) / 4; l++)                                                                           \
            x[l] = 1.0000001f, y[l] = 0.9999999f, s[l] = 1e-7f;                                                      \
        for (int c = 0; c < (NCH); c++)                                                                              \
            for (int l = 0; l < (VB) / 4; l++)                                                                       \
                m[c][l] = 1.0f, a[c][l] = (float)c;                                                                  \
        double best = 1e30;                                                                                          \
        for (int rep = 0; rep < reps; rep++) {                                                                       \
            double t0 = thread_cpu();                                                                                \
            for (long i = 0; i < iters; i++) {                                                                       \
                _Pragma("GCC unroll 16") for (int c = 0; c < (NCH); c++)                                             \
                {                                                                                                    \
                    m[c] = m[c] * ((c & 1) ? y : x);                                                                 \
                    a[c] = a[c] + s;                                                                                 \
                }                                                                                                    \
            }                                                                                                        \
            double t = thread_cpu() - t0;                                                                            \
            if (t < best)                                                                                            \
                best = t;                                                                                            \
        }                                                                                                            \
        float sink = 0.0f;                                                                                           \
        for (int c = 0; c < (NCH); c++)                                                                              \
            sink = sink + m[c][0] + a[c][0];                                                                         \
        if (sink == 42.0f)                                                                                           \
            puts("");                                                                                                \
        return (double)iters * 2.0 * (NCH) * ((VB) / 4) / best / 1e9;                                                \
    }

PEAK_FN(peak128, 16, 6, )
#if defined(__x86_64__)
PEAK_FN(peak256, 32, 6, __attribute__((target("avx"))))
PEAK_FN(peak512, 64, 12, __attribute__((target("avx512f"))))
#endif

typedef double (*peak_fn)(long iters, int reps);

/* the widest chains this CPU runs, *fn set to them */
static double measure_peak(peak_fn *fn)
{
    long iters = 200000000; /* shorter runs read low here (clock ramp, accounting) */
    double p128 = peak128(iters, 5), best = p128;
    *fn = peak128;
    printf("  128-bit vectors: %.1f GFLOP/s", p128);
#if defined(__x86_64__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx")) {
        double p = peak256(iters, 5);
        printf(", 256-bit: %.1f GFLOP/s", p);
        if (p > best)
            best = p, *fn = peak256;
    }
    if (__builtin_cpu_supports("avx512f")) {
        double p = peak512(iters / 2, 5);
        printf(", 512-bit: %.1f GFLOP/s", p);
        if (p > best)
            best = p, *fn = peak512;
    }
#endif
    printf("\n  peak used below: %.1f GFLOP/s (the best of these)\n", best);
    fflush(stdout);
    return best;
}

/* ---- 1b. the peak of n cores at once -----------------------------------------
 * The best chains on n threads released together by a barrier: the wall
 * time from the release to the last thread's end, against one thread's run
 * of the same chains timed the same way. Two vCPUs that share one physical
 * core (SMT siblings, or a host that time-slices them) give far less than
 * n; this is the ceiling a thread count's wall speed-up is read against,
 * and on a shared machine it falls with the other processes' load. */
enum { PEAK_THREADS_MAX = 8 };
typedef struct {
    peak_fn fn;
    long iters;
    pthread_barrier_t *go;
} peak_job;

static void *peak_thread(void *arg)
{
    const peak_job *j = arg;
    pthread_barrier_wait(j->go);
    j->fn(j->iters, 1);
    return NULL;
}

/* wall seconds of n threads' chains run at once (best of 3); 0 when a
 * thread could not start */
static double peak_wall(peak_fn fn, long iters, unsigned n)
{
    double best = 1e30;
    for (int rep = 0; rep < 3; rep++) {
        pthread_t t[PEAK_THREADS_MAX];
        pthread_barrier_t go;
        peak_job j = {fn, iters, &go};
        unsigned started = 0;
        pthread_barrier_init(&go, NULL, n + 1);
        while (started < n && pthread_create(&t[started], NULL, peak_thread, &j) == 0)
            started++;
        if (started < n) {
            fprintf(stderr, "bench: could not start %u peak threads\n", n);
            exit(1); /* the barrier holds the started ones */
        }
        pthread_barrier_wait(&go);
        double t0 = now();
        for (unsigned i = 0; i < n; i++)
            pthread_join(t[i], NULL);
        double w = now() - t0;
        pthread_barrier_destroy(&go);
        best = w < best ? w : best;
    }
    return best;
}

/* the wall speed-up of n cores at once over one, on the chains fn */
static double measure_peak_together(peak_fn fn, double peak, unsigned n)
{
    n = n > PEAK_THREADS_MAX ? PEAK_THREADS_MAX : n;
    const long iters = 50000000;
    double one = peak_wall(fn, iters, 1), all = peak_wall(fn, iters, n);
    double x = n * one / all;
    printf("  %u threads at once (%ld-CPU machine): %.1f GFLOP/s together, x%.2f of one thread's (the ceiling of a "
           "%u-thread wall speed-up here and now)\n",
           n, sysconf(_SC_NPROCESSORS_ONLN), peak * x, x, n);
    fflush(stdout);
    return x;
}

/* ---- FLOPs of a step, from the spec's shapes ---------------------------------- */

/* mlp13k (spec §11.6): per position, each linear layer's forward, input
 * gradient and weight gradient are one multiply-add per weight */
static double mlp13k_flops(void)
{
    double macs = 3.0 * (IT_MLP13K_EMBED * IT_MLP13K_HIDDEN + IT_MLP13K_HIDDEN * IT_MLP13K_VOCAB);
    return 2.0 * macs * IT_MLP13K_BATCH;
}

/* addmod113 (spec §13.5): forward q (one position), k and v (three), W_O,
 * W_in, W_out, W_U at position 2, attention; backward two products per
 * forward one (input and weight gradients) and attention's backward */
static double addmod113_macs(void)
{
    const double D = IT_AM_D, F = IT_AM_MLP, NO = IT_AM_MOD, T = IT_AM_CTX, Hh = IT_AM_HEADS, DH = IT_AM_DHEAD;
    double fwd = D * D + 2 * T * D * D + D * D + D * F + F * D + D * NO;
    double att_f = 2 * Hh * T * DH, att_b = 4 * Hh * T * DH;
    return (fwd * 3 + att_f + att_b) * IT_AM_NTRAIN;
}

/* a GPT-family member (spec §14.6, §16) per row: q, k, v, o (D x D each),
 * fc and proj (D x F each) per block and the tied logits (D x V), forward
 * and two backward products each; attention per sequence and head: T(T+1)/2
 * scores and as many terms of z forward, four times that backward (dw, dq,
 * dk, dv). gptchar is the family at §14.1's sizes. */
static double gpt_flops(const it_gpt_shape *sh)
{
    const double D = sh->d_model, F = sh->mlp, V = sh->vocab, T = sh->context, DH = D / sh->heads;
    const double L = sh->blocks, B = sh->batch;
    double rows = 3.0 * (L * (4 * D * D + 2 * D * F) + D * V) * (B * T);
    double att = 6.0 * L * B * sh->heads * (T * (T + 1) / 2) * DH;
    return 2.0 * (rows + att);
}

/* ---- the CLI as a child process ---------------------------------------------------- */

typedef struct {
    double cpu, wall;
    int ok;
} child_time;

/* what a run trains: a profile of the table, or a recipe (spec §16, P7
 * 1.3.0 --recipe) */
typedef struct {
    const char *option, *value; /* "--profile" NAME or "--recipe" FILE */
} run_what;
static run_what profile_named(const char *name) { return (run_what){"--profile", name}; }

static child_time run_cli(const char *cli, const char *kernels, run_what what, long steps, unsigned threads,
                          const char *trace)
{
    child_time r = {0, 0, 0};
    char st[32], th[16];
    snprintf(st, sizeof st, "%ld", steps);
    snprintf(th, sizeof th, "%u", threads);
    double w0 = now();
    pid_t pid = fork();
    if (pid < 0)
        return r;
    if (pid == 0) {
        int fd = open("/dev/null", O_WRONLY);
        if (fd >= 0)
            dup2(fd, 1), dup2(fd, 2);
        setenv("ISOTRAIN_EVAL", "0", 1); /* the step, not §13.7's evaluation */
        execl(cli, cli, "--kernels", kernels, "train", what.option, what.value, "--steps", st, "--threads", th,
              "--trace", trace, (char *)NULL);
        _exit(127);
    }
    int status;
    struct rusage ru;
    if (wait4(pid, &status, 0, &ru) != pid)
        return r;
    r.wall = now() - w0;
    r.cpu = (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec + (double)ru.ru_stime.tv_sec +
            1e-6 * (double)ru.ru_stime.tv_usec;
    r.ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    return r;
}

/* the digest on the last line of a trace */
static void last_digest(const char *trace, char out[65])
{
    char line[512], *d;
    strcpy(out, "?");
    FILE *f = fopen(trace, "r");
    if (!f)
        return;
    while (fgets(line, sizeof line, f))
        if ((d = strstr(line, "digest=")) != NULL) {
            memcpy(out, d + 7, 64);
            out[64] = '\0';
        }
    fclose(f);
}

/* per step, with the start-up (a 0-step run: initialization, allocation,
 * the step-0 digest) subtracted; medians of runs */
static int cli_per_step(const char *cli, const char *set, run_what what, long steps, unsigned threads,
                        int runs, const char *trace, double *cpu, double *wall, double *first, char digest[65])
{
    double c[16], w[16], c0[16], w0[16];
    if (runs > 16)
        runs = 16;
    /* (a run of 1 + N steps - a run of 1 step) / N: the process start, the
     * initialization and step 1's one-time cost (the first touch of the
     * workspace, page faults) are left out, as the library figures leave out
     * their first step; *first gets what a run pays once, before its steps */
    for (int i = 0; i < runs; i++) {
        child_time z = run_cli(cli, set, what, 1, threads, trace);
        child_time t = run_cli(cli, set, what, 1 + steps, threads, trace);
        if (!z.ok || !t.ok)
            return -1;
        c0[i] = z.cpu, w0[i] = z.wall, c[i] = t.cpu, w[i] = t.wall;
    }
    *cpu = (median(c, runs) - median(c0, runs)) / (double)steps;
    *wall = (median(w, runs) - median(w0, runs)) / (double)steps;
    *first = median(c0, runs) - *cpu;
    last_digest(trace, digest); /* of the last run of 1 + N steps */
    return 0;
}

/* ---- exp/log/tanh ----------------------------------------------------------------- */

enum { NX = 1 << 16 };
static float xs[NX], ys[NX];

static double per_element(void (*f)(const float *, float *, size_t), float lo, float hi)
{
    for (int i = 0; i < NX; i++)
        xs[i] = lo + (hi - lo) * ((float)i / (float)NX);
    double best = 1e30;
    for (int rep = 0; rep < 20; rep++) {
        double t0 = thread_cpu();
        f(xs, ys, NX);
        double t = thread_cpu() - t0;
        if (t < best)
            best = t;
    }
    return best * 1e9 / NX;
}

/* ---- addmod113 in the library -------------------------------------------------------- */

static const it_adamw_consts *am_consts(void)
{
    static it_adamw_consts c;
    c = (it_adamw_consts){it_f32_from_bits(0x3a83126f), it_f32_from_bits(0x3f666666), it_f32_from_bits(0x3f7ae148),
                          it_f32_from_bits(0x322bcc77), it_f32_from_bits(0x3f7fbe77), it_f32_from_bits(0x3dccccd0),
                          it_f32_from_bits(0x3ca3d700)};
    return &c;
}

/* steps of loss, gradient and AdamW through one workspace; wall and CPU
 * (all threads) per step, the first step (page faults) not counted */
static void am_library(it_addmod113_work *w, unsigned threads, int steps, double *wall, double *cpu, char dig[65])
{
    static it_addmod113_state s;
    it_addmod113_permutation(IT_AM_SEED, s.perm);
    it_addmod113_init(IT_AM_SEED, s.params);
    memset(s.m, 0, sizeof s.m);
    memset(s.v, 0, sizeof s.v);
    it_adamw_clock clk = {1.0f, 1.0f, 0};
    double w0 = 0, c0 = 0;
    for (int t = 0; t <= steps; t++) {
        if (t == 1)
            w0 = now(), c0 = proc_cpu();
        float bc1, bc2;
        it_addmod113_loss_grad_work(w, s.params, s.perm, IT_AM_NTRAIN, s.grads, threads);
        it_adamw_tick(am_consts(), &clk, &bc1, &bc2);
        it_tensor_adamw_update(am_consts(), bc1, bc2, s.params, s.grads, s.m, s.v, IT_AM_NPARAMS, threads);
    }
    *wall = (now() - w0) / steps;
    *cpu = (proc_cpu() - c0) / steps;
    it_params_digest(s.params, IT_AM_NPARAMS, dig);
}

/* gptchar (a library_run): 1 + steps steps through one workspace
 * (it_gptchar_work) on `threads` threads */
static int gc_library(void *work, unsigned threads, int steps, double *wall, double *cpu, char dig[65])
{
    it_gptchar_work *w = work;
    static it_gptchar_state s;
    it_gptchar_recipe r = {IT_GC_SEED};
    it_gptchar_start(&r, &s);
    it_gptchar_work_threads(w, threads);
    double w0 = 0, c0 = 0;
    for (int t = 0; t <= steps; t++) {
        if (t == 1)
            w0 = now(), c0 = proc_cpu();
        if (it_gptchar_step_work(&r, &s, w) != IT_OK) {
            fprintf(stderr, "bench: gptchar failed at step %u\n", (unsigned)s.step + 1);
            return -1;
        }
    }
    *wall = (now() - w0) / steps;
    *cpu = (proc_cpu() - c0) / steps;
    it_params_digest(s.params, IT_GC_NPARAMS, dig);
    return 0;
}

static int env_int(const char *name, int fallback)
{
    const char *v = getenv(name);
    return v ? atoi(v) : fallback;
}

/* One library run of a model on `threads` threads: 1 + steps steps, wall
 * and CPU (all threads) per step without the first, the parameters' digest;
 * 0, or -1 when the model failed */
typedef int (*library_run)(void *model, unsigned threads, int steps, double *wall, double *cpu, char dig[65]);

/* A model on 1 thread and 2 threads, run i on 1 then run i on 2: a pair
 * sees the same moment of a shared host (its other guests, the
 * hypervisor's steal), so the speed-up is the median of the pairs' ratios,
 * not a ratio of two medians taken a minute apart. Prints a line per
 * thread count (gf: GFLOP of products a step) and the steal the runs saw;
 * *same cleared when a digest differs from first (the first run's when
 * first is ""); 0, or -1 */
static int bench_thread_pairs(library_run fn, void *model, const char *label, int steps, int runs, double gf,
                              double peak, double ceiling2, char first[65], int *same, double *wall2)
{
    double cw[2][16], cc[2][16], ratio[16];
    char dig[65];
    double steal0 = steal_seconds();
    for (int i = 0; i < runs; i++)
        for (unsigned th = 1; th <= 2; th++) {
            if (fn(model, th, steps, &cw[th - 1][i], &cc[th - 1][i], dig) != 0)
                return -1;
            if (!first[0])
                strcpy(first, dig);
            *same &= strcmp(first, dig) == 0;
        }
    double steal = steal0 < 0 ? -1 : steal_seconds() - steal0;
    for (int i = 0; i < runs; i++)
        ratio[i] = cw[0][i] / cw[1][i];
    double cpu1 = median(cc[0], runs);
    for (unsigned th = 1; th <= 2; th++) {
        double wt = median(cw[th - 1], runs), ct = median(cc[th - 1], runs);
        printf("  %s%u thread%s: library %.4f s/step CPU (all threads; %4.1f %% of one core's peak), wall %.4f", label,
               th, th > 1 ? "s" : " ", ct, 100.0 * gf / ct / (peak * 1e9), wt);
        if (th > 1)
            printf("; wall speed-up x%.2f (median of %d pairs' ratios; 2 cores' chains at once: x%.2f), CPU spent "
                   "x%.2f of 1 thread's",
                   median(ratio, runs), runs, ceiling2, ct / cpu1);
        printf("\n");
        if (th > 1 && wall2)
            *wall2 = wt;
    }
    if (steal >= 0)
        printf("  %sthe hypervisor's steal (CPU time given to other guests) during these runs: %.2f s\n", label, steal);
    return 0;
}

/* section 4: every set on 1 thread (library, CLI with digests), the best
 * set on 1 and 2 threads; *same cleared when any digest differs */
static int bench_gptchar(const char *cli, const char **sets, size_t nsets, double peak, double ceiling2,
                         const char *trace, int *same, double *lib1, double *cli1, double *lib2_wall)
{
    const int steps = env_int("BENCH_GC_STEPS", 10);
    int runs = env_int("BENCH_GC_RUNS", 3);
    if (runs > 16)
        runs = 16;
    const double gf = gpt_flops(&it_gpt_shape_gptchar);
    printf("gptchar (%.3f GFLOP of products per step of %d sequences x %d positions), median of %d runs of %d "
           "steps:\n",
           gf / 1e9, IT_GC_SEQS, IT_GC_CTX, runs, steps);
    it_gptchar_work *w = it_gptchar_work_new(IT_GC_SEQS);
    if (!w || steps < 1 || runs < 1)
        return -1;
    char first[65] = "", dig[65];
    *lib1 = 1e30, *cli1 = 1e30;
    for (size_t k = 0; k < nsets; k++) {
        it_kernels_select(sets[k]);
        double cw[16], cc[16], ccpu, cwall, cfirst;
        for (int i = 0; i < runs; i++)
            if (gc_library(w, 1, steps, &cw[i], &cc[i], dig) != 0)
                return -1;
        if (!first[0])
            strcpy(first, dig);
        *same &= strcmp(first, dig) == 0;
        double c1 = median(cc, runs), w1 = median(cw, runs);
        char cdig[65];
        if (cli_per_step(cli, sets[k], profile_named(it_profile_gptchar.name), steps, 1, runs, trace, &ccpu, &cwall, &cfirst, cdig) != 0)
            return -1;
        *same &= strcmp(first, cdig) == 0; /* both trained 1 + steps steps */
        *lib1 = c1 < *lib1 ? c1 : *lib1;
        *cli1 = ccpu < *cli1 ? ccpu : *cli1;
        printf("  kernels=%-8s 1 thread: library %.4f s/step (%4.1f %% of peak; wall %.4f)   CLI+digests %.4f "
               "s/step (%4.1f %% of peak; wall %.4f; once a run: %.3f s)\n",
               sets[k], c1, 100.0 * gf / c1 / (peak * 1e9), w1, ccpu, 100.0 * gf / ccpu / (peak * 1e9), cwall,
               cfirst);
    }
    const char *best = sets[nsets - 1];
    it_kernels_select(best);
    char label[32];
    snprintf(label, sizeof label, "kernels=%-8s ", best);
    if (bench_thread_pairs(gc_library, w, label, steps, runs, gf, peak, ceiling2, first, same, lib2_wall) != 0)
        return -1;
    /* the certified path on 2 threads (--threads): wall against 1 thread's */
    double c2cpu, c2wall, c2first, c1cpu, c1wall, c1first;
    char c2dig[65];
    if (cli_per_step(cli, best, profile_named(it_profile_gptchar.name), steps, 1, runs, trace, &c1cpu, &c1wall, &c1first, c2dig) != 0 ||
        cli_per_step(cli, best, profile_named(it_profile_gptchar.name), steps, 2, runs, trace, &c2cpu, &c2wall, &c2first, c2dig) != 0)
        return -1;
    *same &= strcmp(first, c2dig) == 0;
    printf("  kernels=%-8s 2 threads: CLI+digests %.4f s/step wall, %.4f s/step CPU (1 thread: %.4f wall, %.4f "
           "CPU); wall speed-up x%.2f\n",
           best, c2wall, c2cpu, c1wall, c1cpu, c1wall / c2wall);
    printf("  best 1 thread: library %.4f s/step (%.1f %% of peak), CLI+digests %.4f s/step (%.1f %% of peak)\n",
           *lib1, 100.0 * gf / *lib1 / (peak * 1e9), *cli1, 100.0 * gf / *cli1 / (peak * 1e9));
    it_gptchar_work_free(w);
    return 0;
}

/* A recipe's steps through the library's run of its row (the code the
 * CLI's --recipe runs, without the trace and the digests): 1 + steps
 * steps, wall and CPU (all threads) per step without the first */
static int recipe_library(void *model, unsigned threads, int steps, double *wall, double *cpu, char dig[65])
{
    const it_gpt_profile *g = model;
    const it_profile *p = &g->p;
    it_train_config cfg = it_train_config_default(p);
    cfg.threads = threads;
    cfg.eval = 0;
    it_train_state *s = it_train_state_new(p);
    if (!s)
        return -1;
    it_train_start(p, &cfg, s);
    it_train_run run = {p, &cfg, s, &it_reducer_local, NULL};
    if (p->work_new && !(run.work = p->work_new(&run))) {
        it_train_state_free(s);
        return -1;
    }
    double w0 = 0, c0 = 0;
    it_status st = IT_OK;
    for (int t = 0; t <= steps && st == IT_OK; t++) {
        if (t == 1)
            w0 = now(), c0 = proc_cpu();
        st = it_train_step(&run);
    }
    *wall = (now() - w0) / steps;
    *cpu = (proc_cpu() - c0) / steps;
    it_params_digest(s->params, p->nparams, dig);
    if (p->work_free)
        p->work_free(run.work);
    it_train_state_free(s);
    return st == IT_OK ? 0 : -1;
}

/* section 4b (issue 30): a larger member of the GPT family (spec §16), the
 * recipe BENCH_RECIPE (default the repository's 4-block, d_model 128,
 * context 64 example), on the best set: the library on 1 and 2 threads and
 * the CLI's --recipe with a digest every step on 1 thread; *same cleared
 * when any digest differs */
static int bench_recipe(const char *cli, const char *set, double peak, double ceiling2, const char *trace, int *same)
{
    const char *path = getenv("BENCH_RECIPE") ? getenv("BENCH_RECIPE") : "spec/recipes/shakespeare.json";
    const int steps = env_int("BENCH_RECIPE_STEPS", 2);
    int runs = env_int("BENCH_RECIPE_RUNS", 5);
    if (runs > 16)
        runs = 16;
    it_gpt_recipe r;
    it_gpt_profile g;
    char err[768];
    if (steps < 1 || runs < 1 || it_gpt_recipe_load(path, &r, err, sizeof err) != 0) {
        fprintf(stderr, "bench: recipe %s: %s\n", path, steps < 1 || runs < 1 ? "BENCH_RECIPE_STEPS/RUNS < 1" : err);
        return -1;
    }
    if (it_gpt_profile_make(&r, &g) != 0) {
        it_gpt_recipe_free(&r);
        return -1;
    }
    const it_gpt_shape *sh = &r.shape;
    const double gf = gpt_flops(sh);
    printf("GPT-family recipe %s (%u blocks, d_model %u, %u heads, MLP %u, context %u, batch %u, vocabulary %u; "
           "%.3f GFLOP of products per step), kernels=%s, median of %d runs of %d steps, 1 and 2 threads in turn:\n",
           path, sh->blocks, sh->d_model, sh->heads, sh->mlp, sh->context, sh->batch, sh->vocab, gf / 1e9, set, runs,
           steps);
    it_kernels_select(set);
    char first[65] = "";
    int rc = bench_thread_pairs(recipe_library, &g, "", steps, runs, gf, peak, ceiling2, first, same, NULL);
    double ccpu, cwall, cfirst;
    char cdig[65];
    if (rc == 0 && (rc = cli_per_step(cli, set, (run_what){"--recipe", path}, steps, 1, runs, trace, &ccpu, &cwall,
                                      &cfirst, cdig)) == 0) {
        *same &= strcmp(first, cdig) == 0; /* both trained 1 + steps steps */
        printf("  1 thread: CLI+digests %.4f s/step (%4.1f %% of peak; wall %.4f; once a run: %.3f s)\n", ccpu,
               100.0 * gf / ccpu / (peak * 1e9), cwall, cfirst);
    }
    it_gpt_profile_free(&g);
    it_gpt_recipe_free(&r);
    return rc;
}

/* section 2: every set (library, CLI with digests); *same cleared when any
 * digest differs; the best rates in *lib_best, *cli_best */
static int bench_mlp13k(const char *cli, const char **sets, size_t nsets, double peak, const char *trace, int runs,
                        long steps, int *same, double *lib_best, double *cli_best)
{
    const char *name = it_profile_mlp13k.name;
    char first[65] = "", dig[65];
    const double mf = mlp13k_flops();
    printf("%s (%.2f MFLOP of products per step), median of %d runs of %ld steps:\n", name, mf / 1e6, runs, steps);
    static it_mlp13k_state s;
    it_mlp13k_recipe r = it_mlp13k_default_recipe();
    double *t = malloc(sizeof *t * (size_t)runs), *tw = malloc(sizeof *tw * (size_t)runs);
    double portable_rate = 0;
    int rc = -1;
    *lib_best = *cli_best = 0;
    for (size_t k = 0; t && tw && k < nsets; k++) {
        it_kernels_select(sets[k]);
        for (int i = 0; i < runs; i++) {
            double c0 = thread_cpu(), w0 = now();
            it_mlp13k_start(&r, &s);
            while (s.step < (uint32_t)steps)
                if (it_mlp13k_step(&r, &s) != IT_OK) {
                    fprintf(stderr, "bench: training failed at step %u\n", (unsigned)s.step);
                    goto out;
                }
            t[i] = thread_cpu() - c0;
            tw[i] = now() - w0;
        }
        double rate = (double)steps / median(t, runs), wrate = (double)steps / median(tw, runs);
        if (k == 0)
            portable_rate = rate;
        it_params_digest(s.params, IT_MLP13K_NPARAMS, dig);
        if (!first[0])
            strcpy(first, dig);
        *same &= strcmp(first, dig) == 0;
        *lib_best = rate > *lib_best ? rate : *lib_best;
        double ccpu, cwall, cfirst;
        char cdig[65];
        if (cli_per_step(cli, sets[k], profile_named(name), steps, 1, runs, trace, &ccpu, &cwall, &cfirst, cdig) != 0) {
            fprintf(stderr, "bench: %s --kernels %s train --profile %s failed\n", cli, sets[k], name);
            goto out;
        }
        *cli_best = 1.0 / ccpu > *cli_best ? 1.0 / ccpu : *cli_best;
        printf("  kernels=%-8s library %7.0f steps/s (%4.1f %% of peak; wall %.0f; x%.1f portable)   "
               "CLI+digests %7.0f steps/s (%4.1f %% of peak; wall %.0f; sha256 %s)\n",
               sets[k], rate, 100.0 * mf * rate / (peak * 1e9), wrate, rate / portable_rate, 1.0 / ccpu,
               100.0 * mf / ccpu / (peak * 1e9), 1.0 / cwall, it_sha256_name());
    }
    it_mlp13k_start(&r, &s); /* the CLI's last digest: its run of 1 + `steps` steps, the library's too */
    while (s.step < (uint32_t)steps + 1)
        it_mlp13k_step(&r, &s);
    it_params_digest(s.params, IT_MLP13K_NPARAMS, dig);
    char cdig[65];
    last_digest(trace, cdig);
    *same &= strcmp(cdig, dig) == 0;
    printf("  best: library %.0f steps/s, CLI with trace + digest every step %.0f steps/s\n", *lib_best, *cli_best);
    rc = t && tw ? 0 : -1;
out:
    free(t);
    free(tw);
    return rc;
}

/* section 3: every set on 1 thread (library, CLI with digests), the best
 * set on 1, 2 (up to 4) threads; *same cleared when any digest differs */
static int bench_addmod113(const char *cli, const char **sets, size_t nsets, double peak, const char *trace,
                           int am_runs, int am_steps, int *same, double *lib1, double *cli1)
{
    const char *name = it_profile_addmod113.name;
    const double am = addmod113_macs();
    printf("%s (%.3e multiply-adds = %.2f GFLOP of products per full-batch step of 3,831 pairs), "
           "median of %d runs of %d steps:\n",
           name, am, 2 * am / 1e9, am_runs, am_steps);
    it_addmod113_work *w = it_addmod113_work_new(IT_AM_NTRAIN);
    if (!w)
        return -1;
    char first_am[65] = "";
    double best1 = 1e30, bestcli = 1e30;
    char dig[65];
    const char *best_set = sets[nsets - 1];
    for (size_t k = 0; k < nsets; k++) {
        it_kernels_select(sets[k]);
        double cw[16], cc[16];
        int n = am_runs > 16 ? 16 : am_runs;
        for (int i = 0; i < n; i++)
            am_library(w, 1, am_steps, &cw[i], &cc[i], dig);
        if (!first_am[0])
            strcpy(first_am, dig);
        *same &= strcmp(first_am, dig) == 0;
        double c1 = median(cc, n), w1 = median(cw, n);
        best1 = c1 < best1 ? c1 : best1;
        double ccpu, cwall, cfirst;
        char cdig[65];
        if (cli_per_step(cli, sets[k], profile_named(name), am_steps, 1, am_runs, trace, &ccpu, &cwall, &cfirst, cdig) != 0) {
            fprintf(stderr, "bench: %s --kernels %s train --profile %s failed\n", cli, sets[k], name);
            it_addmod113_work_free(w);
            return -1;
        }
        *same &= strcmp(first_am, cdig) == 0; /* am_library's warm-up step trains too: 1 + N steps each */
        bestcli = ccpu < bestcli ? ccpu : bestcli;
        printf("  kernels=%-8s 1 thread: library %.3f s/step (%4.1f %% of peak; wall %.3f)   CLI+digests %.3f s/step "
               "(%4.1f %% of peak; wall %.3f; once a run: %.3f s)\n",
               sets[k], c1, 100.0 * 2 * am / c1 / (peak * 1e9), w1, ccpu, 100.0 * 2 * am / ccpu / (peak * 1e9),
               cwall, cfirst);
    }
    /* threads: the best set on 1, 2 (and the CPU count's) threads */
    it_kernels_select(best_set);
    unsigned ncpu = (unsigned)sysconf(_SC_NPROCESSORS_ONLN);
    double wall1 = 0, cpu1 = 0;
    for (unsigned th = 1; th <= 2 || th <= ncpu; th++) {
        double cw[16], cc[16];
        int n = am_runs > 16 ? 16 : am_runs;
        for (int i = 0; i < n; i++)
            am_library(w, th, am_steps, &cw[i], &cc[i], dig);
        *same &= strcmp(first_am, dig) == 0;
        double wt = median(cw, n), ct = median(cc, n);
        if (th == 1)
            wall1 = wt, cpu1 = ct;
        printf("  kernels=%-8s %u thread%s: library %.3f s/step wall, %.3f s/step CPU (all threads)%s", best_set, th,
               th > 1 ? "s" : " ", wt, ct, th == 1 ? "\n" : "");
        if (th > 1)
            printf("; wall speed-up x%.2f, CPU spent x%.2f of 1 thread's\n", wall1 / wt, ct / cpu1);
        if (th >= 4)
            break;
    }
    {
        double ccpu, cwall, cfirst;
        char cdig[65];
        if (cli_per_step(cli, best_set, profile_named(name), am_steps, 2, am_runs, trace, &ccpu, &cwall, &cfirst, cdig) != 0) {
            fprintf(stderr, "bench: %s --kernels %s train --profile %s --threads 2 failed\n", cli, best_set, name);
            it_addmod113_work_free(w);
            return -1;
        }
        *same &= strcmp(first_am, cdig) == 0;
        printf("  kernels=%-8s 2 threads: CLI+digests %.3f s/step wall, %.3f s/step CPU\n", best_set, cwall, ccpu);
    }
    it_addmod113_work_free(w);
    printf("  best 1 thread: library %.3f s/step, CLI+digests %.3f s/step (%.1f %% of peak)\n", best1, bestcli,
           100.0 * 2 * am / bestcli / (peak * 1e9));
    *lib1 = best1;
    *cli1 = bestcli;
    return 0;

}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bench ISOTRAIN_CLI [RUNS>=1 [MLP_STEPS>=1]]\n");
        return 2;
    }
    const char *cli = argv[1];
    int runs = argc > 2 ? atoi(argv[2]) : 5;
    long steps = argc > 3 ? atol(argv[3]) : 2000;
    int am_steps = getenv("BENCH_AM_STEPS") ? atoi(getenv("BENCH_AM_STEPS")) : 8;
    int am_runs = getenv("BENCH_AM_RUNS") ? atoi(getenv("BENCH_AM_RUNS")) : 3;
    if (runs < 1 || steps < 1 || am_steps < 1 || am_runs < 1 || access(cli, X_OK) != 0) {
        fprintf(stderr, "usage: bench ISOTRAIN_CLI [RUNS>=1 [MLP_STEPS>=1]] (and an executable CLI)\n");
        return 2;
    }
    char load[64] = "?", model[256], trace[] = "/tmp/isotrain-bench-XXXXXX";
    FILE *la = fopen("/proc/loadavg", "r");
    if (la) {
        if (!fgets(load, sizeof load, la))
            strcpy(load, "?");
        load[strcspn(load, "\n")] = '\0';
        fclose(la);
    }
    int tfd = mkstemp(trace);
    if (tfd < 0)
        return 1;
    close(tfd);
    it_host_cpu_model(model, sizeof model);
    const char *sets[16];
    size_t nsets = it_kernels_available(sets, 16);
    if (nsets > 16)
        nsets = 16;
    printf("isotrain bench: %s, %ld logical CPUs, load average at start %s; CPU time unless marked wall\n", model,
           sysconf(_SC_NPROCESSORS_ONLN), load);
    printf("non-FMA peak of one core, measured (independent vector multiplies and adds):\n");
    peak_fn chains;
    const double peak = measure_peak(&chains);
    const double ceiling2 = measure_peak_together(chains, peak, 2);
    int same = 1;
    const char *only = getenv("BENCH_ONLY");
    if (only && strcmp(only, "recipe") == 0) { /* the one section, for A/B runs of the threads' split */
        int rc = bench_recipe(cli, sets[nsets - 1], peak, ceiling2, trace, &same);
        unlink(trace);
        return rc == 0 && same ? 0 : 1;
    }

    /* ---- 2. mlp13k ---- */
    double lib_best, cli_best;
    if (bench_mlp13k(cli, sets, nsets, peak, trace, runs, steps, &same, &lib_best, &cli_best) != 0)
        return 1;

    /* ---- 3. addmod113 ---- */
    double best1, bestcli;
    if (bench_addmod113(cli, sets, nsets, peak, trace, am_runs, am_steps, &same, &best1, &bestcli) != 0)
        return 1;

    /* ---- 4. gptchar ---- */
    double gc_lib = 0, gc_cli = 0, gc_lib2 = 0;
    if (bench_gptchar(cli, sets, nsets, peak, ceiling2, trace, &same, &gc_lib, &gc_cli, &gc_lib2) != 0) {
        fprintf(stderr, "bench: gptchar failed (library or %s --kernels SET train --profile gptchar)\n", cli);
        return 1;
    }

    const char *best = sets[nsets - 1];
    if (bench_recipe(cli, best, peak, ceiling2, trace, &same) != 0) {
        fprintf(stderr, "bench: the GPT-family recipe failed (library or %s --kernels %s train --recipe FILE)\n", cli,
                best);
        return 1;
    }

    /* ---- 5. elementary functions ---- */
    printf("ns per element over %d-element arrays (exp on [-20, 0], log on [1, 512], tanh on [-4, 4], sqrt on [0, "
           "1e6]):\n",
           NX);
    for (size_t k = 0; k < nsets; k++) {
        it_kernels_select(sets[k]);
        printf("  kernels=%-8s exp %5.2f  log %5.2f  tanh %5.2f  sqrt %6.2f\n", sets[k],
               per_element(it_expf_array, -20.0f, 0.0f), per_element(it_logf_array, 1.0f, 512.0f),
               per_element(it_tanhf_array, -4.0f, 4.0f), per_element(it_sqrtf_array, 0.0f, 1e6f));
    }
    printf("every configuration (library and CLI, every set and thread count): %s\n",
           same ? "identical parameter bytes" : "DIFFERENT PARAMETER BYTES (a kernel set is wrong)");
    /* for bench_torch.py: every row's name and spec clause (its models are
     * bound to the clause), then the figures under the rows' names */
    printf("bench-profiles");
    for (size_t i = 0; i < it_n_profiles; i++)
        printf(" %s:%s", it_profiles[i]->name, it_profiles[i]->clause);
    const char *mn = it_profile_mlp13k.name, *an = it_profile_addmod113.name, *gn = it_profile_gptchar.name;
    printf("\nbench-summary %s_lib=%.1f %s_cli=%.1f %s_lib=%.5f %s_cli=%.5f peak=%.2f %s_lib=%.5f %s_cli=%.5f "
           "%s_lib2_wall=%.5f\n",
           mn, lib_best, mn, cli_best, an, best1, an, bestcli, peak, gn, gc_lib, gn, gc_cli, gn, gc_lib2);
    unlink(trace);
    return same ? 0 : 1;
}
