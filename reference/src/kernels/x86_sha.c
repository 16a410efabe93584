/* SHA-256 compression (FIPS 180-4 §6.2.2) with the x86 SHA extensions
 * (sha256rnds2, sha256msg1, sha256msg2), built with -msha -msse4.1
 * (mk/reference.mk) and chosen by dispatch.c only when CPUID says SHA,
 * SSSE3 and SSE4.1 are there. Integer instructions: the digest is defined
 * bit for bit, so it equals sha256.c's portable compression on every input
 * (tests sha256::*, reference/tools/sha256_check.c under every kernel set).
 *
 * The instructions keep the eight working variables as two registers,
 * ABEF and CDGH (lane 3 down to lane 0: A B E F, C D G H), and do two
 * rounds per sha256rnds2 from the low two words of W[t] + K[t]; after two
 * rounds the old ABEF is the new CDGH, so the two registers swap roles
 * every call. sha256msg1/msg2 compute the message schedule four words at a
 * time: msg1 gives W[t-16] + s0(W[t-15]), to which W[t-7] is added, and
 * msg2 adds s1(W[t-2]) (including the words this group itself produces). */
#if defined(__x86_64__)
#ifndef __SHA__
#error "x86_sha.c needs -msha -msse4.1 (mk/reference.mk)"
#endif
#include <immintrin.h>
#include <stddef.h>
#include <stdint.h>

#include "kernels/kernels.h"

void it_sha256_blocks_shani(uint32_t h[8], const unsigned char *p, size_t nblocks)
{
    const __m128i bswap = _mm_set_epi64x(0x0c0d0e0f08090a0bLL, 0x0405060700010203LL); /* big-endian words */
    /* h = A B C D | E F G H (lane 0 first) -> ABEF = (F, E, B, A), CDGH = (H, G, D, C) */
    __m128i abcd = _mm_loadu_si128((const __m128i *)&h[0]);
    __m128i efgh = _mm_loadu_si128((const __m128i *)&h[4]);
    __m128i badc = _mm_shuffle_epi32(abcd, 0xb1);          /* B A D C */
    __m128i hgfe = _mm_shuffle_epi32(efgh, 0x1b);          /* H G F E */
    __m128i abef = _mm_alignr_epi8(badc, hgfe, 8);         /* F E B A */
    __m128i cdgh = _mm_blend_epi16(hgfe, badc, 0xf0);      /* H G D C */
    for (; nblocks > 0; nblocks--, p += 64) {
        const __m128i abef0 = abef, cdgh0 = cdgh;
        __m128i w[4];
        for (int g = 0; g < 16; g++) { /* rounds 4g .. 4g+3 */
            __m128i *cur = &w[g & 3];
            if (g < 4) {
                *cur = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(p + 16 * g)), bswap);
            } else {
                /* W[4g ..]: w[g&3] holds W[4g-16 ..], the next W[4g-12 ..],
                 * then W[4g-8 ..] and W[4g-4 ..] */
                __m128i t = _mm_sha256msg1_epu32(*cur, w[(g + 1) & 3]);
                t = _mm_add_epi32(t, _mm_alignr_epi8(w[(g + 3) & 3], w[(g + 2) & 3], 4)); /* W[4g-7 ..] */
                *cur = _mm_sha256msg2_epu32(t, w[(g + 3) & 3]);
            }
            __m128i wk = _mm_add_epi32(*cur, _mm_loadu_si128((const __m128i *)&it_sha256_k[4 * g]));
            cdgh = _mm_sha256rnds2_epu32(cdgh, abef, wk); /* rounds 4g, 4g+1: the new ABEF */
            wk = _mm_shuffle_epi32(wk, 0x0e);             /* words 2, 3 into the low half */
            abef = _mm_sha256rnds2_epu32(abef, cdgh, wk); /* rounds 4g+2, 4g+3 */
        }
        abef = _mm_add_epi32(abef, abef0);
        cdgh = _mm_add_epi32(cdgh, cdgh0);
    }
    /* back to A B C D | E F G H */
    __m128i feba = _mm_shuffle_epi32(abef, 0x1b); /* A B E F in lanes 0..3 */
    __m128i dchg = _mm_shuffle_epi32(cdgh, 0xb1); /* G H C D */
    abcd = _mm_blend_epi16(feba, dchg, 0xf0);      /* A B C D */
    efgh = _mm_alignr_epi8(dchg, feba, 8);         /* E F G H */
    _mm_storeu_si128((__m128i *)&h[0], abcd);
    _mm_storeu_si128((__m128i *)&h[4], efgh);
}
#else
typedef int it_sha256_shani_absent; /* other ISAs: an empty unit */
#endif
