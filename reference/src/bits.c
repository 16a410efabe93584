/* Bit-level views of binary32 values (spec §1.3 notation, §8.1 byte order).
 * memcpy is the one type pun C11 defines; it is also endian-neutral, because
 * a float and a uint32_t share the host's byte order. */
#include <string.h>

#include "isotrain.h"

uint32_t it_f32_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

float it_f32_from_bits(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* 1 on a host that stores a uint32_t least significant byte first. */
static int host_is_little_endian(void)
{
    const uint32_t probe = 1;
    unsigned char first;
    memcpy(&first, &probe, 1);
    return first == 1;
}

/* spec §8.1: least significant byte first on every host, so a big-endian
 * machine writes the same file as a little-endian one. On a little-endian
 * host a binary32's storage already is those bytes, so it is one copy (the
 * checkpoint digest of every step reads through here). */
void it_store_f32le(const float *src, size_t n, unsigned char *dst)
{
    if (host_is_little_endian()) {
        memcpy(dst, src, 4 * n);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        uint32_t u = it_f32_bits(src[i]);
        dst[4 * i + 0] = (unsigned char)(u & 0xffu);
        dst[4 * i + 1] = (unsigned char)((u >> 8) & 0xffu);
        dst[4 * i + 2] = (unsigned char)((u >> 16) & 0xffu);
        dst[4 * i + 3] = (unsigned char)((u >> 24) & 0xffu);
    }
}

void it_load_f32le(const unsigned char *src, size_t n, float *dst)
{
    if (host_is_little_endian()) {
        memcpy(dst, src, 4 * n);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        uint32_t u = (uint32_t)src[4 * i] | (uint32_t)src[4 * i + 1] << 8 |
                     (uint32_t)src[4 * i + 2] << 16 | (uint32_t)src[4 * i + 3] << 24;
        dst[i] = it_f32_from_bits(u);
    }
}
