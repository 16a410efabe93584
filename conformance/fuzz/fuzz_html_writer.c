/* fuzz_html_writer — the report's HTML writer (report/html/html_writer.c)
 * on any bytes: the input is split at NUL bytes into fields (the first byte
 * picks the caps), and each field is written as an attribute value and as
 * text between markup from literals:
 *     <td title="FIELD">FIELD</td>
 * Property: the only markup in the output is the literals' (as many '<',
 * '>' and '"' as they and the writer's own cut notes hold, so no field
 * opened or closed a tag or an attribute), every '&' starts one of the five
 * entities, the output is valid UTF-8 with no bidirectional control in it,
 * and no field contributes more than its cap allows. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "report/html/html_writer.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static size_t count(const char *s, size_t n, char c)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        k += s[i] == c;
    return k;
}

/* valid UTF-8 (independent of the writer's decoder), without U+202A-202E,
 * U+2066-2069, U+200E/F */
static int clean_utf8(const unsigned char *s, size_t n)
{
    for (size_t i = 0; i < n;) {
        unsigned c = s[i];
        size_t k = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
        if (!k || i + k > n)
            return 0;
        uint32_t cp = k == 1 ? c : k == 2 ? c & 31 : k == 3 ? c & 15 : c & 7;
        for (size_t j = 1; j < k; j++) {
            if ((s[i + j] & 0xc0) != 0x80)
                return 0;
            cp = cp << 6 | (s[i + j] & 0x3f);
        }
        if ((k == 2 && cp < 0x80) || (k == 3 && cp < 0x800) || (k == 4 && cp < 0x10000) || cp > 0x10ffff ||
            (cp >= 0xd800 && cp <= 0xdfff) || (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069) ||
            cp == 0x200e || cp == 0x200f)
            return 0;
        i += k;
    }
    return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    size_t cap = 1 + (data[0] & 63) * 8; /* 1..505 input bytes per field */
    hw w;
    hw_init(&w);
    size_t fields = 0, cut_notes = 0;
    const char *p = (const char *)data + 1, *end = (const char *)data + size;
    while (p <= end && fields < 64) {
        const char *z = memchr(p, '\0', (size_t)(end - p));
        size_t n = z ? (size_t)(z - p) : (size_t)(end - p);
        char *f = malloc(n + 1);
        if (!f)
            abort();
        memcpy(f, p, n);
        f[n] = '\0';
        size_t before = w.out.len;
        HW(&w, "<td title=\"");
        hw_attr(&w, f, cap);
        HW(&w, "\">");
        size_t cuts = w.cut;
        hw_text_n(&w, f, n, cap);
        cut_notes += w.cut - cuts;
        HW(&w, "</td>");
        /* at most 13 bytes out per byte in (a byte shown by name), twice,
         * and the markup around it */
        size_t in = n < cap ? n : cap;
        if (w.out.len - before > 2 * 13 * in + 120)
            abort();
        free(f);
        fields++;
        if (!z)
            break;
        p = z + 1;
    }
    const char *o = w.out.p ? w.out.p : "";
    size_t len = w.out.len;
    /* per field: <td title=" ">  </td> ; per cut note: <span class="cut"> </span> */
    if (count(o, len, '<') != 2 * fields + 2 * cut_notes || count(o, len, '>') != 2 * fields + 2 * cut_notes ||
        count(o, len, '"') != 2 * fields + 2 * cut_notes || count(o, len, '\'') != 0)
        abort();
    for (const char *a = memchr(o, '&', len); a; a = memchr(a + 1, '&', len - (size_t)(a + 1 - o)))
        if (strncmp(a, "&amp;", 5) && strncmp(a, "&lt;", 4) && strncmp(a, "&gt;", 4) && strncmp(a, "&quot;", 6) &&
            strncmp(a, "&#39;", 5))
            abort();
    if (!clean_utf8((const unsigned char *)o, len) || strlen(o) != len)
        abort();
    hw_free(&w);
    return 0;
}
