/* libFuzzer harness: the P4 value parsers of reference/cli/wire.c against
 * the grammar spec/iut-protocol.md P4 states, written out again here.
 *
 * The first input byte picks the type, the rest is the value. For every type
 * the property is: the parser accepts exactly the values the grammar allows
 * (a leading zero, a sign, an empty element, a wrong width, a non-hex digit,
 * a value above the maximum are all refused), an accepted value parses to
 * the number the grammar says, and formatting it back gives the input (hex
 * in lowercase). A refusal must come with a message. Build and run:
 * `make fuzz` (mk/fuzz.mk). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wire.h"

#if defined(__GNUC__)
__attribute__((noreturn))
#endif
static void broken(const char *type, const char *what, const char *v, size_t len)
{
    fprintf(stderr, "fuzz_wire_values: %s '%.*s': %s\n", type, (int)(len > 200 ? 200 : len), v, what);
    abort();
}

/* a hex digit's value from its place in P4's alphabet, spelled unlike
 * wire.c's digit test on purpose: an oracle that copies the parser would
 * share its mistakes */
static int hexval(unsigned char c)
{
    static const char DIGITS[] = "0123456789abcdefABCDEF";
    const char *p = c ? strchr(DIGITS, c) : NULL;
    if (!p)
        return -1;
    int i = (int)(p - DIGITS);
    return i < 16 ? i : i - 6;
}

/* P4 int: "0", or 1-9 then digits; its value if it is at most max. */
static int grammar_int(const char *v, size_t len, uint64_t max, uint64_t *out)
{
    if (len == 0 || (len > 1 && v[0] == '0'))
        return 0;
    for (size_t i = 0; i < len; i++)
        if (v[i] < '0' || v[i] > '9')
            return 0;
    /* 19 digits always fit in a u64; 20 fit up to 18446744073709551615 */
    if (len > 20 || (len == 20 && memcmp(v, "18446744073709551615", 20) > 0))
        return 0;
    uint64_t x = 0;
    for (size_t i = 0; i < len; i++)
        x = x * 10 + (uint64_t)(v[i] - '0');
    if (x > max)
        return 0;
    *out = x;
    return 1;
}

static void lower(const char *v, size_t len, char *out)
{
    for (size_t i = 0; i < len; i++)
        out[i] = (v[i] >= 'A' && v[i] <= 'F') ? (char)(v[i] - 'A' + 'a') : v[i];
}

static void check_formatted(const char *type, const wire_buf *b, const char *want, size_t len, const char *v)
{
    if (b->failed || b->len != len || memcmp(b->p, want, len) != 0)
        broken(type, "formatting the parsed value does not give the input back", v, len);
}

/* the parser's verdict (ok) against the grammar's (gram): a refusal says why */
static void judge(const char *type, int ok, int gram, const char *err, const char *v, size_t len)
{
    if (ok != gram)
        broken(type, ok ? "accepted against the grammar" : "refused though the grammar allows it", v, len);
    if (!ok && err[0] == '\0')
        broken(type, "refused without a message", v, len);
}

/* an accepted array formatted back (put) gives `want` (len bytes); frees got */
static void check_array_formatted(const char *type, void (*put)(wire_buf *, const uint32_t *, size_t), uint32_t *got,
                                  size_t n, const char *want, size_t len, const char *v)
{
    wire_buf b;
    wire_buf_init(&b);
    put(&b, got, n);
    check_formatted(type, &b, want, len, v);
    wire_buf_free(&b);
    free(got);
}

static void check_int(const char *v, size_t len, uint64_t max)
{
    char err[512] = "";
    uint64_t got = 0, want = 0;
    int ok = wire_parse_int(v, len, max, &got, err, sizeof err) == 0;
    int gram = grammar_int(v, len, max, &want);
    judge("int", ok, gram, err, v, len);
    if (ok) {
        if (got != want)
            broken("int", "parsed to another value", v, len);
        wire_buf b;
        wire_buf_init(&b);
        wire_put_int(&b, got);
        check_formatted("int", &b, v, len, v);
        wire_buf_free(&b);
    }
}

