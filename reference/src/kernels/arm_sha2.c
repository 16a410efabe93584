/* SHA-256 compression (FIPS 180-4 §6.2.2) with the Armv8 SHA2 instructions
 * (sha256h, sha256h2, sha256su0, sha256su1), built with
 * -march=armv8-a+crypto (mk/reference.mk) and chosen by dispatch.c only when
 * AT_HWCAP has SHA2. Integer instructions: the same digest as sha256.c's
 * portable compression on every input (tests sha256::*, and
 * reference/tools/sha256_check.c under qemu-aarch64 -cpu cortex-a72).
 *
 * The working variables are two registers, ABCD and EFGH; sha256h and
 * sha256h2 each advance one half by four rounds from W[t] + K[t] of four
 * rounds (sha256h2 needs ABCD from before those rounds). sha256su0/su1
 * compute four schedule words: su0 gives W[t-16] + s0(W[t-15]), su1 adds
 * W[t-7] and s1(W[t-2]). */
#if defined(__aarch64__)
#ifndef __ARM_FEATURE_SHA2
#error "arm_sha2.c needs -march=armv8-a+crypto (mk/reference.mk)"
#endif
#include <arm_neon.h>
#include <stddef.h>
#include <stdint.h>

#include "kernels/kernels.h"

void it_sha256_blocks_armv8(uint32_t h[8], const unsigned char *p, size_t nblocks)
{
    uint32x4_t abcd = vld1q_u32(&h[0]), efgh = vld1q_u32(&h[4]);
    for (; nblocks > 0; nblocks--, p += 64) {
        const uint32x4_t abcd0 = abcd, efgh0 = efgh;
        uint32x4_t w[4];
        for (int g = 0; g < 16; g++) { /* rounds 4g .. 4g+3 */
            if (g < 4) /* big-endian words */
                w[g] = vreinterpretq_u32_u8(vrev32q_u8(vld1q_u8(p + 16 * g)));
            else /* w[g&3] held W[4g-16 ..]; then W[4g-12 ..], W[4g-8 ..], W[4g-4 ..] */
                w[g & 3] = vsha256su1q_u32(vsha256su0q_u32(w[g & 3], w[(g + 1) & 3]), w[(g + 2) & 3],
                                           w[(g + 3) & 3]);
            uint32x4_t wk = vaddq_u32(w[g & 3], vld1q_u32(&it_sha256_k[4 * g]));
            uint32x4_t before = abcd;
            abcd = vsha256hq_u32(abcd, efgh, wk);
            efgh = vsha256h2q_u32(efgh, before, wk);
        }
        abcd = vaddq_u32(abcd, abcd0);
        efgh = vaddq_u32(efgh, efgh0);
    }
    vst1q_u32(&h[0], abcd);
    vst1q_u32(&h[4], efgh);
}
#else
typedef int it_sha256_armv8_absent; /* other ISAs: an empty unit */
#endif
