/* The line protocol's syntax (spec/iut-protocol.md P3, P4): reference/cli/wire.c,
 * every accepting path and every error path. The suite links only
 * libisotrain.a, so the CLI's wire.c is compiled in here directly. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "wire.h"
#include "testutil.h"

static char err[512];

/* ---- tokens ------------------------------------------------------------------ */

static int split(const char *line, wire_tokens *t) { return wire_split(line, strlen(line), t, err, sizeof err); }

static void split_fails(const char *line, const char *why)
{
    wire_tokens t;
    wire_tokens_init(&t);
    err[0] = '\0';
    cr_assert_eq(split(line, &t), -1, "'%s' was accepted", line);
    cr_assert(strstr(err, why), "'%s': message '%s' does not say '%s'", line, err, why);
    wire_tokens_free(&t);
}

Test(wire, splits_tokens_and_finds_keys)
{
    wire_tokens t;
    wire_tokens_init(&t);
    cr_assert_eq(split("id=exp/1 op=exp x=3f800000,00000000 extra_1=anything.goes/here", &t), 0, "%s", err);
    cr_assert_eq(t.n, 4);
    const wire_kv *x = wire_find(&t, "x");
    cr_assert(x && x->val_len == 17 && memcmp(x->val, "3f800000,00000000", 17) == 0);
    cr_assert(wire_find(&t, "extra_1"));
    cr_assert_null(wire_find(&t, "y"));
    cr_assert_null(wire_find(&t, "i"), "a key prefix is not a key");
    /* many tokens: the table grows */
    char line[4096] = "id=1";
    for (int i = 0; i < 100; i++)
        snprintf(line + strlen(line), sizeof line - strlen(line), " k%d=v", i);
    cr_assert_eq(split(line, &t), 0, "%s", err);
    cr_assert_eq(t.n, 101);
    wire_tokens_free(&t);
}

Test(wire, an_empty_value_is_syntax_not_an_error)
{
    /* the type parsers reject empty values; the splitter does not */
    wire_tokens t;
    wire_tokens_init(&t);
    cr_assert_eq(split("id=1 op=", &t), 0, "%s", err);
    cr_assert_eq(t.kv[1].val_len, 0);
    wire_tokens_free(&t);
}

Test(wire, rejects_every_malformed_line)
{
    split_fails("", "empty line");
    split_fails(" id=1", "starts with a space");
    split_fails("id=1 ", "ends with a space");
    split_fails("id=1  op=exp", "two spaces in a row");
    split_fails("id=1 op", "no '='");
    split_fails("id=1 =exp", "empty key");
    split_fails("id=1 Op=exp", "must start with a-z");
    split_fails("id=1 9op=exp", "must start with a-z");
    split_fails("id=1 o-p=exp", "has '-'");
    split_fails("id=1 op=a=b", "second '='");
    split_fails("id=1 op=ex\tp", "control character 0x09");
    split_fails("id=1 op=exp\r", "\\r\\n");
    split_fails("id=1 op=exp id=2", "'id' appears twice");
    char nul[] = "id=1 op=e\0p";
    wire_tokens t;
    wire_tokens_init(&t);
    cr_assert_eq(wire_split(nul, sizeof nul - 1, &t, err, sizeof err), -1);
    cr_assert(strstr(err, "control character 0x00"), "%s", err);
    wire_tokens_free(&t);
}

Test(wire, reports_the_first_key_that_repeats_an_earlier_one)
{
    /* in line order 'b' (token 4) repeats before 'a' (token 5) does; a check
     * that sorts keys must still name 'b', not the alphabetically first */
    split_fails("id=1 a=1 b=1 b=2 a=2", "key 'b' appears twice");
    split_fails("id=1 zz=1 z=1 zz=2", "key 'zz' appears twice");
    split_fails("id=1 op=exp x=1 y=2 x=3 x=4", "key 'x' appears twice");
    /* keys that share a prefix are different keys */
    wire_tokens t;
    wire_tokens_init(&t);
    cr_assert_eq(split("id=1 a=1 ab=2 a_=3 a0=4", &t), 0, "%s", err);
    cr_assert_eq(t.n, 5);
    wire_tokens_free(&t);
}

