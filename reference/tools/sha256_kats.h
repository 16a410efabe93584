/* SHA-256 known answers (spec §8.2), shared by reference/tests/test_sha256.c
 * and reference/tools/sha256_check.c:
 * - FIPS 180-4's examples (NIST "Cryptographic Standards and Guidelines:
 *   Examples with Intermediate Values", SHA-256): "abc" (one block), the
 *   448-bit message (padding spills into a second block), the 896-bit
 *   message (two blocks of message), and one million 'a' (in the check
 *   program);
 * - NIST CAVP SHAVS byte-oriented vectors, SHA256ShortMsg.rsp: the lengths
 *   around the padding boundaries (0, 1, 2, 3, 55, 56, 63, 64 bytes), read
 *   from the published .rsp set (as transcribed in the public
 *   coruus/nist-testvectors repository) and checked against coreutils'
 *   sha256sum before they were written here. */
#ifndef IT_SHA256_KATS_H
#define IT_SHA256_KATS_H

typedef struct {
    const char *msg; /* hex, or text when text is 1 */
    int text;
    const char *md;
} it_sha256_kat;

static const it_sha256_kat IT_SHA256_KATS[] = {
    {"abc", 1, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
    {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 1,
     "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
    {"abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopq"
     "rstu",
     1, "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"},
    /* SHA256ShortMsg.rsp */
    {"", 0, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
    {"d3", 0, "28969cdfa74a12c82f3bad960b0b000aca2ac329deea5c2328ebc6f2ba9802c1"},
    {"11af", 0, "5ca7133fa735326081558ac312c620eeca9970d1e70a4b95533d956f072d1f98"},
    {"b4190e", 0, "dff2e73091f6c05e528896c4c831b9448653dc2ff043528f6769437bc7b975c2"},
    {"3ebfb06db8c38d5ba037f1363e118550aad94606e26835a01af05078533cc25f2f39573c04b632f62f68c294ab31f2a3e2a1a0d8c2be51",
     0, "6595a2ef537a69ba8583dfbf7f5bec0ab1f93ce4c8ee1916eff44a93af5749c4"},
    {"2d52447d1244d2ebc28650e7b05654bad35b3a68eedc7f8515306b496d75f3e73385dd1b002625024b81a02f2fd6dffb6e6d561cb7d0bd7"
     "a",
     0, "cfb88d6faf2de3a69d36195acec2e255e2af2b7d933997f348e09f6ce5758360"},
    {"e2f76e97606a872e317439f1a03fcd92e632e5bd4e7cbc4e97f1afc19a16fde92d77cbe546416b51640cddb92af996534dfd81edb17c44"
     "24cf1ac4d75aceeb",
     0, "18041bd4665083001fba8c5411d2d748e8abbfdcdfd9218cb02b68a78e7d4c23"},
    {"5a86b737eaea8ee976a0a24da63e7ed7eefad18a101c1211e2b3650c5187c2a8a650547208251f6d4237e661c7bf4c77f335390394c37f"
     "a1a9f9be836ac28509",
     0, "42e61e174fbb3897d6dd6cef3dd2802fe67b331953b06114a65c772859dfc1aa"},
};
#define IT_SHA256_NKATS (sizeof IT_SHA256_KATS / sizeof IT_SHA256_KATS[0])
/* FIPS 180-4 example: one million repetitions of 'a' */
#define IT_SHA256_MILLION_A "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"

/* The message of a KAT into buf (cap bytes); returns its length. */
static size_t it_sha256_kat_msg(const it_sha256_kat *k, unsigned char *buf, size_t cap)
{
    size_t n = 0;
    if (k->text) {
        for (; k->msg[n] && n < cap; n++)
            buf[n] = (unsigned char)k->msg[n];
        return n;
    }
    for (; k->msg[2 * n] && n < cap; n++) {
        unsigned v = 0;
        for (int d = 0; d < 2; d++) {
            char c = k->msg[2 * n + d];
            v = v * 16 + (unsigned)(c <= '9' ? c - '0' : c - 'a' + 10);
        }
        buf[n] = (unsigned char)v;
    }
    return n;
}

#endif
