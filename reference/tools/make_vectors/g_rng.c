/* Groups philox (spec 6.1: Random123's known answers) and rng (6.2
 * addressing, 6.3 and 6.4 conversions). */
#include "mv.h"

/* ---- group: philox (spec 6.1) ---------------------------------------------------------------------- */

static void philox_case(group *g, const uint32_t ctr[4], const uint32_t key[2], const uint32_t *want,
                        unsigned flags, const char *why)
{
    uint32_t out[4];
    it_philox4x32_10(ctr, key, out);
    if (want)
        for (int i = 0; i < 4; i++)
            require(out[i] == want[i], "philox lane %d: %08x, published %08x", i, (unsigned)out[i], (unsigned)want[i]);
    op_case(g, "philox", flags, VALS(IN_U32("ctr", ctr, 4), IN_U32("key", key, 2), OUT_U32("out", out, 4)), why);
}

void gen_philox(void)
{
    group g;
    group_begin(&g, "philox", "6.1");
    {
        const uint32_t c[4] = {0, 0, 0, 0}, k[2] = {0, 0};
        const uint32_t w[4] = {0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u};
        philox_case(&g, c, k, w, FL(EDGE), "Random123 known-answer test: counter and key all zeros");
    }
    {
        const uint32_t c[4] = {0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu}, k[2] = {0xffffffffu, 0xffffffffu};
        const uint32_t w[4] = {0x408f276du, 0x41c83b0eu, 0xa20bc7c6u, 0x6d5451fdu};
        philox_case(&g, c, k, w, FL(EDGE), "Random123 known-answer test: counter and key all ones");
    }
    {
        const uint32_t c[4] = {0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u}, k[2] = {0xa4093822u, 0x299f31d0u};
        const uint32_t w[4] = {0xd16cfe09u, 0x94fdccebu, 0x5001e420u, 0x24126ea1u};
        philox_case(&g, c, k, w, 0, "Random123 known-answer test: the digits of pi");
    }
    const uint32_t key[2] = {(uint32_t)recipe.seed, (uint32_t)(recipe.seed >> 32)};
    static const struct {
        uint32_t stream;
        const char *what;
    } streams[4] = {{0, "embed"}, {1, "w1"}, {3, "w2"}, {5, "batch sampling"}};
    for (int i = 0; i < 4; i++) {
        const uint32_t c[4] = {0, 0, streams[i].stream, 0};
        philox_case(&g, c, key, NULL, FL(TYPICAL), say("the first block of stream %u (%s) under the mlp13k seed",
                    (unsigned)streams[i].stream, streams[i].what));
    }
    {
        const uint32_t c[4] = {0x12345678u, 0x00000001u, 5, 0};
        philox_case(&g, c, key, NULL, FL(EDGE),
                    "a block beyond 2^32: the counter's second word is the high half of the block number");
    }
    group_end(&g);
}

/* ---- group: rng (spec 6.2 addressing, 6.3 and 6.4 conversions) ------------------------------------ */

static void rng_case(group *g, uint64_t seed, uint32_t stream, uint64_t index, size_t count, unsigned flags,
                     const char *why)
{
    uint32_t r[64];
    require(count <= 64, "rng case too long");
    for (size_t i = 0; i < count; i++)
        r[i] = it_rng_u32(seed, stream, index + i);
    op_case(g, "rng_u32", flags,
            VALS(IN_U64("seed", seed), IN_INT("stream", stream), IN_U64("index", index), IN_INT("count", count),
                 OUT_U32("r", r, count)),
            why);
}

static void sym_case(group *g, const uint32_t *r, size_t n, unsigned flags, const char *why)
{
    float y[64];
    require(n <= 64, "case too long");
    for (size_t i = 0; i < n; i++)
        y[i] = it_u32_to_symmetric(r[i]);
    op_case(g, "u32_to_symmetric", flags, VALS(IN_U32("r", r, n), OUT_F32("y", y, n)), why);
}

static void below_case(group *g, const uint32_t *r, size_t n, uint32_t bound, unsigned flags, const char *why)
{
    uint32_t k[64];
    require(n <= 64, "case too long");
    for (size_t i = 0; i < n; i++)
        k[i] = it_u32_below(r[i], bound);
    op_case(g, "u32_below", flags, VALS(IN_U32("r", r, n), IN_INT("n", bound), OUT_U32("k", k, n)), why);
}

