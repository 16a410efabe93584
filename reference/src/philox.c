/* Counter-based random numbers (spec §6). Everything random in a profile is
 * a pure function of (seed, stream, index), so any step can be recomputed
 * without replaying the ones before it. */
#include "isotrain.h"

/* spec §6.1: Philox4x32-10 (Salmon et al., SC'11), Random123's constants. */
#define PHILOX_M0 0xD2511F53u
#define PHILOX_M1 0xCD9E8D57u
#define PHILOX_W0 0x9E3779B9u
#define PHILOX_W1 0xBB67AE85u

void it_philox4x32_10(const uint32_t ctr[4], const uint32_t key[2], uint32_t out[4])
{
    uint32_t c0 = ctr[0], c1 = ctr[1], c2 = ctr[2], c3 = ctr[3];
    uint32_t k0 = key[0], k1 = key[1];
    for (int round = 0; round < 10; round++) {
        uint64_t p0 = (uint64_t)PHILOX_M0 * c0;
        uint64_t p1 = (uint64_t)PHILOX_M1 * c2;
        uint32_t n0 = (uint32_t)(p1 >> 32) ^ c1 ^ k0;
        uint32_t n1 = (uint32_t)p1;
        uint32_t n2 = (uint32_t)(p0 >> 32) ^ c3 ^ k1;
        uint32_t n3 = (uint32_t)p0;
        c0 = n0; c1 = n1; c2 = n2; c3 = n3;
        k0 += PHILOX_W0; /* the key schedule bumps after every round; */
        k1 += PHILOX_W1; /* the bump after the tenth is simply unused */
    }
    out[0] = c0; out[1] = c1; out[2] = c2; out[3] = c3;
}

/* spec §6.2: word `index` of a stream is lane (index mod 4) of the block
 * whose counter is (index/4 low 32 bits, index/4 high 32 bits, stream, 0),
 * keyed by the seed's low and high 32 bits. */
uint32_t it_rng_u32(uint64_t seed, uint32_t stream, uint64_t index)
{
    uint64_t block = index >> 2;
    const uint32_t ctr[4] = {(uint32_t)block, (uint32_t)(block >> 32), stream, 0};
    const uint32_t key[2] = {(uint32_t)seed, (uint32_t)(seed >> 32)};
    uint32_t out[4];
    it_philox4x32_10(ctr, key, out);
    return out[index & 3];
}

/* spec §6.3: the top 24 bits as a signed integer offset by 2^23, times 2^-23.
 * Both steps are exact in binary32, so the value is the same on any host. */
float it_u32_to_symmetric(uint32_t r)
{
    int32_t k = (int32_t)(r >> 8) - 0x800000;
    return (float)k * 0x1p-23f;
}

/* spec §6.4: multiply-shift instead of modulo; no division, no rejection. */
uint32_t it_u32_below(uint32_t r, uint32_t n)
{
    return (uint32_t)(((uint64_t)r * n) >> 32);
}