/* "k" and six letters: distinct keys, in a scrambled order so that no
 * check gets sorted input for free. */
static size_t many_keys_line(char *buf, size_t cap, size_t *n_keys)
{
    size_t len = (size_t)snprintf(buf, cap, "id=big op=exp x=3f800000");
    size_t k = 0;
    while (len + 11 <= cap) {
        uint32_t v = (uint32_t)(k * 2654435761u) % 308915776u; /* 26^6: a bijection on k < 26^6 */
        char key[8];
        key[0] = 'k';
        for (int i = 6; i >= 1; i--, v /= 26)
            key[i] = (char)('a' + v % 26);
        key[7] = '\0';
        len += (size_t)snprintf(buf + len, cap - len, " %s=v", key);
        k++;
    }
    *n_keys = k;
    return len;
}

Test(wire, splits_a_4_MiB_line_of_distinct_keys_in_well_under_a_second_per_MiB)
{
    /* A pairwise duplicate check took about 284 s on such a line. The bound
     * is loose on purpose (slow, shared or sanitized machines): it separates
     * O(n log n) from O(n^2), not one fast machine from another. */
    size_t cap = (size_t)4 << 20, n_keys;
    char *line = malloc(cap);
    cr_assert(line);
    size_t len = many_keys_line(line, cap, &n_keys);
    cr_assert_geq(n_keys, 300000);
    wire_tokens t;
    wire_tokens_init(&t);
    struct timespec a, b;
    timespec_get(&a, TIME_UTC);
    cr_assert_eq(wire_split(line, len, &t, err, sizeof err), 0, "%s", err);
    timespec_get(&b, TIME_UTC);
    double s = (double)(b.tv_sec - a.tv_sec) + 1e-9 * (double)(b.tv_nsec - a.tv_nsec);
    cr_assert_eq(t.n, n_keys + 3);
    cr_assert_lt(s, 10.0, "%zu keys took %.1f s", n_keys, s);
    /* the same line with its 1000th key again at the end */
    const wire_kv *k1000 = &t.kv[3 + 999];
    char tail[32];
    int tn = snprintf(tail, sizeof tail, " %.*s=w", (int)k1000->key_len, k1000->key);
    cr_assert(len + (size_t)tn <= cap + 16);
    char *dup = malloc(len + (size_t)tn);
    cr_assert(dup);
    memcpy(dup, line, len);
    memcpy(dup + len, tail, (size_t)tn);
    char want[64];
    snprintf(want, sizeof want, "key '%.*s' appears twice", (int)k1000->key_len, k1000->key);
    timespec_get(&a, TIME_UTC);
    cr_assert_eq(wire_split(dup, len + (size_t)tn, &t, err, sizeof err), -1, "the duplicate was not found");
    timespec_get(&b, TIME_UTC);
    s = (double)(b.tv_sec - a.tv_sec) + 1e-9 * (double)(b.tv_nsec - a.tv_nsec);
    cr_assert(strstr(err, want), "message '%s' does not say \"%s\"", err, want);
    cr_assert_lt(s, 10.0, "%zu keys took %.1f s", n_keys, s);
    wire_tokens_free(&t);
    free(dup);
    free(line);
}

Test(wire, finds_the_id_of_a_malformed_line)
{
    size_t n = 0;
    const char *line = "id=sgd/7 op=sgd p=zz  g=";
    const char *id = wire_leading_id(line, strlen(line), &n);
    cr_assert(id && n == 5 && memcmp(id, "sgd/7", 5) == 0);
    cr_assert_null(wire_leading_id("op=exp id=1", 11, &n), "id must come first");
    cr_assert_null(wire_leading_id("id= op=exp", 10, &n), "an empty id is no id");
    cr_assert_null(wire_leading_id("id=", 3, &n));
    cr_assert_null(wire_leading_id("id=a=b", 6, &n));
    cr_assert_null(wire_leading_id("id=a\x01", 5, &n));
    id = wire_leading_id("id=x", 4, &n);
    cr_assert(id && n == 1);
}

