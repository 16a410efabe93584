/* spec §8.2: SHA-256 against the FIPS 180-4 examples (and the long message
 * from its appendix), streamed in every split so block boundaries are hit. */
#include <string.h>

#include "testutil.h"

static void check(const char *msg, size_t len, const char *want)
{
    unsigned char d[32];
    char hex[65];
    it_sha256(msg, len, d);
    it_hex(d, 32, hex);
    cr_assert_str_eq(hex, want, "sha256 of %zu bytes", len);
}

Test(sha256, fips_180_4_examples)
{
    check("abc", 3, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    check(two, strlen(two), "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    check("", 0, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

Test(sha256, one_million_a)
{
    static char buf[1000000];
    memset(buf, 'a', sizeof buf);
    check(buf, sizeof buf, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

Test(sha256, streaming_equals_one_shot_at_every_split)
{
    unsigned char msg[200], one[32], two[32];
    for (size_t i = 0; i < sizeof msg; i++)
        msg[i] = (unsigned char)(i * 37 + 11);
    it_sha256(msg, sizeof msg, one);
    for (size_t split = 0; split <= sizeof msg; split++) {
        it_sha256_ctx c;
        it_sha256_init(&c);
        it_sha256_update(&c, msg, split);
        it_sha256_update(&c, msg + split, sizeof msg - split);
        it_sha256_final(&c, two);
        cr_assert(memcmp(one, two, 32) == 0, "split at %zu", split);
    }
}

Test(sha256, one_flipped_bit_changes_the_digest)
{
    unsigned char msg[64] = {0}, a[32], b[32];
    it_sha256(msg, sizeof msg, a);
    msg[63] ^= 1;
    it_sha256(msg, sizeof msg, b);
    cr_assert(memcmp(a, b, 32) != 0);
}

/* ---- every kernel set's compression (the CPU's SHA instructions where it
 * has them, kernels/dispatch.c) ------------------------------------------- */

#include <stdio.h>

#include "../tools/sha256_kats.h"

static int cpu_flag(const char *flag)
{
    char line[8192];
    int found = 0;
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return 0;
    while (!found && fgets(line, sizeof line, f))
        if (strncmp(line, "flags", 5) == 0 || strncmp(line, "Features", 8) == 0) {
            for (char *t = strtok(line, " \t\n:"); t && !found; t = strtok(NULL, " \t\n:"))
                found = strcmp(t, flag) == 0;
        }
    fclose(f);
    return found;
}

Test(sha256, every_kernel_set_gives_the_known_answers)
{
    const char *sets[16];
    size_t ns = it_kernels_available(sets, 16);
    unsigned char buf[256], d[32];
    char hex[65];
    int used_instructions = 0;
    for (size_t k = 0; k < ns; k++) {
        cr_assert_eq(it_kernels_select(sets[k]), 0);
        used_instructions |= strcmp(it_sha256_name(), "portable") != 0;
        if (strcmp(sets[k], "portable") == 0)
            cr_assert_str_eq(it_sha256_name(), "portable", "the portable set stays the definition");
        for (size_t i = 0; i < IT_SHA256_NKATS; i++) {
            size_t len = it_sha256_kat_msg(&IT_SHA256_KATS[i], buf, sizeof buf);
            it_sha256(buf, len, d);
            it_hex(d, 32, hex);
            cr_assert_str_eq(hex, IT_SHA256_KATS[i].md, "set %s (%s), known answer %zu (%zu bytes)", sets[k],
                             it_sha256_name(), i, len);
        }
    }
    /* not a portable-only pass on a CPU that has the instructions */
    if (cpu_flag("sha_ni") || cpu_flag("sha2"))
        cr_assert(used_instructions, "this CPU has SHA instructions but no kernel set used them");
    it_kernels_select(NULL);
}

/* Every prefix of 70,000 pseudo-random bytes (every padding case, block
 * counts up to 1,094), one byte at a time and in one call, equal on every
 * set to the portable definition; the 2 MiB version runs natively and under
 * qemu-aarch64 in make check-sha256. */
Test(sha256, every_prefix_equals_the_portable_definition_on_every_set, .timeout = 120)
{
    enum { N = 70000 };
    static unsigned char msg[N], want[N + 1][32];
    uint32_t s = 99;
    for (size_t i = 0; i < N; i++) {
        s = s * 1664525u + 1013904223u;
        msg[i] = (unsigned char)(s >> 24);
    }
    const char *sets[16];
    size_t ns = it_kernels_available(sets, 16);
    cr_assert_eq(it_kernels_select("portable"), 0);
    it_sha256_ctx c, f;
    it_sha256_init(&c);
    for (size_t len = 0; len <= N; len++) {
        f = c;
        it_sha256_final(&f, want[len]);
        if (len < N)
            it_sha256_update(&c, msg + len, 1);
    }
    for (size_t k = 0; k < ns; k++) {
        cr_assert_eq(it_kernels_select(sets[k]), 0);
        unsigned char d[32];
        it_sha256_init(&c);
        for (size_t len = 0; len <= N; len++) {
            f = c;
            it_sha256_final(&f, d);
            cr_assert(memcmp(d, want[len], 32) == 0, "set %s (%s): prefix of %zu bytes, streamed", sets[k],
                      it_sha256_name(), len);
            if (len % 97 == 0 || len + 64 > N) {
                it_sha256(msg, len, d);
                cr_assert(memcmp(d, want[len], 32) == 0, "set %s (%s): prefix of %zu bytes, one call", sets[k],
                          it_sha256_name(), len);
            }
            if (len < N)
                it_sha256_update(&c, msg + len, 1);
        }
    }
    it_kernels_select(NULL);
}

/* spec §8.2: the checkpoint digest hashes the §8.1 bytes, however the
 * host stores floats (on a little-endian host straight from the array) */
Test(sha256, params_digest_is_the_digest_of_the_little_endian_bytes)
{
    float p[1000];
    unsigned char bytes[4000], d[32];
    char want[65], got[65];
    for (size_t i = 0; i < 1000; i++)
        p[i] = (float)i * 0.37f - 100.0f;
    it_store_f32le(p, 1000, bytes);
    it_sha256(bytes, sizeof bytes, d);
    it_hex(d, 32, want);
    it_params_digest(p, 1000, got);
    cr_assert_str_eq(got, want);
}

/* spec §8.1: least significant byte first, whatever the host's order; the
 * bytes of 1.0f, -2.5f and the smallest subnormal spelled out, and the load
 * is the store's inverse on every bit pattern class. */
Test(sha256, f32le_bytes_are_least_significant_first)
{
    const float v[3] = {1.0f, -2.5f, it_f32_from_bits(0x00000001u)};
    const unsigned char want[12] = {0x00, 0x00, 0x80, 0x3f, 0x00, 0x00, 0x20, 0xc0, 0x01, 0x00, 0x00, 0x00};
    unsigned char got[12];
    float back[3];
    it_store_f32le(v, 3, got);
    cr_assert(memcmp(got, want, sizeof want) == 0, "it_store_f32le wrote %02x %02x %02x %02x ...", got[0], got[1],
              got[2], got[3]);
    it_load_f32le(got, 3, back);
    for (int i = 0; i < 3; i++)
        cr_assert_eq(it_f32_bits(back[i]), it_f32_bits(v[i]), "element %d", i);
}
