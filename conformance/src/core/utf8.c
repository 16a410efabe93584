/* utf8.c — see utf8.h. Table 3-7 read as data: each lead byte fixes the
 * length and the range of the second byte, which is where overlong forms,
 * surrogates and code points above U+10FFFF are excluded; every later byte
 * is a plain continuation (0x80..0xbf). */
#include "core/utf8.h"

size_t utf8_decode(const unsigned char *s, size_t n, uint32_t *cp)
{
    if (n == 0)
        return 0;
    unsigned c = s[0];
    size_t len;
    unsigned lo = 0x80, hi = 0xbf; /* the second byte's range */
    if (c < 0x80) {
        *cp = c;
        return 1;
    } else if (c >= 0xc2 && c <= 0xdf)
        len = 2, *cp = c & 0x1f;
    else if (c >= 0xe0 && c <= 0xef) {
        len = 3, *cp = c & 0x0f;
        if (c == 0xe0)
            lo = 0xa0; /* overlong */
        if (c == 0xed)
            hi = 0x9f; /* surrogates */
    } else if (c >= 0xf0 && c <= 0xf4) {
        len = 4, *cp = c & 0x07;
        if (c == 0xf0)
            lo = 0x90; /* overlong */
        if (c == 0xf4)
            hi = 0x8f; /* above U+10FFFF */
    } else
        return 0; /* continuation bytes, 0xc0/0xc1 (overlong), 0xf5.. */
    if (n < len)
        return 0;
    for (size_t i = 1; i < len; i++) {
        unsigned b = s[i];
        if (b < (i == 1 ? lo : 0x80) || b > (i == 1 ? hi : 0xbf))
            return 0;
        *cp = (*cp << 6) | (b & 0x3f);
    }
    return len;
}

const char *markup_entity(uint32_t cp, const char *apostrophe)
{
    switch (cp) {
    case '&': return "&amp;";
    case '<': return "&lt;";
    case '>': return "&gt;";
    case '"': return "&quot;";
    case '\'': return apostrophe;
    default: return NULL;
    }
}
