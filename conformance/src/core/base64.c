/* base64.c — see base64.h. */
#include "core/base64.h"

#include <stdint.h>
#include <stdlib.h>

static const char ALPHABET[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

void b64_encode(sbuf *out, const void *data, size_t n)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < n ? (uint32_t)p[i + 1] << 8 : 0) | (i + 2 < n ? p[i + 2] : 0);
        char q[4] = {ALPHABET[v >> 18 & 63], ALPHABET[v >> 12 & 63], i + 1 < n ? ALPHABET[v >> 6 & 63] : '=',
                     i + 2 < n ? ALPHABET[v & 63] : '='};
        sbuf_add(out, q, 4);
    }
}

/* The value of one alphabet character, -1 for anything else (NUL too). */
static int b64_value(unsigned char c)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    return c == '+' ? 62 : c == '/' ? 63 : -1;
}

/* One quantum of four characters: how many bytes it holds (1..3), or -1.
 * Padding is allowed only in the last quantum, as "x=" ... "==" at its end,
 * with the bits it leaves over zero (RFC 4648 §3.5: canonical encoding). */
static int quantum(const unsigned char *q, int last, unsigned char out[3])
{
    int pad = q[3] != '=' ? 0 : q[2] != '=' ? 1 : 2;
    if (pad && !last)
        return -1;
    uint32_t v = 0;
    for (int k = 0; k < 4 - pad; k++) {
        int d = b64_value(q[k]);
        if (d < 0)
            return -1;
        v |= (uint32_t)d << (18 - 6 * k);
    }
    if ((pad == 1 && (v & 0xff)) || (pad == 2 && (v & 0xffff)))
        return -1;
    out[0] = (unsigned char)(v >> 16), out[1] = (unsigned char)(v >> 8), out[2] = (unsigned char)v;
    return 3 - pad;
}

int b64_decode(const char *s, size_t n, unsigned char **out, size_t *len)
{
    *out = NULL;
    *len = 0;
    if (n % 4)
        return -1;
    unsigned char *o = xmalloc(n / 4 * 3 + 1);
    size_t k = 0;
    for (size_t i = 0; i < n; i += 4) {
        int got = quantum((const unsigned char *)s + i, i + 4 == n, o + k);
        if (got < 0) {
            free(o);
            return -1;
        }
        k += (size_t)got;
    }
    o[k] = 0;
    *out = o;
    *len = k;
    return 0;
}