/* ---- values ------------------------------------------------------------------ */

#define PARSE_INT(s, max, out) wire_parse_int((s), strlen(s), (max), (out), err, sizeof err)

static void int_fails(const char *s, uint64_t max, const char *why)
{
    uint64_t v;
    err[0] = '\0';
    cr_assert_eq(PARSE_INT(s, max, &v), -1, "'%s' was accepted", s);
    cr_assert(strstr(err, why), "'%s': message '%s' does not say '%s'", s, err, why);
}

Test(wire, parses_ints)
{
    uint64_t v;
    cr_assert_eq(PARSE_INT("0", 10, &v), 0);
    cr_assert_eq(v, 0);
    cr_assert_eq(PARSE_INT("64", 64, &v), 0);
    cr_assert_eq(v, 64);
    cr_assert_eq(PARSE_INT("4294967296", (uint64_t)1 << 32, &v), 0);
    cr_assert_eq(v, (uint64_t)1 << 32);
    cr_assert_eq(PARSE_INT("18446744073709551615", UINT64_MAX, &v), 0);
    cr_assert_eq(v, UINT64_MAX);
    int_fails("", 10, "empty");
    int_fails("01", 10, "leading zero");
    int_fails("00", 10, "leading zero");
    int_fails("-1", 10, "not a decimal digit");
    int_fails("+1", 10, "not a decimal digit");
    int_fails("1a", 10, "'a' at byte 1");
    int_fails("11", 10, "11 is too large (at most 10)");
    int_fails("18446744073709551616", UINT64_MAX, "too large");
    int_fails("99999999999999999999999", UINT64_MAX, "too large");
}

Test(wire, parses_u64)
{
    uint64_t v;
    cr_assert_eq(wire_parse_u64("69736f747261696e", 16, &v, err, sizeof err), 0);
    cr_assert_eq(v, 0x69736f747261696eull);
    cr_assert_eq(wire_parse_u64("FFFFFFFFFFFFFFFF", 16, &v, err, sizeof err), 0, "either case is hex");
    cr_assert_eq(v, UINT64_MAX);
    cr_assert_eq(wire_parse_u64("1234", 4, &v, err, sizeof err), -1);
    cr_assert(strstr(err, "exactly 16 hex digits, got 4"), "%s", err);
    cr_assert_eq(wire_parse_u64("69736f74726169ng", 16, &v, err, sizeof err), -1);
    cr_assert(strstr(err, "'n' at byte 14 is not a hex digit"), "%s", err);
}

static void hex_fails(const char *s, const char *why)
{
    uint32_t *a = (uint32_t *)1;
    size_t n = 7;
    err[0] = '\0';
    cr_assert_eq(wire_parse_hex32s(s, strlen(s), &a, &n, err, sizeof err), -1, "'%s' was accepted", s);
    cr_assert(a == NULL && n == 0, "outputs not cleared on failure");
    cr_assert(strstr(err, why), "'%s': message '%s' does not say '%s'", s, err, why);
}

Test(wire, parses_hex32_arrays)
{
    uint32_t *a;
    size_t n;
    cr_assert_eq(wire_parse_hex32s("3f800000", 8, &a, &n, err, sizeof err), 0);
    cr_assert(n == 1 && a[0] == 0x3f800000u);
    free(a);
    const char *s = "00000000,FFFFFFFF,7fC00001";
    cr_assert_eq(wire_parse_hex32s(s, strlen(s), &a, &n, err, sizeof err), 0, "%s", err);
    cr_assert(n == 3 && a[0] == 0 && a[1] == 0xffffffffu && a[2] == 0x7fc00001u);
    free(a);
    hex_fails("", "empty array");
    hex_fails("3f80000", "element 0 has 7 characters");
    hex_fails("3f8000000", "element 0 has 9 characters");
    hex_fails("3f800000,", "ends with ','");
    hex_fails(",3f800000", "element 0 has 0 characters");
    hex_fails("3f800000,,3f800000", "element 1 has 0 characters");
    hex_fails("3f800000,3f80000", "element 1 has 7 characters");
    hex_fails("3f80000,03f800000", "element 0 has 7 characters");
    hex_fails("3f8000000,3f80000", "expected ',' after 8 hex digits, got '0'");
    hex_fails("3f80000g", "element 0: 'g' is not a hex digit");
    hex_fails("3f800000,-3f80000", "element 1: '-' is not a hex digit");
}

