/* make bench: the reference's speed on mlp13k, steps per second, for every
 * kernel set this CPU runs (portable first), one core, plus ns per element
 * of exp, log and tanh over arrays. A benchmark, not a test: the one thing
 * it checks is that every set ends on the same parameter digest.
 *
 *   bench [RUNS [STEPS]]     median of RUNS runs (default 7) of STEPS steps (default 2000)
 */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "isotrain.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* CPU time of this thread: on a shared machine the wall clock also counts
 * the time spent waiting for a core, which is not the trainer's speed. */
static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

enum { NX = 1 << 16 };
static float xs[NX], ys[NX];

/* ns per element of f over NX inputs spread across [lo, hi], best of 20 */
static double per_element(void (*f)(const float *, float *, size_t), float lo, float hi)
{
    for (int i = 0; i < NX; i++)
        xs[i] = lo + (hi - lo) * ((float)i / (float)NX);
    double best = 1e30;
    for (int rep = 0; rep < 20; rep++) {
        double t0 = cpu_now();
        f(xs, ys, NX);
        double t = cpu_now() - t0;
        if (t < best)
            best = t;
    }
    return best * 1e9 / NX;
}

static double proc_cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* addmod113 (spec §13): seconds per full-batch step (loss, gradient and
 * AdamW over 3,831 pairs) for the portable set and the best one, on 1 and 2
 * threads; every configuration must end on the same parameter bytes. Wall
 * clock is what a user waits for; CPU time (all threads) shows how busy the
 * machine was. */
static int bench_addmod113(const char **sets, size_t nsets, int steps)
{
    static it_addmod113_state s;
    const char *pick[2] = {"portable", sets[nsets - 1]};
    char first[65] = "", dig[65];
    int same = 1;
    it_adamw_consts c = {it_f32_from_bits(0x3a83126f), it_f32_from_bits(0x3f666666), it_f32_from_bits(0x3f7ae148),
                         it_f32_from_bits(0x322bcc77), it_f32_from_bits(0x3f7fbe77), it_f32_from_bits(0x3dccccd0),
                         it_f32_from_bits(0x3ca3d700)};
    if (steps < 1)
        steps = 1;
    printf("addmod113, %d full-batch steps (3,831 pairs, ~2.2e9 multiply-adds each), seconds per step:\n", steps);
    for (int k = 0; k < 2; k++)
        for (unsigned th = 1; th <= 2; th++) {
            it_kernels_select(pick[k]);
            it_addmod113_permutation(IT_AM_SEED, s.perm);
            it_addmod113_init(IT_AM_SEED, s.params);
            memset(s.m, 0, sizeof s.m);
            memset(s.v, 0, sizeof s.v);
            it_adamw_clock clk = {1.0f, 1.0f, 0};
            double w0 = now(), c0 = proc_cpu_now();
            for (int t = 0; t < steps; t++) {
                float bc1, bc2;
                it_addmod113_loss_grad(s.params, s.perm, IT_AM_NTRAIN, s.grads, th);
                it_adamw_tick(&c, &clk, &bc1, &bc2);
                it_adamw_update(&c, bc1, bc2, s.params, s.grads, s.m, s.v, IT_AM_NPARAMS);
            }
            double wall = (now() - w0) / steps, cpu = (proc_cpu_now() - c0) / steps;
            it_params_digest(s.params, IT_AM_NPARAMS, dig);
            if (!first[0])
                strcpy(first, dig);
            same &= strcmp(first, dig) == 0;
            printf("  kernels=%-8s threads=%u  %.3f s/step wall clock, %.3f s/step CPU (all threads)  params %.16s...\n",
                   pick[k], th, wall, cpu, dig);
        }
    printf("  every configuration: %s\n", same ? "identical parameter bytes" : "DIFFERENT PARAMETER BYTES");
    return same;
}

int main(int argc, char **argv)
{
    int runs = argc > 1 ? atoi(argv[1]) : 7;
    long steps = argc > 2 ? atol(argv[2]) : 2000;
    if (runs < 1 || steps < 1) {
        fprintf(stderr, "usage: bench [RUNS>=1 [STEPS>=1]]\n");
        return 2;
    }
    static it_mlp13k_state s;
    it_mlp13k_recipe r = it_mlp13k_default_recipe();
    double *t = malloc(sizeof *t * (size_t)runs), *w = malloc(sizeof *w * (size_t)runs);
    const char *sets[16];
    size_t nsets = it_kernels_available(sets, 16);
    char first_digest[65] = "", digest[65];
    double portable_rate = 0.0;
    int same = 1;
    if (!t || !w)
        return 1;
    /* other processes on the machine change every figure: say how busy it was */
    char load[64] = "?";
    FILE *la = fopen("/proc/loadavg", "r");
    if (la) {
        if (!fgets(load, sizeof load, la))
            strcpy(load, "?");
        load[strcspn(load, "\n")] = '\0';
        fclose(la);
    }
    printf("mlp13k, one core, median of %d runs of %ld steps, by the thread's CPU time (load average at start: %s):\n",
           runs, steps, load);
    for (size_t k = 0; k < nsets && k < 16; k++) {
        it_kernels_select(sets[k]);
        for (int i = 0; i < runs; i++) {
            double t0 = cpu_now(), w0 = now();
            it_mlp13k_start(&r, &s);
            while (s.step < (uint32_t)steps)
                if (it_mlp13k_step(&r, &s) != IT_OK) {
                    fprintf(stderr, "bench: training failed at step %u\n", (unsigned)s.step);
                    return 1;
                }
            t[i] = cpu_now() - t0;
            w[i] = now() - w0;
        }
        qsort(t, (size_t)runs, sizeof *t, cmp_double);
        qsort(w, (size_t)runs, sizeof *w, cmp_double);
        double rate = (double)steps / t[runs / 2];
        if (k == 0)
            portable_rate = rate;
        it_params_digest(s.params, IT_MLP13K_NPARAMS, digest);
        if (k == 0)
            strcpy(first_digest, digest);
        same &= strcmp(digest, first_digest) == 0;
        printf("  kernels=%-8s %8.0f steps/s (best %.0f, worst %.0f; wall clock %.0f)  x%.1f portable  params %.16s...\n",
               sets[k], rate, (double)steps / t[0], (double)steps / t[runs - 1], (double)steps / w[runs / 2],
               rate / portable_rate, digest);
    }
    printf("  every set: %s\n", same ? "identical parameter bytes" : "DIFFERENT PARAMETER BYTES (a kernel set is wrong)");
    printf("ns per element over %d-element arrays (exp on [-20, 0], log on [1, 512], tanh on [-4, 4]):\n", NX);
    for (size_t k = 0; k < nsets && k < 16; k++) {
        it_kernels_select(sets[k]);
        printf("  kernels=%-8s exp %5.2f  log %5.2f  tanh %5.2f\n", sets[k], per_element(it_expf_array, -20.0f, 0.0f),
               per_element(it_logf_array, 1.0f, 512.0f), per_element(it_tanhf_array, -4.0f, 4.0f));
    }
    same &= bench_addmod113(sets, nsets, getenv("BENCH_AM_STEPS") ? atoi(getenv("BENCH_AM_STEPS")) : 3);
    free(t);
    free(w);
    return same ? 0 : 1;
}
