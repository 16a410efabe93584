/* spec §2.2: subnormals are kept. A process whose FPU flushes them (FTZ) or
 * reads them as zero (DAZ) computes different bits, so the trainer probes the
 * live environment before it computes anything. */
#include "isotrain.h"

int it_fpenv_probe(it_fpenv_report *out)
{
    /* volatile keeps the compiler from folding these at build time: the
     * probe must run on the FPU, with whatever mode the process is in. */
    volatile float min_normal = 0x1p-126f;
    volatile float half = 0.5f;
    volatile float min_subnormal = 0x1p-149f;
    volatile float two_24 = 0x1p24f;

    float below = min_normal * half;     /* exact result 2^-127: subnormal out */
    float lifted = min_subnormal * two_24; /* exact result 2^-125: subnormal in */

    it_fpenv_report r;
    r.ftz = it_f32_bits(below) != 0x00400000u;
    r.daz = it_f32_bits(lifted) != 0x01000000u;
    if (out)
        *out = r;
    return (r.ftz || r.daz) ? -1 : 0;
}
