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
