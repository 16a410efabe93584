/* spec §6: Philox4x32-10 against Random123's published known answers
 * (kat_vectors: counter, key -> output), then the addressing and the two
 * conversions, pinned at their edges. */
#include "testutil.h"

static void kat(const uint32_t ctr[4], const uint32_t key[2], const uint32_t want[4])
{
    uint32_t out[4];
    it_philox4x32_10(ctr, key, out);
    for (int i = 0; i < 4; i++)
        cr_assert(out[i] == want[i], "lane %d: got %08x want %08x", i, out[i], want[i]);
}

Test(philox, random123_kat_zero)
{
    const uint32_t c[4] = {0, 0, 0, 0}, k[2] = {0, 0};
    const uint32_t w[4] = {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8};
    kat(c, k, w);
}

Test(philox, random123_kat_ones)
{
    const uint32_t c[4] = {0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff};
    const uint32_t k[2] = {0xffffffff, 0xffffffff};
    const uint32_t w[4] = {0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd};
    kat(c, k, w);
}

Test(philox, random123_kat_pi)
{
    const uint32_t c[4] = {0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344};
    const uint32_t k[2] = {0xa4093822, 0x299f31d0};
    const uint32_t w[4] = {0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1};
    kat(c, k, w);
}

/* spec §6.2: word i is lane i%4 of block i/4; the block's high counter word
 * and the stream and the seed's high half all reach the output. */
Test(philox, addressing_matches_raw_blocks)
{
    const uint64_t seed = 0x1122334455667788ull;
    const uint64_t indices[] = {0, 1, 2, 3, 4, 7, 0x3ffffffffull, 0x400000000ull, 0x123456789abull};
    for (size_t n = 0; n < sizeof indices / sizeof indices[0]; n++) {
        uint64_t i = indices[n], block = i >> 2;
        const uint32_t c[4] = {(uint32_t)block, (uint32_t)(block >> 32), 9, 0};
        const uint32_t k[2] = {0x55667788, 0x11223344};
        uint32_t out[4];
        it_philox4x32_10(c, k, out);
        cr_assert(it_rng_u32(seed, 9, i) == out[i & 3], "index %llu", (unsigned long long)i);
    }
    cr_assert(it_rng_u32(seed, 9, 0) != it_rng_u32(seed, 10, 0));
    cr_assert(it_rng_u32(seed, 9, 0) != it_rng_u32(seed ^ (1ull << 40), 9, 0));
    cr_assert(it_rng_u32(seed, 9, 0) != it_rng_u32(seed, 9, 1ull << 34));
}

/* spec §6.3: exact values at the ends and the middle. */
Test(philox, symmetric_conversion_edges)
{
    assert_bits(it_u32_to_symmetric(0x00000000u), 0xbf800000u, "(r=0 -> -1)");
    assert_bits(it_u32_to_symmetric(0x000000ffu), 0xbf800000u, "(low 8 bits ignored)");
    assert_bits(it_u32_to_symmetric(0x80000000u), 0x00000000u, "(r=2^31 -> +0)");
    assert_bits(it_u32_to_symmetric(0x7fffff00u), 0xb4000000u, "(-2^-23)");
    assert_bits(it_u32_to_symmetric(0xffffffffu), 0x3f7ffffeu, "(1 - 2^-23)");
}

/* spec §6.4 */
Test(philox, bounded_integer_edges)
{
    cr_assert_eq(it_u32_below(0, 2623), 0);
    cr_assert_eq(it_u32_below(0xffffffffu, 2623), 2622);
    cr_assert_eq(it_u32_below(0x80000000u, 2623), 1311);
    cr_assert_eq(it_u32_below(0xffffffffu, 1), 0);
}