static void check_u64(const char *v, size_t len)
{
    char err[512] = "";
    uint64_t got = 0, want = 0;
    int gram = len == 16;
    for (size_t i = 0; gram && i < len; i++) {
        int d = hexval((unsigned char)v[i]);
        gram = d >= 0;
        want = want << 4 | (uint64_t)(d < 0 ? 0 : d);
    }
    int ok = wire_parse_u64(v, len, &got, err, sizeof err) == 0;
    judge("u64", ok, gram, err, v, len);
    if (ok) {
        if (got != want)
            broken("u64", "parsed to another value", v, len);
        char low[16];
        lower(v, 16, low);
        wire_buf b;
        wire_buf_init(&b);
        wire_put_u64(&b, got);
        check_formatted("u64", &b, low, 16, v);
        wire_buf_free(&b);
    }
}

static void check_hex32s(const char *v, size_t len)
{
    char err[512] = "";
    uint32_t *got = NULL;
    size_t n = 0;
    int gram = len % 9 == 8;
    for (size_t i = 0; gram && i < len; i++)
        gram = i % 9 == 8 ? v[i] == ',' : hexval((unsigned char)v[i]) >= 0;
    int ok = wire_parse_hex32s(v, len, &got, &n, err, sizeof err) == 0;
    judge("hex32s", ok, gram, err, v, len);
    if (!ok && (got || n))
        broken("hex32s", "refused with outputs left set", v, len);
    if (ok) {
        if (n != (len + 1) / 9)
            broken("hex32s", "wrong element count", v, len);
        for (size_t k = 0; k < n; k++) {
            uint32_t want = 0;
            for (size_t i = 0; i < 8; i++)
                want = want << 4 | (uint32_t)hexval((unsigned char)v[9 * k + i]);
            if (got[k] != want)
                broken("hex32s", "an element parsed to another value", v, len);
        }
        char *low = malloc(len);
        if (!low)
            abort();
        lower(v, len, low);
        check_array_formatted("hex32s", wire_put_hex32s, got, n, low, len, v);
        free(low);
    }
}

static void check_ints(const char *v, size_t len, uint64_t max)
{
    char err[512] = "";
    uint32_t *got = NULL;
    size_t n = 0;
    int gram = len > 0;
    size_t count = 0;
    for (size_t i = 0; gram && i <= len;) {
        size_t j = i;
        while (j < len && v[j] != ',')
            j++;
        uint64_t x;
        gram = grammar_int(v + i, j - i, max > UINT32_MAX ? UINT32_MAX : max, &x);
        count++;
        i = j + 1;
    }
    int ok = wire_parse_ints(v, len, max, &got, &n, err, sizeof err) == 0;
    judge("ints", ok, gram, err, v, len);
    if (!ok && (got || n))
        broken("ints", "refused with outputs left set", v, len);
    if (ok) {
        if (n != count)
            broken("ints", "wrong element count", v, len);
        check_array_formatted("ints", wire_put_ints, got, n, v, len, v);
    }
}

static void check_name(const char *v, size_t len)
{
    char err[512] = "";
    int gram = len > 0;
    for (size_t i = 0; gram && i < len; i++)
        gram = (v[i] >= 'a' && v[i] <= 'z') || (v[i] >= '0' && v[i] <= '9') || v[i] == '_';
    int ok = wire_parse_name(v, len, err, sizeof err) == 0;
    judge("name", ok, gram, err, v, len);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    const char *v = (const char *)data + 1;
    size_t len = size - 1;
    /* the maxima P5 uses: a byte, a u32, 2^32 (sweep's count), a u64 */
    static const uint64_t MAX[4] = {255, UINT32_MAX, (uint64_t)1 << 32, UINT64_MAX};
    switch (data[0] % 8) {
    case 0: check_int(v, len, MAX[(data[0] >> 3) & 3]); break;
    case 1: check_u64(v, len); break;
    case 2: check_hex32s(v, len); break;
    case 3: check_ints(v, len, MAX[(data[0] >> 3) & 3]); break;
    case 4: check_name(v, len); break;
    default: check_int(v, len, UINT64_MAX); break;
    }
    return 0;
}
