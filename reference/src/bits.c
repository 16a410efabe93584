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

/* spec §8.1: least significant byte first on every host, so a big-endian
 * machine writes the same file as a little-endian one. */
void it_store_f32le(const float *src, size_t n, unsigned char *dst)
{
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
    for (size_t i = 0; i < n; i++) {
        uint32_t u = (uint32_t)src[4 * i] | (uint32_t)src[4 * i + 1] << 8 |
                     (uint32_t)src[4 * i + 2] << 16 | (uint32_t)src[4 * i + 3] << 24;
        dst[i] = it_f32_from_bits(u);
    }
}
