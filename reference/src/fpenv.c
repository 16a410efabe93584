/* spec §2.1-§2.2: round to nearest even, subnormals kept. A process whose FPU
 * flushes subnormals (FTZ), reads them as zero (DAZ) or rounds another way
 * (fesetround) computes different bits, so the trainer probes the live
 * environment before it computes anything. */
#include "isotrain.h"

int it_fpenv_probe(it_fpenv_report *out)
{
    /* volatile keeps the compiler from folding these at build time: the
     * probe must run on the FPU, with whatever mode the process is in. */
    volatile float min_normal = 0x1p-126f;
    volatile float half = 0.5f;
    volatile float min_subnormal = 0x1p-149f;
    volatile float two_24 = 0x1p24f;

    volatile float one = 1.0f;
    volatile float half_ulp = 0x1p-24f;        /* half an ulp of 1 */
    volatile float three_quarter_ulp = 0x1.8p-24f;

    float below = min_normal * half;     /* exact result 2^-127: subnormal out */
    float lifted = min_subnormal * two_24; /* exact result 2^-125: subnormal in */
    /* Under RNE: a tie above 1 goes down to even 1, a tie below -1 goes up
     * to even -1, and 3/4 ulp goes up. Upward, downward and toward-zero
     * rounding each break at least one of the three. */
    float tie_up = one + half_ulp;
    float tie_down = -one - half_ulp;
    float past_half = one + three_quarter_ulp;

    it_fpenv_report r;
    r.ftz = it_f32_bits(below) != 0x00400000u;
    r.daz = it_f32_bits(lifted) != 0x01000000u;
    r.rounding = it_f32_bits(tie_up) != 0x3f800000u || it_f32_bits(tie_down) != 0xbf800000u ||
                 it_f32_bits(past_half) != 0x3f800001u;
    if (out)
        *out = r;
    return (r.ftz || r.daz || r.rounding) ? -1 : 0;
}
