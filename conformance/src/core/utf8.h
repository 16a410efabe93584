/* utf8.h — the runner's one UTF-8 decoder, for everything that turns an
 * IUT's or a receipt's bytes into text: the page's HTML escaper, the JUnit
 * XML escaper and the messages' sanitiser (core/util.h). */
#ifndef CONFORM_CORE_UTF8_H
#define CONFORM_CORE_UTF8_H

#include <stddef.h>
#include <stdint.h>

/* The length (1..4) of the well-formed UTF-8 sequence at s (at most n
 * bytes) and its code point in *cp; 0 when the bytes there are not one:
 * n == 0, a continuation or invalid lead byte, a truncated sequence, an
 * overlong form, a surrogate (U+D800..U+DFFF) or anything above U+10FFFF
 * (Unicode 15, §3.9 table 3-7). */
size_t utf8_decode(const unsigned char *s, size_t n, uint32_t *cp);
/* The entity that stands for cp in markup text or an attribute (& < > " and
 * the apostrophe, spelled as the caller's format wants it: the page writes
 * &#39;, JUnit XML &apos;); NULL for any other code point. */
const char *markup_entity(uint32_t cp, const char *apostrophe);

#endif
