/* Failure, and the independent arithmetic that checks the claims a case
 * rests on: ties, fused results, other summation orders, thresholds. None of
 * it goes through the library's functions under test. */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <string.h>
#include <time.h>

#include "mv.h"

void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("make_vectors: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(1);
}

const char *say(const char *fmt, ...)
{
    static char ring[8][700];
    static unsigned next;
    char *buf = ring[next++ % 8];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof ring[0], fmt, ap);
    va_end(ap);
    return buf;
}

double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---- binary32 helpers ------------------------------------------------------------ */

float F(uint32_t bits) { return it_f32_from_bits(bits); }
uint32_t U(float f) { return it_f32_bits(f); }
int is_nan(float f) { return (U(f) & 0x7fffffffu) > 0x7f800000u; }
int is_inf(float f) { return (U(f) & 0x7fffffffu) == 0x7f800000u; }
int is_subnormal(float f) { return (U(f) & 0x7f800000u) == 0 && (U(f) & 0x007fffffu) != 0; }

/* Same bits, or both NaN (iut-protocol P6). */
int same(float a, float b) { return U(a) == U(b) || (is_nan(a) && is_nan(b)); }

/* The next binary32 value toward +inf / -inf (finite x). */
float next_up(float x)
{
    uint32_t u = U(x);
    if ((u & 0x7fffffffu) == 0)
        return F(1);
    return (u >> 31) ? F(u - 1) : F(u + 1);
}
float next_down(float x) { return -next_up(-x); }

/* The exact value `exact` (a binary64 holding more bits than binary32) lies
 * exactly halfway between two binary32 neighbours. */
int is_tie(double exact)
{
    float r = (float)exact;
    if ((double)r == exact)
        return 0;
    float other = exact > (double)r ? next_up(r) : next_down(r);
    return exact - (double)r == (double)other - exact;
}

/* a + b exactly, in binary64 (checked). */
double exact_sum(float a, float b)
{
    double s = (double)a + (double)b, bb = s - (double)a;
    double err = ((double)a - (s - bb)) + ((double)b - bb);
    require(err == 0.0, "the binary64 sum %a + %a is not exact", (double)a, (double)b);
    return s;
}

/* What a fused multiply-add acc + a*b returns, computed without fmaf: the
 * product of two binary32 values is exact in binary64, and the cases are
 * chosen so the binary64 sum is exact too (checked); one rounding to
 * binary32 is then the fused result. */
float fused(float acc, float a, float b)
{
    double p = (double)a * (double)b;
    double s = (double)acc + p, bb = s - (double)acc;
    double err = ((double)acc - (s - bb)) + (p - bb);
    require(err == 0.0, "fused(%a, %a, %a): the binary64 sum is not exact", (double)acc, (double)a, (double)b);
    return (float)s;
}

/* Summation orders other than the spec's, for the OrderSensitive claims. */
float sum_ascending(const float *t, size_t n)
{
    float acc = 0.0f;
    for (size_t i = 0; i < n; i++)
        acc = acc + t[i];
    return acc;
}
float sum_descending(const float *t, size_t n)
{
    float acc = 0.0f;
    for (size_t i = n; i > 0; i--)
        acc = acc + t[i - 1];
    return acc;
}
float sum_pairwise(const float *t, size_t n)
{
    if (n == 1)
        return t[0];
    return sum_pairwise(t, n / 2) + sum_pairwise(t + n / 2, n - n / 2);
}
/* ---- monotone thresholds, found with the reference's own functions ----------------------- */

/* The smallest b in (lo, hi] with pred(b), for pred false at lo and true at
 * hi and monotone in between. */
uint32_t first_true(uint32_t lo, uint32_t hi, int (*pred)(uint32_t))
{
    require(!pred(lo) && pred(hi), "bisection bracket [%08x, %08x] does not straddle the threshold", (unsigned)lo,
            (unsigned)hi);
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (pred(mid))
            hi = mid;
        else
            lo = mid;
    }
    return hi;
}
