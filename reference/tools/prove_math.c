/*
 * prove_math - exhaustive proof that the isotrain reference's exp and log
 * are correctly rounded (binary32, round to nearest even) on all 2^32
 * inputs, with MPFR as the oracle, for every kernel set this CPU runs
 * (reference/src/kernels: the portable set is the scalar it_expf/it_logf of
 * cr_exp.c, cr_log.c; the SIMD sets evaluate binary64 lanes and send lanes
 * near a rounding boundary to the scalar path). Each input is decided once
 * and every set's result is compared with it. See prove_math.md.
 *
 * usage: prove_math [exp|log|all] [--threads N] [--range LO HI]
 *                   [--mpfr-all] [--sample-every N] [--inject BITS]
 *                   [--inject-precheck BITS] [--against-libm]
 *                   [--kernels SET,SET,...] [--no-fallback]
 *        prove_math --emit-tables
 *
 * --no-fallback is the negative control of the SIMD sets' exact fallback:
 * lanes near a rounding boundary keep their binary64 fast-path result, and
 * the proof must then find mismatches.
 *
 * Exit status 0 only if every input in the range was checked, there were
 * 0 mismatches and the pre-check agreed with MPFR on every sampled input.
 */
#define _GNU_SOURCE 1
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gmp.h>
#include <mpfr.h>

#include "cr_math.h"
#include "isotrain.h"
#include "kernels/kernels.h"

/* ------------------------------------------------------------------ */
/* bits                                                                */

