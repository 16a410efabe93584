/* Square root, correctly rounded (spec §3.6), in integers only.
 *
 * C's sqrtf lives in libm, which the reference does not link (DESIGN.md: libc
 * only, so a static build runs under qemu with no sysroot), and a hardware
 * square root is reachable from portable C only through it. The integer
 * method below is exact by construction: the root of the significand is
 * computed to 28-29 bits with its remainder, so the rounding decision sees
 * the round bit and a sticky bit that is exactly "remainder != 0". Every
 * binary32 square root is a normal number, so no subnormal result occurs.
 * reference/tests/test_addmod113.c compares it with the CPU's IEEE square
 * root (sqrtss) on every positive finite input class and a dense sample. */
#include <stdint.h>

#include "isotrain.h"

/* floor(sqrt(x)) and the remainder x - root^2, bit by bit (two bits of x per
 * bit of root). Each step's choice is a mask rather than a branch: the
 * choices are as good as random, and a mispredicted branch per bit made
 * this the slowest part of the portable AdamW. */
static uint64_t isqrt64(uint64_t x, uint64_t *rem)
{
    uint64_t root = 0, bit = 1ull << 62;
    while (bit > x)
        bit >>= 2;
    while (bit) {
        uint64_t trial = root + bit;
        uint64_t take = (uint64_t)0 - (uint64_t)(x >= trial); /* all ones when the bit is set */
        x -= trial & take;
        root = (root >> 1) + (bit & take);
        bit >>= 2;
    }
    *rem = x;
    return root;
}

float it_sqrtf(float x)
{
    uint32_t u = it_f32_bits(x);
    if ((u & 0x7fffffffu) == 0)
        return x; /* sqrt(+-0) = +-0 (IEEE 754 §9.2) */
    if (u > 0x7f800000u && u < 0x80000000u)
        return x + x; /* NaN in, quiet NaN out */
    if (u >> 31)
        return it_f32_from_bits(0x7fc00000u); /* negative (incl. -inf, -NaN): invalid */
    if (u == 0x7f800000u)
        return x; /* +inf */
    int32_t e = (int32_t)(u >> 23);
    uint64_t m = u & 0x7fffffu;
    if (e == 0) { /* subnormal: value m * 2^-149; normalize the significand */
        e = 1;
        while (m < 0x800000u) {
            m <<= 1;
            e--;
        }
    } else {
        m |= 0x800000u;
    }
    /* x = m * 2^E with m in [2^23, 2^24); make E even so the root of 2^E is exact */
    int32_t E = e - 150;
    if (E & 1) {
        m <<= 1;
        E -= 1;
    }
    /* sqrt(x) = sqrt(m * 2^32) * 2^((E - 32) / 2); m * 2^32 < 2^57 */
    uint64_t rem;
    uint64_t r = isqrt64(m << 32, &rem);
    int32_t s = (E - 32) / 2; /* exact: E is even */
    int nbits = 0;
    for (uint64_t t = r; t; t >>= 1)
        nbits++;
    int shift = nbits - 24; /* 4 or 5 */
    uint64_t keep = r >> shift, low = r & ((1ull << shift) - 1), half = 1ull << (shift - 1);
    /* round to nearest, ties to even; the remainder makes anything at the
     * half-way point strictly above it (an exact tie is impossible, but the
     * rule is written out in full) */
    if (low > half || (low == half && (rem != 0 || (keep & 1))))
        keep++;
    int32_t exp2 = s + shift;
    if (keep == (1ull << 24)) {
        keep >>= 1;
        exp2++;
    }
    uint32_t biased = (uint32_t)(exp2 + 23 + 127);
    return it_f32_from_bits((biased << 23) | ((uint32_t)keep & 0x7fffffu));
}
