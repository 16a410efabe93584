/*
 * double_double.h - internal helpers for the correctly rounded binary32
 * exp/log of the isotrain reference (cr_exp.c, cr_log.c).
 *
 * Everything here uses only IEEE binary64/binary32 +, -, *, / (each
 * correctly rounded, round-to-nearest-even), integer operations and
 * comparisons.  No libm, no fma, no long double, no intrinsics.  Type
 * punning goes through memcpy, which is endian-neutral because a double
 * and a uint64_t (a float and a uint32_t) share the same byte order on
 * every platform we target.
 *
 * A double-double (dd) value is the unevaluated sum hi + lo with
 * |lo| <= ulp(hi)/2 (normalized by fast_two_sum after each operation).
 * Error-free transformations (Knuth two_sum, Dekker fast_two_sum, Dekker
 * split + two_prod) are exact as long as no overflow occurs; the callers
 * keep all magnitudes far inside [2^-900, 2^900].
 */
#ifndef ISOTRAIN_DOUBLE_DOUBLE_H
#define ISOTRAIN_DOUBLE_DOUBLE_H

#include <float.h>
#include <stdint.h>
#include <string.h>

/* The algorithms need every double/float operation rounded to its own
 * format (no x87 excess precision).  Refuse to build otherwise. (The
 * matrix's expected-fail x87 host is built past this guard by
 * spec/mutants/x87-excess.patch.) */
#if !defined(FLT_EVAL_METHOD) || FLT_EVAL_METHOD != 0
#error "isotrain cr math needs FLT_EVAL_METHOD == 0 (e.g. -mfpmath=sse -msse2 on 32-bit x86)"
#endif
#if FLT_RADIX != 2 || DBL_MANT_DIG != 53 || FLT_MANT_DIG != 24
#error "isotrain cr math needs IEEE binary32/binary64"
#endif

/* ---------- bit access ---------- */

/* A value's bits as an integer of its width and back, through memcpy (the
 * conversion C11 defines for every value, NaN payloads included): one
 * definition for the four pairs of types */
#define IT_BIT_CAST(name, from, to)                                                                               \
    static inline to name(from x)                                                                                 \
    {                                                                                                             \
        to y;                                                                                                     \
        memcpy(&y, &x, sizeof y);                                                                                 \
        return y;                                                                                                 \
    }
IT_BIT_CAST(it_f2u, float, uint32_t)
IT_BIT_CAST(it_u2f, uint32_t, float)
IT_BIT_CAST(it_d2u, double, uint64_t)
IT_BIT_CAST(it_u2d, uint64_t, double)
#undef IT_BIT_CAST

/* 2^k as a double, exact, for -1022 <= k <= 1023. */
static inline double it_pow2(int k)
{
    return it_u2d((uint64_t)(k + 1023) << 52);
}

/* Canonical quiet NaN 0x7fc00000 (same bits on every ISA, unlike the
 * "default NaN" produced by arithmetic, which is 0xffc00000 on x86). */
static inline float it_qnanf(void)
{
    return it_u2f(UINT32_C(0x7fc00000));
}

/* ---------- double-double ---------- */

typedef struct {
    double hi;
    double lo;
} it_dd;

/* hi + lo == a + b exactly, hi = RN(a + b).  Requires |a| >= |b| or a == 0. */
static inline it_dd it_fast_two_sum(double a, double b)
{
    it_dd r;
    r.hi = a + b;
    r.lo = b - (r.hi - a);
    return r;
}

/* hi + lo == a + b exactly, hi = RN(a + b), no precondition (Knuth). */
static inline it_dd it_two_sum(double a, double b)
{
    it_dd r;
    double bb;
    r.hi = a + b;
    bb = r.hi - a;
    r.lo = (a - (r.hi - bb)) + (b - bb);
    return r;
}

/* Dekker/Veltkamp split: a == hi + lo, hi and lo with <= 26 significant
 * bits each.  Valid for |a| < 2^995. */
static inline void it_split(double a, double *hi, double *lo)
{
    const double c = 134217729.0; /* 2^27 + 1 */
    double t = c * a;
    *hi = t - (t - a);
    *lo = a - *hi;
}

/* hi + lo == a * b exactly, hi = RN(a * b) (Dekker, no fma).  Valid when
 * no overflow occurs and the exact error term does not underflow
 * (|a*b| >= 2^-969 suffices; callers keep operands far from that). */
static inline it_dd it_two_prod(double a, double b)
{
    it_dd r;
    double ah, al, bh, bl;
    r.hi = a * b;
    it_split(a, &ah, &al);
    it_split(b, &bh, &bl);
    r.lo = ((ah * bh - r.hi) + ah * bl + al * bh) + al * bl;
    return r;
}

/* a + b, relative error <= ~2^-104 (accurate "sloppy-free" variant). */
static inline it_dd it_dd_add(it_dd a, it_dd b)
{
    it_dd s = it_two_sum(a.hi, b.hi);
    it_dd t = it_two_sum(a.lo, b.lo);
    s.lo += t.hi;
    s = it_fast_two_sum(s.hi, s.lo);
    s.lo += t.lo;
    return it_fast_two_sum(s.hi, s.lo);
}

static inline it_dd it_dd_neg(it_dd a)
{
    it_dd r;
    r.hi = -a.hi;
    r.lo = -a.lo;
    return r;
}

/* a * b, relative error <= ~2^-102. */
static inline it_dd it_dd_mul(it_dd a, it_dd b)
{
    it_dd p = it_two_prod(a.hi, b.hi);
    p.lo += a.hi * b.lo + a.lo * b.hi;
    return it_fast_two_sum(p.hi, p.lo);
}

