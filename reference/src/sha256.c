/* SHA-256 as FIPS 180-4 §6.2 defines it (spec §8.2: the checkpoint digest).
 * The compression below is the readable definition; the CPU's SHA
 * instructions (kernels/x86_sha.c, kernels/arm_sha2.c) compute the same
 * bits faster, chosen by kernels/dispatch.c with the kernel set: a digest
 * at every step is what the runner certifies, so it is on the fast path. */
#include <string.h>

#include "isotrain.h"
#include "kernels/kernels.h"

/* FIPS 180-4 §4.2.2 */
const uint32_t it_sha256_k[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static uint32_t rotr(uint32_t x, unsigned n) { return (x >> n) | (x << (32 - n)); }

static void compress(uint32_t h[8], const unsigned char block[64])
{
    const uint32_t *K = it_sha256_k;
    uint32_t w[64];
    for (int t = 0; t < 16; t++)
        w[t] = (uint32_t)block[4 * t] << 24 | (uint32_t)block[4 * t + 1] << 16 |
               (uint32_t)block[4 * t + 2] << 8 | (uint32_t)block[4 * t + 3];
    for (int t = 16; t < 64; t++) {
        uint32_t s0 = rotr(w[t - 15], 7) ^ rotr(w[t - 15], 18) ^ (w[t - 15] >> 3);
        uint32_t s1 = rotr(w[t - 2], 17) ^ rotr(w[t - 2], 19) ^ (w[t - 2] >> 10);
        w[t] = w[t - 16] + s0 + w[t - 7] + s1;
    }
    uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], k = h[7];
    for (int t = 0; t < 64; t++) {
        uint32_t t1 = k + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + K[t] + w[t];
        uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
        k = g; g = f; f = e; e = d + t1; d = c; c = b; b = a; a = t1 + t2;
    }
    h[0] += a; h[1] += b; h[2] += c; h[3] += d; h[4] += e; h[5] += f; h[6] += g; h[7] += k;
}

/* FIPS 180-4 §6.2.2 for nblocks consecutive blocks */
void it_sha256_blocks_portable(uint32_t h[8], const unsigned char *p, size_t nblocks)
{
    for (; nblocks > 0; nblocks--, p += 64)
        compress(h, p);
}

void it_sha256_init(it_sha256_ctx *c)
{
    static const uint32_t iv[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                   0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    memcpy(c->h, iv, sizeof iv);
    c->length = 0;
    c->used = 0;
}

void it_sha256_update(it_sha256_ctx *c, const void *data, size_t len)
{
    const unsigned char *p = data;
    it_sha256_blocks_fn blocks = it_sha256_blocks();
    c->length += len;
    if (c->used > 0) { /* top up a partly filled block first */
        size_t take = 64 - c->used < len ? 64 - c->used : len;
        memcpy(c->block + c->used, p, take);
        c->used += take;
        p += take;
        len -= take;
        if (c->used < 64)
            return;
        blocks(c->h, c->block, 1);
        c->used = 0;
    }
    /* whole blocks straight from the input: the exp/log sweeps hash 16 GiB */
    if (len >= 64) {
        blocks(c->h, p, len / 64);
        p += len / 64 * 64;
        len %= 64;
    }
    memcpy(c->block, p, len);
    c->used = len;
}

void it_sha256_final(it_sha256_ctx *c, unsigned char digest[32])
{
    uint64_t bits = c->length * 8;
    unsigned char pad = 0x80;
    it_sha256_update(c, &pad, 1);
    pad = 0;
    while (c->used != 56)
        it_sha256_update(c, &pad, 1);
    unsigned char len_be[8];
    for (int i = 0; i < 8; i++)
        len_be[i] = (unsigned char)(bits >> (56 - 8 * i));
    it_sha256_update(c, len_be, 8);
    for (int i = 0; i < 8; i++) {
        digest[4 * i] = (unsigned char)(c->h[i] >> 24);
        digest[4 * i + 1] = (unsigned char)(c->h[i] >> 16);
        digest[4 * i + 2] = (unsigned char)(c->h[i] >> 8);
        digest[4 * i + 3] = (unsigned char)c->h[i];
    }
}

void it_sha256(const void *data, size_t len, unsigned char digest[32])
{
    it_sha256_ctx c;
    it_sha256_init(&c);
    it_sha256_update(&c, data, len);
    it_sha256_final(&c, digest);
}

void it_hex(const unsigned char *bytes, size_t len, char *out)
{
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < len; i++) {
        out[2 * i] = digits[bytes[i] >> 4];
        out[2 * i + 1] = digits[bytes[i] & 15];
    }
    out[2 * len] = '\0';
}

/* 1 when a binary32's bytes in memory are already spec §8.1's order */
static int stored_little_endian(void)
{
    const float one = 1.0f; /* 0x3f800000 */
    unsigned char b[4];
    memcpy(b, &one, sizeof b);
    return b[0] == 0x00 && b[3] == 0x3f;
}

/* spec §8.2: the checkpoint bytes are hashed as they are, with no copy, on
 * a little-endian host; elsewhere they are packed 256 values at a time */
void it_params_digest(const float *params, size_t n, char hex[65])
{
    it_sha256_ctx c;
    it_sha256_init(&c);
    if (stored_little_endian()) {
        it_sha256_update(&c, params, 4 * n);
    } else {
        unsigned char chunk[4 * 256];
        for (size_t i = 0; i < n; i += 256) {
            size_t m = n - i < 256 ? n - i : 256;
            it_store_f32le(params + i, m, chunk);
            it_sha256_update(&c, chunk, 4 * m);
        }
    }
    unsigned char d[32];
    it_sha256_final(&c, d);
    it_hex(d, 32, hex);
}
