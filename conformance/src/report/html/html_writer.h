/* html_writer.h — the only way the report writes HTML (issue 22). Markup
 * comes from string literals alone; everything else is text, escaped byte
 * by byte. A receipt is untrusted input (an IUT chose its hello line, its
 * `info` values, its stderr; anyone can hand-edit an unsigned receipt), so
 * the page is safe by construction rather than by care at each call:
 *
 *   HW(w, "<td class=\"num\">")   markup: the argument must be a string
 *                                  literal ("" x "" does not compile
 *                                  otherwise)
 *   hw_text(w, s)                  text content: every byte escaped, capped
 *   hw_attr(w, s)                  an attribute value between quotes that a
 *                                  literal opened: escaped for that context
 *   HW_F(w, "%zu of %zu", a, b)    printf with a literal format, its result
 *                                  escaped as text
 *   HW_N(w, "x=\"%.1f\"", x)       markup with numbers: a literal format whose
 *                                  conversions are numeric only (d i u x f g
 *                                  e; %s and %c abort), written as it is
 *
 * What escaping means here (html_escape): & < > " ' become entities;
 * invalid UTF-8 becomes U+FFFD; control characters (C0 but tab and newline,
 * DEL, C1), bidirectional overrides and isolates (U+202A-202E, U+2066-2069,
 * U+200E/F, U+061C), zero-width and invisible formatting characters, line
 * and paragraph separators and noncharacters are shown as "⟨U+202E⟩", never
 * passed through, so a receipt cannot reorder or hide what the page shows.
 * Every call takes at most `cap` input bytes and says how many it left out. */
#ifndef CONFORM_REPORT_HTML_WRITER_H
#define CONFORM_REPORT_HTML_WRITER_H

#include <stddef.h>

#include "core/util.h"

/* Input bytes an untrusted string may contribute, by where it is shown. */
enum {
    HW_CAP_NAME = 160,   /* a host name, an id, a table key */
    HW_CAP_CELL = 2000,  /* a table cell */
    HW_CAP_PRE = 16384   /* a <pre> block: localization, stderr, a refusal */
};

typedef struct {
    sbuf out;
    size_t cut;   /* untrusted strings shown shortened */
    unsigned fig; /* figures so far: their ids, in page order */
} hw;

void hw_init(hw *w);
void hw_free(hw *w);

/* Markup from a string literal. Never call hw_markup_ directly. */
#define HW(w, markup) hw_markup_((w), "" markup "", sizeof("" markup "") - 1)
void hw_markup_(hw *w, const char *literal, size_t n);

/* Untrusted text as element content (NULL writes nothing): at most cap
 * input bytes; when cut, a marked note says how many bytes were left out. */
void hw_text_cap(hw *w, const char *s, size_t cap);
void hw_text_n(hw *w, const char *s, size_t len, size_t cap);
#define hw_text(w, s) hw_text_cap((w), (s), HW_CAP_CELL)
/* Untrusted text between two literals of markup: open, text, close. */
#define HW_WRAP(w, open, s, cap, close) (HW(w, open), hw_text_cap((w), (s), (cap)), HW(w, close))
/* Untrusted text as an attribute value (between quotes a literal wrote). */
void hw_attr(hw *w, const char *s, size_t cap);

/* printf into text. The format is a literal; the result is escaped. */
#define HW_F(w, fmt, ...) hw_textf_((w), "" fmt "", __VA_ARGS__)
void hw_textf_(hw *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Markup with numbers in it (SVG coordinates, ids): the literal format may
 * hold only numeric conversions, which print nothing but digits, signs,
 * points, exponents and inf/nan; any other conversion aborts (a
 * programming error every test run reaches). */
#define HW_N(w, fmt, ...) hw_markupf_((w), "" fmt "", __VA_ARGS__)
void hw_markupf_(hw *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---- the escaper itself (tested on its own, fuzzed) ---------------------- */

enum { HE_TEXT = 0, HE_ATTR = 1 };
/* Appends s[0..len) escaped for ctx, taking at most cap input bytes (never
 * splitting a valid UTF-8 sequence). Returns the input bytes taken. */
size_t html_escape(sbuf *out, const char *s, size_t len, size_t cap, int ctx);

#endif