static void ints_fail(const char *s, uint64_t max, const char *why)
{
    uint32_t *a = (uint32_t *)1;
    size_t n = 7;
    err[0] = '\0';
    cr_assert_eq(wire_parse_ints(s, strlen(s), max, &a, &n, err, sizeof err), -1, "'%s' was accepted", s);
    cr_assert(a == NULL && n == 0);
    cr_assert(strstr(err, why), "'%s': message '%s' does not say '%s'", s, err, why);
}

Test(wire, parses_int_arrays)
{
    uint32_t *a;
    size_t n;
    cr_assert_eq(wire_parse_ints("116,104,0,255", 13, 255, &a, &n, err, sizeof err), 0, "%s", err);
    cr_assert(n == 4 && a[0] == 116 && a[2] == 0 && a[3] == 255);
    free(a);
    cr_assert_eq(wire_parse_ints("4294967295", 10, UINT64_MAX, &a, &n, err, sizeof err), 0, "capped at 2^32-1");
    cr_assert(n == 1 && a[0] == 0xffffffffu);
    free(a);
    ints_fail("", 255, "empty array");
    ints_fail("1,", 255, "element 1: empty");
    ints_fail("1,,2", 255, "element 1: empty");
    ints_fail("1,02", 255, "element 1: '02' has a leading zero");
    ints_fail("1,256", 255, "element 1: 256 is too large (at most 255)");
    ints_fail("4294967296", UINT64_MAX, "too large");
    ints_fail("1, 2", 255, "element 1: 0x20 at byte 0");
}

Test(wire, parses_names)
{
    cr_assert_eq(wire_parse_name("w1", 2, err, sizeof err), 0);
    cr_assert_eq(wire_parse_name("mlp13k_init", 11, err, sizeof err), 0);
    cr_assert_eq(wire_parse_name("", 0, err, sizeof err), -1);
    cr_assert(strstr(err, "empty name"));
    cr_assert_eq(wire_parse_name("W1", 2, err, sizeof err), -1);
    cr_assert(strstr(err, "has 'W'"), "%s", err);
    cr_assert_eq(wire_parse_name("a-b", 3, err, sizeof err), -1);
    cr_assert(strstr(err, "has '-'"), "%s", err);
}

/* ---- reading lines ------------------------------------------------------------- */

static FILE *input(const char *bytes, size_t n)
{
    FILE *f = tmpfile();
    cr_assert(f);
    cr_assert_eq(fwrite(bytes, 1, n, f), n);
    rewind(f);
    return f;
}

Test(wire, reads_lines_and_reports_how_each_ended)
{
    static const char text[] = "id=1 op=exp\n\nabcdefghijkl\nshort\nid=2\0x\nlast";
    FILE *f = input(text, sizeof text - 1);
    char buf[8];
    size_t len;
    cr_assert_eq(wire_read_line(f, buf, 8, &len), WIRE_LINE_TOO_LONG, "11 bytes > cap 8");
    cr_assert_eq(wire_read_line(f, buf, 8, &len), WIRE_LINE_OK, "an empty line is a line");
    cr_assert_eq(len, 0);
    cr_assert_eq(wire_read_line(f, buf, 8, &len), WIRE_LINE_TOO_LONG);
    cr_assert(len == 8 && memcmp(buf, "abcdefgh", 8) == 0, "the first cap bytes are kept");
    cr_assert_eq(wire_read_line(f, buf, 8, &len), WIRE_LINE_OK, "the rest of the long line was dropped");
    cr_assert(len == 5 && memcmp(buf, "short", 5) == 0);
    cr_assert_eq(wire_read_line(f, buf, 8, &len), WIRE_LINE_OK);
    cr_assert(len == 6 && memcmp(buf, "id=2\0x", 6) == 0, "a NUL byte is kept for the splitter to reject");
    cr_assert_eq(wire_read_line(f, buf, 8, &len), WIRE_LINE_UNTERMINATED);
    cr_assert(len == 4 && memcmp(buf, "last", 4) == 0);
    cr_assert_eq(wire_read_line(f, buf, 8, &len), WIRE_LINE_EOF);
    fclose(f);
}

