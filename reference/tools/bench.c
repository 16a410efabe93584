/* make bench: the reference's speed on mlp13k, steps per second, plus the
 * per-call cost of the elementary functions it spends most time in. Runs
 * single-threaded, like the reference. */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "isotrain.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static volatile float sink;

/* ns per call over n inputs spread across [lo, hi] */
static double per_call(float (*f)(float), float lo, float hi, int n)
{
    float step = (hi - lo) / (float)n, acc = 0.0f;
    double t0 = now();
    for (int rep = 0; rep < 10; rep++)
        for (int i = 0; i < n; i++)
            acc += f(lo + step * (float)i);
    sink = acc;
    return (now() - t0) * 1e9 / (10.0 * n);
}

int main(int argc, char **argv)
{
    int runs = argc > 1 ? atoi(argv[1]) : 11;
    if (runs < 1) {
        fprintf(stderr, "usage: bench [RUNS>=1]\n");
        return 2;
    }
    static it_mlp13k_state s;
    it_mlp13k_recipe r = it_mlp13k_default_recipe();
    double *t = malloc(sizeof *t * (size_t)runs);
    if (!t)
        return 1;
    for (int k = 0; k < runs; k++) {
        double t0 = now();
        it_mlp13k_start(&r, &s);
        while (s.step < IT_MLP13K_STEPS)
            if (it_mlp13k_step(&r, &s) != IT_OK) {
                fprintf(stderr, "bench: training failed at step %u\n", (unsigned)s.step);
                return 1;
            }
        t[k] = now() - t0;
    }
    qsort(t, (size_t)runs, sizeof *t, cmp_double);
    double median = t[runs / 2];
    printf("mlp13k: %d runs of %d steps: median %.3f s/run = %.0f steps/s (best %.0f, worst %.0f)\n", runs,
           IT_MLP13K_STEPS, median, IT_MLP13K_STEPS / median, IT_MLP13K_STEPS / t[0],
           IT_MLP13K_STEPS / t[runs - 1]);
    printf("it_expf:  %.1f ns/call on [-20, 0]\n", per_call(it_expf, -20.0f, 0.0f, 1 << 20));
    printf("it_logf:  %.1f ns/call on [1, 512]\n", per_call(it_logf, 1.0f, 512.0f, 1 << 20));
    printf("it_tanhf: %.1f ns/call on [-4, 4]\n", per_call(it_tanhf, -4.0f, 4.0f, 1 << 20));
    free(t);
    return 0;
}