static uint32_t f2u(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static float u2f(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static int is_nan_bits(uint32_t b)
{
    return (b & 0x7fffffffu) > 0x7f800000u;
}

/* NaN compares by class, everything else (incl. +-0, +-inf) by bits. */
static int same_result(uint32_t got, uint32_t want)
{
    if (is_nan_bits(want) || is_nan_bits(got))
        return is_nan_bits(want) && is_nan_bits(got);
    return got == want;
}

/* ------------------------------------------------------------------ */
/* MPFR oracle: binary32 emulation                                     */

enum fn_id { FN_EXP = 0, FN_LOG = 1, FN_SQRT = 2 };
static const char *const fn_name[3] = {"exp", "log", "sqrt"};

/*
 * Emulating binary32 with MPFR: precision 24, exponent range
 * emin = -148 (MPFR significands are in [1/2, 1), so 2^-149, the smallest
 * subnormal, is 0.5*2^-148) and emax = 128 (FLT_MAX = 0.11..1b * 2^128).
 * The function is evaluated directly in that range with MPFR_RNDN (so
 * overflow gives +inf and underflow below 2^-150 gives 0 as for binary32
 * RN), mpfr_check_range is applied with the ternary value (a no-op here,
 * kept for robustness), then mpfr_subnormalize rounds results below
 * 2^-126 to the subnormal grid using the ternary value, which avoids
 * double rounding.  The exponent range is per-thread state in a
 * thread-safe (TLS) MPFR build, so every thread sets it itself.
 */
typedef struct {
    mpfr_t x;
    mpfr_t y;
} oracle_t;

static void oracle_init(oracle_t *o)
{
    mpfr_set_emin(-148);
    mpfr_set_emax(128);
    mpfr_init2(o->x, 24);
    mpfr_init2(o->y, 24);
}

static void oracle_clear(oracle_t *o)
{
    mpfr_clear(o->x);
    mpfr_clear(o->y);
    mpfr_free_cache();
}

static uint32_t oracle(oracle_t *o, enum fn_id fn, float x)
{
    int t;
    float r;
    mpfr_set_flt(o->x, x, MPFR_RNDN); /* exact: every binary32 fits */
    if (fn == FN_EXP)
        t = mpfr_exp(o->y, o->x, MPFR_RNDN);
    else if (fn == FN_LOG)
        t = mpfr_log(o->y, o->x, MPFR_RNDN);
    else
        t = mpfr_sqrt(o->y, o->x, MPFR_RNDN); /* -0 -> -0, x < 0 -> NaN */
    t = mpfr_check_range(o->y, t, MPFR_RNDN);
    t = mpfr_subnormalize(o->y, t, MPFR_RNDN);
    (void)t;
    r = mpfr_get_flt(o->y, MPFR_RNDN); /* exact now */
    return f2u(r);
}

/* ------------------------------------------------------------------ */
/* pre-check with glibc's double exp/log                              */

/*
 * glibc documents exp and log (binary64) with a maximum error of 1 ulp on
 * x86_64 (in fact < 0.52 ulp for the current implementations), i.e. a
 * relative error below 2^-52.  We accept the binary64 value d only if the
 * whole interval d*(1 +- 2^-40) rounds to one binary32 value; because
 * binary32 RN is monotone it suffices to round the two endpoints.  The
 * endpoints are computed in double: each is within 2^-53*|d| of the exact
 * endpoint, so the interval really tested contains d*(1 +- 2^-41), which
 * contains the exact result with a margin of 2^11 times the documented
 * error.  Outside [2^-1000, 2^1000] the verdict is clear without margins:
 * there the binary32 result is 0 resp. +inf.  Anything else (NaN, infinite
 * or zero d, i.e. special inputs) goes to MPFR, except NaN inputs, whose
 * result is NaN by IEEE 754 (both functions propagate NaN).
 * Returns PRE_DECIDED and the result bits if decided, PRE_SPECIAL for a
 * special input (NaN/zero/infinite d, e.g. log of x <= 0, 1 or +inf) and
 * PRE_CLOSE if d is too close to a rounding boundary; MPFR decides those.
 */
enum { PRE_DECIDED = 0, PRE_SPECIAL = 1, PRE_CLOSE = 2 };
static const double precheck_margin = 0x1p-40;

static int precheck(enum fn_id fn, float x, uint32_t *out)
{
    double xd = (double)x, d, a, lo, hi;
    float f;
    if (isnan(x)) {
        *out = 0x7fc00000u;
        return PRE_DECIDED;
    }
    if (fn != FN_EXP && signbit(x) && x != 0.0f) {
        /* log of x < 0 (incl. -inf) is invalid, NaN by IEEE 754 and spec
         * §3.3 (sqrt likewise, §3.6); settling the 2^31 negatives here keeps MPFR for the rest
         * (the 1/4096 sample still cross-checks these against MPFR) */
        *out = 0x7fc00000u;
        return PRE_DECIDED;
    }
    /* glibc's binary64 sqrt is IEEE's, correctly rounded: within half an
     * ulp, far inside the margin */
    d = fn == FN_EXP ? exp(xd) : fn == FN_LOG ? log(xd) : sqrt(xd);
    if (isnan(d))
        return PRE_SPECIAL;
    if (fn == FN_LOG && (d == 0.0 || isinf(d)))
        return PRE_SPECIAL; /* log(1), log(+-0), log(+inf): exact specials */
    a = fabs(d);
    if (a <= 0x1p-1000) { /* exp's underflow; sqrt(+-0) = +-0 */
        *out = f2u(copysignf(0.0f, (float)d));
        return PRE_DECIDED;
    }
    if (a >= 0x1p1000) { /* exp only, includes d == +inf */
        *out = f2u(copysignf(INFINITY, (float)d));
        return PRE_DECIDED;
    }
    lo = a - a * precheck_margin;
    hi = a + a * precheck_margin;
    f = (float)a;
    if ((float)lo != f || (float)hi != f)
        return PRE_CLOSE;
    *out = f2u(d < 0 ? -f : f);
    return PRE_DECIDED;
}

/* ------------------------------------------------------------------ */
/* the functions under test                                            */

static int g_against_libm = 0;
static int g_inject = 0;
static uint32_t g_inject_bits = 0;
static int g_inject_pre = 0;
static uint32_t g_inject_pre_bits = 0;
static int g_no_fallback = 0;

/* The implementations under test: kernel sets, or glibc (--against-libm). */
#define MAX_SETS 8
typedef size_t (*array_fn)(const float *x, float *y, size_t n, int exact_fallback);
static const char *g_set_name[MAX_SETS];
static array_fn g_set_fn[2][MAX_SETS];
typedef void (*sqrt_fn)(const float *x, float *y, size_t n);
static sqrt_fn g_set_sqrt[MAX_SETS];
static int g_sqrt_rsqrt = 0; /* negative control: every set's sqrt replaced by rsqrt + Newton */
static int g_nsets = 0;

static size_t libm_exp(const float *x, float *y, size_t n, int f)
{
    (void)f;
    for (size_t i = 0; i < n; i++)
        y[i] = expf(x[i]);
    return 0;
}

static size_t libm_log(const float *x, float *y, size_t n, int f)
{
    (void)f;
    for (size_t i = 0; i < n; i++)
        y[i] = logf(x[i]);
    return 0;
}

static void libm_sqrt(const float *x, float *y, size_t n)
{
    for (size_t i = 0; i < n; i++)
        y[i] = sqrtf(x[i]);
}

/* The negative control of the sqrt proof (--sqrt-rsqrt-newton): the "fast
 * square root" a vectorizer or a hand-written kernel might use, x times an
 * approximate reciprocal square root refined by one Newton step
 * (rsqrtss on x86, the 0x5f3759df estimate elsewhere): close, not IEEE's. */
#if defined(__x86_64__)
#include <xmmintrin.h>
static float approx_rsqrt(float x) { return _mm_cvtss_f32(_mm_rsqrt_ss(_mm_set_ss(x))); }
#else
static float approx_rsqrt(float x)
{
    uint32_t u = 0x5f3759dfu - (f2u(x) >> 1);
    float r = u2f(u);
    return r * (1.5f - 0.5f * x * r * r);
}
#endif
static void rsqrt_newton_sqrt(const float *x, float *y, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        float r = approx_rsqrt(x[i]);
        float half_x = 0.5f * x[i];
        r = r * (1.5f - half_x * r * r);
        y[i] = x[i] > 0.0f && x[i] < 0x1p127f ? x[i] * r : sqrtf(x[i]);
    }
}

/* One set's result for a chunk (exp and log report their near lanes) */
static size_t set_apply(enum fn_id fn, int s, const float *x, float *y, size_t n)
{
    if (fn != FN_SQRT)
        return g_set_fn[fn][s](x, y, n, !g_no_fallback);
    (g_sqrt_rsqrt ? rsqrt_newton_sqrt : g_set_sqrt[s])(x, y, n);
    return 0;
}

/* ------------------------------------------------------------------ */
/* exhaustive driver                                                   */

#define MAX_REPORT 10
#define CHUNK 65536u

typedef struct {
    uint32_t in, got, want;
} mismatch_t;

typedef struct {
    enum fn_id fn;
    uint64_t lo, hi; /* inclusive */
    int mpfr_all;
    uint64_t sample_every; /* 0: no sampling */
    _Atomic uint64_t next;
    pthread_mutex_t lock;
    /* totals (under lock) */
    uint64_t checked, by_mpfr, special, close, sampled, sample_disagree;
    uint64_t mismatches[MAX_SETS], near[MAX_SETS];
    double seconds[MAX_SETS]; /* CPU time in each set's own function, summed over threads */
    mismatch_t first[MAX_SETS][MAX_REPORT];
    mismatch_t first_dis[MAX_REPORT];
} job_t;

static double thread_cpu(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Keeps the first MAX_REPORT of a kind of disagreement, counts them all. */
static void record(job_t *job, uint64_t *count, mismatch_t *first, uint32_t in, uint32_t got, uint32_t want)
{
    pthread_mutex_lock(&job->lock);
    if (*count < MAX_REPORT) {
        first[*count].in = in;
        first[*count].got = got;
        first[*count].want = want;
    }
    (*count)++;
    pthread_mutex_unlock(&job->lock);
}

static void *worker(void *arg)
{
    job_t *job = arg;
    oracle_t o;
    uint64_t checked = 0, by_mpfr = 0, special = 0, close = 0, sampled = 0;
    uint64_t near[MAX_SETS] = {0};
    double seconds[MAX_SETS] = {0};
    float *xin = malloc(sizeof(float) * CHUNK);
    float *res = malloc(sizeof(float) * CHUNK * MAX_SETS);
    if (!xin || !res) {
        fprintf(stderr, "prove_math: out of memory\n");
        exit(2);
    }
    oracle_init(&o);
    for (;;) {
        uint64_t start = atomic_fetch_add(&job->next, CHUNK);
        uint64_t end, i;
        if (start > job->hi)
            break;
        end = start + CHUNK - 1;
        if (end > job->hi)
            end = job->hi;
        size_t n = (size_t)(end - start + 1);
        for (size_t k = 0; k < n; k++)
            xin[k] = u2f((uint32_t)(start + k));
        for (int s = 0; s < g_nsets; s++) {
            double t0 = thread_cpu();
            near[s] += set_apply(job->fn, s, xin, res + (size_t)s * CHUNK, n);
            seconds[s] += thread_cpu() - t0;
        }
        for (i = start; i <= end; i++) {
            uint32_t bits = (uint32_t)i, want, pre;
            int pc = PRE_SPECIAL;
            if (!job->mpfr_all) {
                pc = precheck(job->fn, u2f(bits), &pre);
                if (g_inject_pre && bits == g_inject_pre_bits && pc == PRE_DECIDED)
                    pre ^= 1u; /* negative control of the pre-check cross-validation */
                special += pc == PRE_SPECIAL;
                close += pc == PRE_CLOSE;
            }
            if (pc == PRE_DECIDED) {
                want = pre;
                if (job->sample_every && i % job->sample_every == 0) {
                    want = oracle(&o, job->fn, u2f(bits));
                    sampled++;
                    if (!same_result(pre, want))
                        record(job, &job->sample_disagree, job->first_dis, bits, pre, want);
                }
            } else {
                want = oracle(&o, job->fn, u2f(bits));
                by_mpfr++;
            }
            checked++;
            for (int s = 0; s < g_nsets; s++) {
                uint32_t got = f2u(res[(size_t)s * CHUNK + (size_t)(i - start)]);
                if (g_inject && bits == g_inject_bits)
                    got ^= 1u; /* negative control: flip the last bit */
                if (!same_result(got, want))
                    record(job, &job->mismatches[s], job->first[s], bits, got, want);
            }
        }
    }
    pthread_mutex_lock(&job->lock);
    job->checked += checked;
    job->by_mpfr += by_mpfr;
    job->special += special;
    job->close += close;
    job->sampled += sampled;
    for (int s = 0; s < g_nsets; s++) {
        job->near[s] += near[s];
        job->seconds[s] += seconds[s];
    }
    pthread_mutex_unlock(&job->lock);
    oracle_clear(&o);
    free(xin);
    free(res);
    return NULL;
}

static double now_sec(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int run_fn(enum fn_id fn, uint64_t lo, uint64_t hi, int threads,
                  int mpfr_all, uint64_t sample_every)
{
    job_t job;
    pthread_t tid[256];
    double t0, t1;
    int i, ok;
    uint64_t total = hi - lo + 1;

    memset(&job, 0, sizeof job);
    job.fn = fn;
    job.lo = lo;
    job.hi = hi;
    job.mpfr_all = mpfr_all;
    job.sample_every = sample_every;
    atomic_init(&job.next, lo);
    pthread_mutex_init(&job.lock, NULL);

    t0 = now_sec();
    for (i = 0; i < threads; i++) {
        if (pthread_create(&tid[i], NULL, worker, &job) != 0) {
            fprintf(stderr, "prove_math: pthread_create failed\n");
            exit(2);
        }
    }
    for (i = 0; i < threads; i++)
        pthread_join(tid[i], NULL);
    t1 = now_sec();

    printf("%s: range 0x%08" PRIx64 "..0x%08" PRIx64 "\n", fn_name[fn], lo, hi);
    printf("  inputs checked   : %" PRIu64 " of %" PRIu64 "%s\n", job.checked, total,
           job.checked == total ? "" : "  (INCOMPLETE)");
    ok = 1;
    for (int s = 0; s < g_nsets; s++) {
        printf("  %-16s : %" PRIu64 " mismatches; %" PRIu64 " lanes near a rounding boundary%s; %.2f ns/input\n",
               g_set_name[s], job.mismatches[s], job.near[s],
               job.near[s] ? (g_no_fallback ? " kept their fast result (--no-fallback)" : " sent to the exact path")
                           : "",
               job.checked ? 1e9 * job.seconds[s] / (double)job.checked : 0.0);
        for (i = 0; i < MAX_REPORT && (uint64_t)i < job.mismatches[s]; i++)
            printf("    input 0x%08" PRIx32 " (%a): got 0x%08" PRIx32 " (%a), expected 0x%08" PRIx32 " (%a)\n",
                   job.first[s][i].in, (double)u2f(job.first[s][i].in), job.first[s][i].got,
                   (double)u2f(job.first[s][i].got), job.first[s][i].want, (double)u2f(job.first[s][i].want));
        ok &= job.mismatches[s] == 0;
    }
    if (mpfr_all)
        printf("  decided by MPFR  : %" PRIu64 " (--mpfr-all)\n", job.by_mpfr);
    else
        printf("  decided by MPFR  : %" PRIu64 " (%" PRIu64 " near a rounding boundary,"
               " %" PRIu64 " special inputs)\n",
               job.by_mpfr, job.close, job.special);
    if (!mpfr_all)
        printf("  sampled (1/%" PRIu64 ") : %" PRIu64 " pre-check results re-decided by MPFR,"
               " %" PRIu64 " disagreements\n",
               sample_every, job.sampled, job.sample_disagree);
    for (i = 0; i < MAX_REPORT && (uint64_t)i < job.sample_disagree; i++)
        printf("    pre-check DISAGREES at 0x%08" PRIx32 ": pre-check 0x%08" PRIx32
               ", MPFR 0x%08" PRIx32 "\n",
               job.first_dis[i].in, job.first_dis[i].got, job.first_dis[i].want);
    printf("  wall time        : %.1f s (%d threads)\n", t1 - t0, threads);
    if (g_inject && g_inject_bits >= lo && g_inject_bits <= hi &&
        is_nan_bits(f2u(fn == FN_EXP   ? it_expf(u2f(g_inject_bits))
                        : fn == FN_LOG ? it_logf(u2f(g_inject_bits))
                                       : it_sqrtf(u2f(g_inject_bits)))))
        printf("  note             : the result for the injected input 0x%08" PRIx32
               " is a NaN with or without the flip (NaNs compare by class): invisible\n",
               g_inject_bits);
    ok = ok && job.checked == total && job.sample_disagree == 0;
    printf("  result           : %s\n", ok ? "PASS" : "FAIL");
    fflush(stdout);
    pthread_mutex_destroy(&job.lock);
    return ok;
}

/* ------------------------------------------------------------------ */
/* --emit-tables: every constant in cr_exp.c / cr_log.c, from MPFR     */

static void emit_rounded(const char *name, mpfr_srcptr v, int bits, const char *what)
{
    mpfr_t t;
    mpfr_init2(t, bits);
    mpfr_set(t, v, MPFR_RNDN);
    printf("#define %-14s %-24a /* %s, RN to %d bits */\n", name, mpfr_get_d(t, MPFR_RNDN), what,
           bits);
    mpfr_clear(t);
}

/* largest positive float x with RN32(exp x) finite */
static uint32_t find_exp_overflow(oracle_t *o)
{
    uint32_t b = 0x42b00000u; /* 88.0: exp finite */
    while (!isinf(u2f(oracle(o, FN_EXP, u2f(b + 1u)))))
        b++;
    return b;
}

/* |x| bits of the first negative float x with RN32(exp x) == +0 */
static uint32_t find_exp_underflow(oracle_t *o)
{
    uint32_t b = 0x42cf0000u; /* 103.5: exp(-103.5) > 2^-150 */
    while (oracle(o, FN_EXP, u2f(b | 0x80000000u)) != 0u)
        b++;
    return b;
}

static int emit_tables(void)
{
    mpfr_t ln2, l1, l2, rem, t;
    oracle_t o;
    int n;
    uint32_t ovf, unf;
    mpfr_prec_t P = 256;
    mpfr_inits2(P, ln2, l1, l2, rem, t, (mpfr_ptr)0);

    printf("/* Generated by: prove_math --emit-tables (MPFR %s, %d-bit intermediates).\n"
           "   Each constant is the stated real value rounded to nearest to the stated\n"
           "   number of bits, printed exactly as a C hex-float. */\n",
           mpfr_get_version(), (int)P);

    mpfr_const_log2(ln2, MPFR_RNDN);
    mpfr_set_prec(l1, 44);
    mpfr_set(l1, ln2, MPFR_RNDN);
    mpfr_sub(rem, ln2, l1, MPFR_RNDN);
    mpfr_set_prec(l2, 44);
    mpfr_set(l2, rem, MPFR_RNDN);
    mpfr_sub(rem, rem, l2, MPFR_RNDN);
    printf("/* ln 2 = IT_LN2_1 + IT_LN2_2 + IT_LN2_3 + O(2^-140); IT_LN2_1 and IT_LN2_2\n"
           "   have <= 44 significant bits so k*IT_LN2_1, k*IT_LN2_2 are exact for |k| < 2^8 */\n");
    emit_rounded("IT_LN2_1", l1, 44, "ln 2");
    emit_rounded("IT_LN2_2", l2, 44, "ln 2 - IT_LN2_1");
    emit_rounded("IT_LN2_3", rem, 53, "ln 2 - IT_LN2_1 - IT_LN2_2");
    mpfr_ui_div(t, 1, ln2, MPFR_RNDN);
    emit_rounded("IT_INV_LN2", t, 53, "1/ln 2");
    mpfr_set_ui(t, 2, MPFR_RNDN);
    mpfr_sqrt(t, t, MPFR_RNDN);
    emit_rounded("IT_SQRT2", t, 53, "sqrt 2");

    printf("/* exp fast path: Taylor coefficients 1/n! */\n");
    for (n = 2; n <= 11; n++) {
        char name[32], what[32];
        mpfr_fac_ui(t, (unsigned long)n, MPFR_RNDN); /* exact at this precision */
        mpfr_ui_div(t, 1, t, MPFR_RNDN);
        snprintf(name, sizeof name, "IT_EXP_C%d", n);
        snprintf(what, sizeof what, "1/%d!", n);
        emit_rounded(name, t, 53, what);
    }
    printf("/* log fast path: log(m) = 2 s (1 + s^2/3 + s^4/5 + ...), coefficients 1/(2n+1) */\n");
    for (n = 1; n <= 8; n++) {
        char name[32], what[32];
        mpfr_set_ui(t, (unsigned long)(2 * n + 1), MPFR_RNDN);
        mpfr_ui_div(t, 1, t, MPFR_RNDN);
        snprintf(name, sizeof name, "IT_LOG_C%d", n);
        snprintf(what, sizeof what, "1/%d", 2 * n + 1);
        emit_rounded(name, t, 53, what);
    }

    oracle_init(&o);
    ovf = find_exp_overflow(&o);
    unf = find_exp_underflow(&o);
    printf("/* exp special-case thresholds, found with the MPFR binary32 oracle */\n");
    printf("#define IT_EXP_OVF_BITS  0x%08" PRIx32 "u /* %a: largest x with finite RN(e^x); "
           "RN(e^x) = 0x%08" PRIx32 " */\n",
           ovf, (double)u2f(ovf), oracle(&o, FN_EXP, u2f(ovf)));
    printf("#define IT_EXP_UNF_ABS   0x%08" PRIx32 "u /* -%a: x <= this gives RN(e^x) = +0; "
           "previous float gives 0x%08" PRIx32 " */\n",
           unf, (double)u2f(unf), oracle(&o, FN_EXP, u2f((unf - 1u) | 0x80000000u)));
    oracle_clear(&o);
    mpfr_clears(ln2, l1, l2, rem, t, (mpfr_ptr)0);
    return 0;
}

/* ------------------------------------------------------------------ */

static void usage(void)
{
    fprintf(stderr,
            "usage: prove_math [exp|log|sqrt|all] [--threads N] [--range LO HI] [--mpfr-all]\n"
            "                  [--sample-every N] [--inject BITS] [--inject-precheck BITS]\n"
            "                  [--against-libm] [--kernels SET,SET,...] [--no-fallback]\n"
            "                  [--sqrt-rsqrt-newton]\n"
            "       prove_math --emit-tables\n");
    exit(2);
}

static uint64_t parse_u(const char *s, int base, uint64_t max)
{
    char *end;
    unsigned long long v;
    errno = 0;
    v = strtoull(s, &end, base);
    if (errno || *s == '\0' || *end != '\0' || v > max) {
        fprintf(stderr, "prove_math: bad number '%s'\n", s);
        exit(2);
    }
    return (uint64_t)v;
}

/* The functions checked: glibc's (--against-libm), or every kernel set
 * that runs here, or those of the comma-separated list `kernels`. */
static int choose_sets(const char *kernels)
{
    if (g_against_libm) {
        g_set_name[0] = "glibc";
        g_set_fn[FN_EXP][0] = libm_exp;
        g_set_fn[FN_LOG][0] = libm_log;
        g_set_sqrt[0] = libm_sqrt;
        g_nsets = 1;
    } else {
        const char *avail[MAX_SETS];
        size_t n = it_kernels_available(avail, MAX_SETS);
        for (size_t k = 0; k < n && k < MAX_SETS; k++) {
            if (kernels) { /* only the sets of the comma-separated list */
                size_t len = strlen(avail[k]);
                int listed = 0;
                for (const char *p = strstr(kernels, avail[k]); p; p = strstr(p + 1, avail[k]))
                    if ((p == kernels || p[-1] == ',') && (p[len] == ',' || p[len] == '\0'))
                        listed = 1;
                if (!listed)
                    continue;
            }
            it_kernels_select(avail[k]);
            const it_kernel_set *set = it_kernels();
            g_set_name[g_nsets] = set->name;
            g_set_fn[FN_EXP][g_nsets] = set->expf_v;
            g_set_fn[FN_LOG][g_nsets] = set->logf_v;
            g_set_sqrt[g_nsets] = set->sqrtf_v;
            g_nsets++;
        }
        if (g_nsets == 0) {
            fprintf(stderr, "prove_math: --kernels %s: none of them runs here\n", kernels);
            return -1;
        }
    }
    return 0;
}

/* What is checked, and every negative control in force. */
static void print_banner(uint64_t lo, uint64_t hi, int mpfr_all)
{
    printf("prove_math: MPFR %s, GMP %s, %s, pre-check margin 2^-40, %s\n", mpfr_get_version(),
           gmp_version, g_against_libm ? "checking glibc expf/logf" : "checking every kernel set's exp/log/sqrt",
           mpfr_all ? "MPFR on every input" : "MPFR on inconclusive + sampled inputs");
    if (g_inject)
        printf("prove_math: NEGATIVE CONTROL: result for input 0x%08" PRIx32
               " has its last bit flipped\n",
               g_inject_bits);
    if (g_no_fallback)
        printf("prove_math: NEGATIVE CONTROL: --no-fallback: SIMD lanes near a rounding boundary keep their "
               "binary64 fast-path result\n");
    if (g_sqrt_rsqrt)
        printf("prove_math: NEGATIVE CONTROL: --sqrt-rsqrt-newton: every set's sqrt replaced by x * rsqrt(x) "
               "refined by one Newton step\n");
    if (g_inject_pre)
        printf("prove_math: NEGATIVE CONTROL: the pre-check verdict for input 0x%08" PRIx32
               " has its last bit flipped\n",
               g_inject_pre_bits);
    if (g_inject && (g_inject_bits < lo || g_inject_bits > hi))
        printf("prove_math: note: injected input 0x%08" PRIx32 " is outside the checked range\n",
               g_inject_bits);
}

int main(int argc, char **argv)
{
    int do_exp = 0, do_log = 0, do_sqrt = 0, threads = 2, mpfr_all = 0, i, ok = 1;
    uint64_t lo = 0, hi = 0xffffffffu, sample_every = 4096;
    const char *kernels = NULL;

    for (i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "exp"))
            do_exp = 1;
        else if (!strcmp(a, "log"))
            do_log = 1;
        else if (!strcmp(a, "sqrt"))
            do_sqrt = 1;
        else if (!strcmp(a, "all"))
            do_exp = do_log = do_sqrt = 1;
        else if (!strcmp(a, "--emit-tables"))
            return emit_tables();
        else if (!strcmp(a, "--threads") && i + 1 < argc)
            threads = (int)parse_u(argv[++i], 10, 256);
        else if (!strcmp(a, "--range") && i + 2 < argc) {
            lo = parse_u(argv[++i], 16, 0xffffffffu);
            hi = parse_u(argv[++i], 16, 0xffffffffu);
        } else if (!strcmp(a, "--mpfr-all"))
            mpfr_all = 1;
        else if (!strcmp(a, "--sample-every") && i + 1 < argc)
            sample_every = parse_u(argv[++i], 10, 0xffffffffu);
        else if (!strcmp(a, "--inject") && i + 1 < argc) {
            g_inject = 1;
            g_inject_bits = (uint32_t)parse_u(argv[++i], 16, 0xffffffffu);
        } else if (!strcmp(a, "--inject-precheck") && i + 1 < argc) {
            g_inject_pre = 1;
            g_inject_pre_bits = (uint32_t)parse_u(argv[++i], 16, 0xffffffffu);
        } else if (!strcmp(a, "--against-libm"))
            g_against_libm = 1;
        else if (!strcmp(a, "--kernels") && i + 1 < argc)
            kernels = argv[++i];
        else if (!strcmp(a, "--no-fallback"))
            g_no_fallback = 1;
        else if (!strcmp(a, "--sqrt-rsqrt-newton"))
            g_sqrt_rsqrt = 1;
        else
            usage();
    }
    if (!do_exp && !do_log && !do_sqrt)
        usage();
    if (threads < 1 || lo > hi)
        usage();
    if (choose_sets(kernels) != 0)
        return 2;
    if (!mpfr_buildopt_tls_p())
        fprintf(stderr, "prove_math: note: MPFR is not thread-safe (no TLS); use --threads 1\n");

    print_banner(lo, hi, mpfr_all);
    if (do_exp)
        ok &= run_fn(FN_EXP, lo, hi, threads, mpfr_all, sample_every);
    if (do_log)
        ok &= run_fn(FN_LOG, lo, hi, threads, mpfr_all, sample_every);
    if (do_sqrt)
        ok &= run_fn(FN_SQRT, lo, hi, threads, mpfr_all, sample_every);
    printf("prove_math: %s\n", ok ? "ALL PASS" : "FAILED");
    return ok ? 0 : 1;
}