/* a / d for a double d != 0, relative error <= ~2^-103. */
static inline it_dd it_dd_div_d(it_dd a, double d)
{
    double q1 = a.hi / d;
    it_dd p = it_two_prod(q1, d);
    /* remainder a - q1*d, computed almost exactly */
    double r = ((a.hi - p.hi) - p.lo) + a.lo;
    double q2 = r / d;
    return it_fast_two_sum(q1, q2);
}

/* a / b, relative error <= ~2^-102. */
static inline it_dd it_dd_div(it_dd a, it_dd b)
{
    double q1, q2, q3;
    it_dd r, q;
    q1 = a.hi / b.hi;
    r = it_dd_add(a, it_dd_neg(it_dd_mul(b, (it_dd){q1, 0.0})));
    q2 = r.hi / b.hi;
    r = it_dd_add(r, it_dd_neg(it_dd_mul(b, (it_dd){q2, 0.0})));
    q3 = r.hi / b.hi;
    q = it_fast_two_sum(q1, q2);
    return it_dd_add(q, (it_dd){q3, 0.0});
}

/* ---------- rounding to binary32 ---------- */

/* Midpoint between the positive finite float with bits b and its upper
 * neighbour, as an exact double.  For FLT_MAX this is the overflow
 * boundary 2^128 - 2^103 (values at or above it round to +inf). */
static inline double it_mid_above(uint32_t b)
{
    if (b >= UINT32_C(0x7f7fffff))
        return 0x1.ffffffp+127;
    /* both floats are exact in double, their sum has <= 25 significant
     * bits (exact), and halving is exact far from the double subnormals */
    return ((double)it_u2f(b) + (double)it_u2f(b + 1u)) * 0.5;
}

/* |a|, by clearing the sign bit (branch-free). */
static inline double it_dabs(double a)
{
    return it_u2d(it_d2u(a) & UINT64_C(0x7fffffffffffffff));
}

/*
 * Fast-path rounding with a safety test.  y > 0 is a double approximation
 * of a real v > 0 with |v - y| <= e*y for some e well below `rel`.
 * Stores RN_binary32(y) in *out and returns 1 when y is farther than
 * rel*y from the binary32 rounding boundary on its side (then RN(v) ==
 * RN(y)); returns 0 ("too close, recompute") otherwise.  Handles the
 * subnormal range (spacing 2^-149; the boundary between 0 and 2^-149 is
 * 2^-150) and the overflow boundary.  Branch-free in the common case.
 */
static inline int it_round_checked(double y, double rel, float *out)
{
    float f = (float)y;
    uint32_t b = it_f2u(f);
    double fd = (double)f;
    /* y rounds to f, so it lies between the boundary below f and the one
     * above; the one on y's side of f is the only one within half an ulp */
    uint32_t up = (uint32_t)(fd <= y);
    double mid;
    if (b < UINT32_C(0x7f7fffff)) {
        /* neighbour on y's side; b >= 1 whenever fd > y because y > 0 */
        uint32_t nb = b - 1u + 2u * up;
        mid = ((double)f + (double)it_u2f(nb)) * 0.5; /* exact */
    } else if (up && b == UINT32_C(0x7f7fffff)) {
        mid = 0x1.ffffffp+127; /* FLT_MAX, y above it */
    } else if (b == UINT32_C(0x7f7fffff)) {
        mid = it_mid_above(b - 1u); /* FLT_MAX, y below it */
    } else {
        mid = 0x1.ffffffp+127; /* f == +inf: y >= the overflow boundary */
    }
    if (it_dabs(y - mid) <= y * rel)
        return 0;
    *out = f;
    return 1;
}

/*
 * Correct rounding (to nearest even) of the exact sum v = hi + lo to
 * binary32, for a normalized double-double (hi == RN64(v)) with hi > 0
 * finite.  Every binary32 rounding boundary m (a midpoint, <= 25
 * significant bits, or the overflow boundary 2^128 - 2^103) is a double.
 * If hi is not a boundary, RN32(v) == RN32(hi): a boundary m strictly
 * between hi and v would be a double closer to v than hi, contradicting
 * hi == RN64(v), and v == m would make v a double, so hi == v == m.
 * If hi is a boundary, the sign of lo decides; lo == 0 is an exact tie,
 * for which RN32(hi) already rounds to even.
 */
static inline float it_dd_to_float_pos(double hi, double lo)
{
    float f = (float)hi;
    uint32_t b = it_f2u(f);
    double fd = (double)f;
    if (fd < hi) {
        if (hi == it_mid_above(b) && lo > 0.0)
            return it_u2f(b + 1u); /* may become +inf: correct */
    } else if (fd > hi) {
        if (b == UINT32_C(0x7f800000)) {
            if (hi == 0x1.ffffffp+127 && lo < 0.0)
                return it_u2f(UINT32_C(0x7f7fffff));
        } else if (hi == it_mid_above(b - 1u) && lo < 0.0) {
            return it_u2f(b - 1u);
        }
    }
    return f;
}

/* Same for any finite nonzero hi (sign-symmetric rounding). */
static inline float it_dd_to_float(double hi, double lo)
{
    if (hi < 0.0)
        return -it_dd_to_float_pos(-hi, -lo);
    return it_dd_to_float_pos(hi, lo);
}

#endif /* ISOTRAIN_DOUBLE_DOUBLE_H */