Test(wire, a_line_of_exactly_cap_bytes_fits)
{
    FILE *f = input("12345678\n123456789\n", 19);
    char buf[8];
    size_t len;
    cr_assert_eq(wire_read_line(f, buf, 8, &len), WIRE_LINE_OK);
    cr_assert_eq(len, 8);
    cr_assert_eq(wire_read_line(f, buf, 8, &len), WIRE_LINE_TOO_LONG);
    cr_assert_eq(wire_read_line(f, buf, 8, &len), WIRE_LINE_EOF);
    fclose(f);
}

/* ---- formatting ------------------------------------------------------------------ */

Test(wire, formats_values_in_the_p4_encodings)
{
    wire_buf b;
    wire_buf_init(&b);
    const float f[3] = {1.0f, -0.0f, F(0x7fc00001u)};
    const uint32_t u[2] = {0xDEADBEEFu, 0};
    const uint32_t ints[3] = {0, 64, 4294967295u};
    wire_put_key(&b, "id");
    wire_put_str(&b, "exp/1");
    wire_put_key(&b, "y");
    wire_put_f32s(&b, f, 3);
    wire_put_key(&b, "r");
    wire_put_hex32s(&b, u, 2);
    wire_put_key(&b, "k");
    wire_put_ints(&b, ints, 3);
    wire_put_key(&b, "seed");
    wire_put_u64(&b, 0x69736f747261696eull);
    wire_put_key(&b, "n");
    wire_put_int(&b, 0);
    cr_assert(!b.failed);
    cr_assert_str_eq(b.p, "id=exp/1 y=3f800000,80000000,7fc00001 r=deadbeef,00000000 k=0,64,4294967295 "
                          "seed=69736f747261696e n=0");
    cr_assert_eq(b.len, strlen(b.p));
    wire_buf_reset(&b);
    cr_assert(b.len == 0 && b.p[0] == '\0');
    /* more than one 256-value block of floats */
    float many[600];
    for (int i = 0; i < 600; i++)
        many[i] = (float)i;
    wire_put_f32s(&b, many, 600);
    cr_assert_eq(b.len, 600 * 9 - 1);
    cr_assert(strncmp(b.p + 256 * 9 - 1, ",43800000,", 10) == 0, "element 256 is 256.0");
    wire_buf_free(&b);
}

Test(wire, formatted_values_parse_back)
{
    wire_buf b;
    wire_buf_init(&b);
    uint32_t src[5] = {0, 1, 0x7f800000u, 0x80000001u, 0xffffffffu}, *back;
    size_t n;
    wire_put_hex32s(&b, src, 5);
    cr_assert_eq(wire_parse_hex32s(b.p, b.len, &back, &n, err, sizeof err), 0);
    cr_assert(n == 5 && memcmp(src, back, sizeof src) == 0);
    free(back);
    wire_buf_reset(&b);
    wire_put_ints(&b, src, 5);
    cr_assert_eq(wire_parse_ints(b.p, b.len, UINT32_MAX, &back, &n, err, sizeof err), 0, "%s", err);
    cr_assert(n == 5 && memcmp(src, back, sizeof src) == 0);
    free(back);
    wire_buf_free(&b);
}