void gen_rng(void)
{
    group g;
    group_begin(&g, "rng", "6");
    const uint64_t seed = recipe.seed;
    rng_case(&g, seed, 0, 0, 8, FL(TYPICAL), "words 0..7 of stream 0 (embed init): lanes 0..3 of blocks 0 and 1");
    rng_case(&g, seed, 5, 0, 64, FL(TYPICAL), "words 0..63 of stream 5: the sampling words of step 1");
    rng_case(&g, seed, 5, 64 * 199, 64, FL(TYPICAL), "words 12736..12799 of stream 5: the sampling words of step 200");
    rng_case(&g, seed, 1, 3, 2, FL(EDGE), "words 3 and 4: lane 3 of block 0, then lane 0 of block 1");
    rng_case(&g, seed, 2, ((uint64_t)1 << 34) - 2, 4, FL(EDGE),
             "words 2^34-2 .. 2^34+1: block 2^32-1 to block 2^32, where the counter's high word becomes 1");
    rng_case(&g, seed, 0, UINT64_MAX - 3, 4, FL(EDGE), "the last four words of a stream, index 2^64-4 .. 2^64-1");
    rng_case(&g, seed, UINT32_MAX, 0, 4, FL(EDGE), "stream 2^32-1: the stream number is the third counter word");
    rng_case(&g, 0, 0, 0, 4, FL(EDGE), "seed 0: the key is (0, 0)");
    rng_case(&g, UINT64_MAX, 7, 100, 4, FL(EDGE), "seed 2^64-1: both key words all ones");
    rng_case(&g, 0x0000000100000000ull, 0, 0, 4, FL(EDGE), "seed 2^32: only the key's second (high) word is set");

    {
        const uint32_t r[10] = {0x00000000u, 0x000000ffu, 0x00000100u, 0x7fffff00u, 0x7fffffffu,
                                0x80000000u, 0x800000ffu, 0x80000100u, 0xffffff00u, 0xffffffffu};
        require(U(it_u32_to_symmetric(0)) == 0xbf800000u && U(it_u32_to_symmetric(0x80000000u)) == 0 &&
                    U(it_u32_to_symmetric(0xffffffffu)) == 0x3f7ffffeu,
                "u32_to_symmetric edges");
        sym_case(&g, r, 10, FL(EDGE) | FL(SPECIAL),
                 "the edges of (r >> 8) * 2^-23 - 1: 0 -> -1, 2^31 -> +0 (not -0), 2^32-1 -> 1 - 2^-23; the low 8 "
                 "bits never matter");
    }
    {
        uint32_t r[64];
        for (int i = 0; i < 64; i++)
            r[i] = it_rng_u32(seed, 1, (uint64_t)i);
        sym_case(&g, r, 64, FL(TYPICAL), "the first 64 words of stream 1, which (times 1/4) become w1's first values");
    }
    {
        const uint32_t r[2] = {0x00000000u, 0xffffffffu};
        below_case(&g, r, 2, 1, FL(EDGE), "n = 1: every word maps to 0");
    }
    {
        const uint32_t r[4] = {0xffffffffu, 0x00000000u, 0x00000001u, 0x80000000u};
        below_case(&g, r, 4, UINT32_MAX, FL(EDGE), "n = 2^32-1: floor(r * n / 2^32) near both ends");
    }
    {
        const uint32_t r[5] = {0x55555555u, 0x55555556u, 0xaaaaaaaau, 0xaaaaaaabu, 0xffffffffu};
        int differs = 0;
        for (int i = 0; i < 5; i++)
            differs |= it_u32_below(r[i], 3) != r[i] % 3;
        require(differs, "multiply-shift and modulo agree on the n = 3 case");
        below_case(&g, r, 5, 3, FL(EDGE),
                   "n = 3 at the boundaries of multiply-shift: r * 3 / 2^32 steps at 0x55555556 and 0xaaaaaaab "
                   "(r mod 3 gives other values)");
    }
    {
        const uint32_t r[3] = {0xffffffffu, 0x00ffffffu, 0x01000000u};
        below_case(&g, r, 3, 256, FL(EDGE), "n = 256: the top byte of r");
    }
    {
        uint32_t r[64];
        const uint32_t pairs = (uint32_t)(recipe.corpus_len - 1);
        for (int i = 0; i < 64; i++) {
            r[i] = it_rng_u32(seed, 5, (uint64_t)i);
            require(recipe.corpus[it_u32_below(r[i], pairs)] == batch_x[1][i], "sampling rebuild, position %d", i);
        }
        below_case(&g, r, 64, pairs, FL(TYPICAL), say("the 64 sampling words of step 1 and n = corpus length - 1 (%u): the corpus offsets of step 1",
                   (unsigned)pairs));
    }
    group_end(&g);
}
