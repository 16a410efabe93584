/* html_writer.c — see html_writer.h. The escaper decodes UTF-8 strictly
 * (core/utf8.h: no overlong forms, no surrogates, nothing above U+10FFFF)
 * and decides per code point; it never copies a byte it has not
 * classified. */
#include "report/html/html_writer.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/utf8.h"

void hw_init(hw *w)
{
    sbuf_init(&w->out);
    w->cut = 0;
    w->fig = 0;
}

void hw_free(hw *w) { sbuf_free(&w->out); }

void hw_markup_(hw *w, const char *literal, size_t n) { sbuf_add(&w->out, literal, n); }

/* Code points that are shown by name, never passed to the browser: they
 * are invisible, reorder text around them, or break lines and tables. */
static int shown_by_name(uint32_t cp, int ctx)
{
    if (cp < 0x20)
        return ctx == HE_ATTR || (cp != '\t' && cp != '\n');
    if (cp >= 0x7f && cp <= 0x9f) /* DEL, C1 controls */
        return 1;
    if (cp == 0x00ad || cp == 0x034f || cp == 0x061c || cp == 0x115f || cp == 0x1160 || cp == 0x17b4 ||
        cp == 0x17b5 || cp == 0x180e || cp == 0x3164 || cp == 0xfeff || cp == 0xffa0)
        return 1; /* soft hyphen, grapheme joiner, ALM, fillers, ZWNBSP */
    if ((cp >= 0x200b && cp <= 0x200f) || (cp >= 0x2028 && cp <= 0x202e) || (cp >= 0x2060 && cp <= 0x206f))
        return 1; /* zero-width, LRM/RLM, separators, embeddings/overrides, isolates */
    if (cp >= 0xfe00 && cp <= 0xfe0f) /* variation selectors */
        return 1;
    if (cp >= 0xfff9 && cp <= 0xfffb) /* interlinear annotation */
        return 1;
    if ((cp >= 0xfdd0 && cp <= 0xfdef) || (cp & 0xfffe) == 0xfffe) /* noncharacters */
        return 1;
    if (cp >= 0xe0000 && cp <= 0xe0fff) /* tags, variation selectors supplement */
        return 1;
    if (cp >= 0x1d173 && cp <= 0x1d17a) /* musical formatting controls */
        return 1;
    return 0;
}

size_t html_escape(sbuf *out, const char *text, size_t len, size_t cap, int ctx)
{
    const unsigned char *s = (const unsigned char *)text;
    size_t take = len < cap ? len : cap, i = 0;
    while (i < take) {
        uint32_t cp;
        size_t n = utf8_decode(s + i, len - i, &cp);
        if (n == 0) {
            sbuf_adds(out, "\xef\xbf\xbd"); /* U+FFFD for one byte that is not UTF-8 */
            i++;
            continue;
        }
        if (i + n > take) /* a valid sequence the cap would split: stop before it */
            break;
        i += n;
        const char *entity = markup_entity(cp, "&#39;");
        if (entity)
            sbuf_adds(out, entity);
        else if (shown_by_name(cp, ctx))
            sbuf_printf(out, "\xe2\x9f\xa8U+%04X\xe2\x9f\xa9", (unsigned)cp); /* ⟨U+202E⟩ */
        else
            sbuf_add(out, s + i - n, n);
    }
    return i;
}

void hw_text_n(hw *w, const char *s, size_t len, size_t cap)
{
    if (!s)
        return;
    size_t took = html_escape(&w->out, s, len, cap, HE_TEXT);
    if (took < len) {
        w->cut++;
        sbuf_printf(&w->out, "<span class=\"cut\">\xe2\x80\xa6 %zu more byte%s not shown</span>", len - took,
                    len - took == 1 ? "" : "s");
    }
}

void hw_text_cap(hw *w, const char *s, size_t cap)
{
    if (s)
        hw_text_n(w, s, strlen(s), cap);
}

void hw_attr(hw *w, const char *s, size_t cap)
{
    if (!s)
        return;
    size_t len = strlen(s);
    size_t took = html_escape(&w->out, s, len, cap, HE_ATTR);
    if (took < len) {
        w->cut++;
        sbuf_adds(&w->out, "\xe2\x80\xa6");
    }
}

void hw_textf_(hw *w, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *text = xvasprintf(fmt, ap);
    va_end(ap);
    hw_text_n(w, text, strlen(text), (size_t)-1);
    free(text);
}

/* Every conversion of fmt prints a number. */
static int numeric_only(const char *fmt)
{
    for (const char *p = fmt; (p = strchr(p, '%')) != NULL;) {
        p++;
        if (*p == '%') {
            p++;
            continue;
        }
        p += strspn(p, "-+ #0123456789.");
        p += strspn(p, "hlzjt");
        if (!*p || !strchr("diuxXfFgGeE", *p))
            return 0;
        p++;
    }
    return 1;
}

void hw_markupf_(hw *w, const char *fmt, ...)
{
    if (!numeric_only(fmt)) {
        fprintf(stderr, "html_writer: HW_N with a non-numeric conversion: \"%s\"\n", fmt);
        abort();
    }
    va_list ap;
    va_start(ap, fmt);
    sbuf_vprintf(&w->out, fmt, ap);
    va_end(ap);
}
