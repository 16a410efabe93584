/* The line protocol's syntax (spec/iut-protocol.md P3, P4). See wire.h. */
#include "wire.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "isotrain.h"

#if defined(__GNUC__)
__attribute__((format(IT_PRINTF_FORMAT, 3, 4)))
#endif
static int fail(char *err, size_t cap, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, cap, fmt, ap);
    va_end(ap);
    return -1;
}

/* A byte as something a message can show: 'c' or \xNN. */
static const char *show_byte(unsigned char c, char out[8])
{
    if (c >= 0x21 && c <= 0x7e)
        snprintf(out, 8, "'%c'", (char)c);
    else
        snprintf(out, 8, "0x%02x", (unsigned)c);
    return out;
}

/* ---- reading lines ---------------------------------------------------------- */

wire_line_status wire_read_line(FILE *in, char *buf, size_t cap, size_t *len)
{
    size_t n = 0;
    int c;
    while ((c = getc(in)) != EOF && c != '\n') {
        if (n == cap) {
            /* drop the rest of the line so the next request starts clean */
            while ((c = getc(in)) != EOF && c != '\n')
                ;
            *len = n;
            return ferror(in) ? WIRE_LINE_READ_ERROR : WIRE_LINE_TOO_LONG;
        }
        buf[n++] = (char)c;
    }
    *len = n;
    if (c == '\n')
        return WIRE_LINE_OK;
    if (ferror(in))
        return WIRE_LINE_READ_ERROR;
    return n == 0 ? WIRE_LINE_EOF : WIRE_LINE_UNTERMINATED;
}

/* ---- tokens ------------------------------------------------------------------- */

void wire_tokens_init(wire_tokens *t)
{
    t->kv = NULL;
    t->n = t->cap = 0;
}

void wire_tokens_free(wire_tokens *t)
{
    free(t->kv);
    wire_tokens_init(t);
}

static int key_start(unsigned char c) { return c >= 'a' && c <= 'z'; }
static int key_char(unsigned char c) { return key_start(c) || (c >= '0' && c <= '9') || c == '_'; }
static int is_control(unsigned char c) { return c < 0x20 || c == 0x7f; }

/* Checks one "key=value" token at s[0..len-1]; fills kv. */
static int split_token(const char *s, size_t len, size_t index, wire_kv *kv, char *err, size_t cap)
{
    char b[8];
    const char *eq = memchr(s, '=', len);
    if (!eq)
        return fail(err, cap, "token %zu ('%.*s'): no '=' (tokens are key=value)", index,
                    (int)(len > 40 ? 40 : len), s);
    size_t klen = (size_t)(eq - s);
    if (klen == 0)
        return fail(err, cap, "token %zu: empty key", index);
    if (!key_start((unsigned char)s[0]))
        return fail(err, cap, "token %zu: key must start with a-z, not %s", index, show_byte((unsigned char)s[0], b));
    for (size_t i = 1; i < klen; i++)
        if (!key_char((unsigned char)s[i]))
            return fail(err, cap, "token %zu: key '%.*s' has %s (keys are [a-z][a-z0-9_]*)", index, (int)klen, s,
                        show_byte((unsigned char)s[i], b));
    const char *v = eq + 1;
    size_t vlen = len - klen - 1;
    for (size_t i = 0; i < vlen; i++) {
        unsigned char c = (unsigned char)v[i];
        if (c == '=')
            return fail(err, cap, "key '%.*s': value has a second '=' at byte %zu", (int)klen, s, i);
        if (c == '\r' && i + 1 == vlen)
            return fail(err, cap, "key '%.*s': line ends in \\r\\n; lines end in \\n alone", (int)klen, s);
        if (is_control(c))
            return fail(err, cap, "key '%.*s': value has control character 0x%02x at byte %zu", (int)klen, s,
                        (unsigned)c, i);
    }
    kv->key = s;
    kv->key_len = klen;
    kv->val = v;
    kv->val_len = vlen;
    return 0;
}

static int key_is(const wire_kv *kv, const char *key)
{
    size_t n = strlen(key);
    return kv->key_len == n && memcmp(kv->key, key, n) == 0;
}

/* Orders keys by their bytes, then by where they stand in the line (key
 * pointers grow along the line), so equal keys end up adjacent and in line
 * order. */
static int kv_by_key(const void *pa, const void *pb)
{
    const wire_kv *a = pa, *b = pb;
    size_t n = a->key_len < b->key_len ? a->key_len : b->key_len;
    int c = memcmp(a->key, b->key, n);
    if (c != 0)
        return c;
    if (a->key_len != b->key_len)
        return a->key_len < b->key_len ? -1 : 1;
    return a->key < b->key ? -1 : a->key > b->key;
}

/* P3: no key twice. A pairwise check is quadratic, and a legal 4 MiB line
 * holds 400,000 tokens (minutes of comparisons); sorting a copy is
 * O(n log n) whatever the keys are, where a hash table can be defeated by
 * chosen collisions. The key reported is the first token (in line order)
 * that repeats an earlier key, as a left-to-right reader would find it. */
static int find_duplicate(const wire_tokens *t, char *err, size_t cap)
{
    if (t->n < 2)
        return 0;
    wire_kv *s = malloc(t->n * sizeof *s);
    if (!s)
        return fail(err, cap, "out of memory");
    memcpy(s, t->kv, t->n * sizeof *s);
    qsort(s, t->n, sizeof *s, kv_by_key);
    const wire_kv *first_repeat = NULL;
    for (size_t i = 1; i < t->n; i++)
        if (s[i].key_len == s[i - 1].key_len && memcmp(s[i].key, s[i - 1].key, s[i].key_len) == 0 &&
            (!first_repeat || s[i].key < first_repeat->key))
            first_repeat = &s[i];
    int rc = 0;
    if (first_repeat)
        rc = fail(err, cap, "key '%.*s' appears twice", (int)(first_repeat->key_len > 40 ? 40 : first_repeat->key_len),
                  first_repeat->key);
    free(s);
    return rc;
}

int wire_split(const char *line, size_t len, wire_tokens *t, char *err, size_t cap)
{
    t->n = 0;
    if (len == 0)
        return fail(err, cap, "empty line");
    size_t start = 0, index = 1;
    for (;;) {
        const char *sp = memchr(line + start, ' ', len - start);
        size_t end = sp ? (size_t)(sp - line) : len;
        if (end == start && start == 0)
            return fail(err, cap, "line starts with a space");
        if (end == start)
            return fail(err, cap, "two spaces in a row at byte %zu (tokens are separated by one space)", start - 1);
        if (t->n == t->cap) {
            size_t ncap = t->cap ? 2 * t->cap : 16;
            wire_kv *p = realloc(t->kv, ncap * sizeof *p);
            if (!p)
                return fail(err, cap, "out of memory");
            t->kv = p;
            t->cap = ncap;
        }
        wire_kv *kv = &t->kv[t->n];
        if (split_token(line + start, end - start, index, kv, err, cap) != 0)
            return -1;
        t->n++;
        if (!sp)
            return find_duplicate(t, err, cap);
        start = end + 1;
        index++;
        if (start == len)
            return fail(err, cap, "line ends with a space");
    }
}

const wire_kv *wire_find(const wire_tokens *t, const char *key)
{
    for (size_t i = 0; i < t->n; i++)
        if (key_is(&t->kv[i], key))
            return &t->kv[i];
    return NULL;
}

const char *wire_leading_id(const char *line, size_t len, size_t *id_len)
{
    if (len < 4 || memcmp(line, "id=", 3) != 0)
        return NULL;
    size_t n = 0;
    while (3 + n < len && line[3 + n] != ' ') {
        unsigned char c = (unsigned char)line[3 + n];
        if (c == '=' || is_control(c) || n == WIRE_MAX_ID)
            return NULL;
        n++;
    }
    if (n == 0)
        return NULL;
    *id_len = n;
    return line + 3;
}

/* ---- values ------------------------------------------------------------------- */

static int hex_digit(unsigned char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

int wire_parse_int(const char *v, size_t len, uint64_t max, uint64_t *out, char *err, size_t cap)
{
    char b[8];
    if (len == 0)
        return fail(err, cap, "empty (an int is decimal digits)");
    if (len > 1 && v[0] == '0')
        return fail(err, cap, "'%.*s' has a leading zero", (int)(len > 24 ? 24 : len), v);
    uint64_t x = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)v[i];
        if (c < '0' || c > '9')
            return fail(err, cap, "%s at byte %zu is not a decimal digit (ints have no sign)", show_byte(c, b), i);
        unsigned d = (unsigned)(c - '0');
        if (x > (UINT64_MAX - d) / 10)
            return fail(err, cap, "'%.*s' is too large (at most %llu)", (int)(len > 24 ? 24 : len), v,
                        (unsigned long long)max);
        x = x * 10 + d;
    }
    if (x > max)
        return fail(err, cap, "%llu is too large (at most %llu)", (unsigned long long)x, (unsigned long long)max);
    *out = x;
    return 0;
}

int wire_parse_u64(const char *v, size_t len, uint64_t *out, char *err, size_t cap)
{
    char b[8];
    if (len != 16)
        return fail(err, cap, "a u64 is exactly 16 hex digits, got %zu characters", len);
    uint64_t x = 0;
    for (size_t i = 0; i < 16; i++) {
        int d = hex_digit((unsigned char)v[i]);
        if (d < 0)
            return fail(err, cap, "%s at byte %zu is not a hex digit", show_byte((unsigned char)v[i], b), i);
        x = x << 4 | (uint64_t)d;
    }
    *out = x;
    return 0;
}

int wire_parse_hex32s(const char *v, size_t len, uint32_t **out, size_t *n, char *err, size_t cap)
{
    char b[8];
    *out = NULL;
    *n = 0;
    if (len == 0)
        return fail(err, cap, "empty array (arrays have at least one element)");
    if (len % 9 != 8) {
        /* find the first element that is not 8 digits long, to say where */
        size_t i = 0, k = 0;
        while (i < len) {
            size_t j = i;
            while (j < len && v[j] != ',')
                j++;
            if (j - i != 8)
                return fail(err, cap, "element %zu has %zu characters, expected 8 hex digits", k, j - i);
            i = j + 1;
            k++;
        }
        return fail(err, cap, "ends with ',' after element %zu", k - 1);
    }
    size_t count = (len + 1) / 9;
    uint32_t *a = malloc(count * sizeof *a);
    if (!a)
        return fail(err, cap, "out of memory for %zu elements", count);
    for (size_t k = 0; k < count; k++) {
        const char *e = v + 9 * k;
        uint32_t x = 0;
        for (size_t i = 0; i < 8; i++) {
            int d = hex_digit((unsigned char)e[i]);
            if (d < 0) {
                free(a);
                if (e[i] == ',')
                    return fail(err, cap, "element %zu has %zu characters, expected 8 hex digits", k, i);
                return fail(err, cap, "element %zu: %s is not a hex digit", k, show_byte((unsigned char)e[i], b));
            }
            x = x << 4 | (uint32_t)d;
        }
        if (k + 1 < count && e[8] != ',') {
            free(a);
            return fail(err, cap, "element %zu: expected ',' after 8 hex digits, got %s", k,
                        show_byte((unsigned char)e[8], b));
        }
        a[k] = x;
    }
    *out = a;
    *n = count;
    return 0;
}

int wire_parse_ints(const char *v, size_t len, uint64_t max, uint32_t **out, size_t *n, char *err, size_t cap)
{
    *out = NULL;
    *n = 0;
    if (max > UINT32_MAX)
        max = UINT32_MAX;
    if (len == 0)
        return fail(err, cap, "empty array (arrays have at least one element)");
    size_t count = 1;
    for (size_t i = 0; i < len; i++)
        count += v[i] == ',';
    uint32_t *a = malloc(count * sizeof *a);
    if (!a)
        return fail(err, cap, "out of memory for %zu elements", count);
    size_t i = 0;
    for (size_t k = 0; k < count; k++) {
        size_t j = i;
        while (j < len && v[j] != ',')
            j++;
        char sub[160];
        uint64_t x;
        if (wire_parse_int(v + i, j - i, max, &x, sub, sizeof sub) != 0) {
            free(a);
            return fail(err, cap, "element %zu: %s", k, sub);
        }
        a[k] = (uint32_t)x;
        i = j + 1;
    }
    *out = a;
    *n = count;
    return 0;
}

int wire_parse_name(const char *v, size_t len, char *err, size_t cap)
{
    char b[8];
    if (len == 0)
        return fail(err, cap, "empty name");
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)v[i];
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'))
            return fail(err, cap, "name '%.*s' has %s (names are [a-z0-9_]+)", (int)(len > 40 ? 40 : len), v,
                        show_byte(c, b));
    }
    return 0;
}

/* ---- formatting ---------------------------------------------------------------- */

void wire_buf_init(wire_buf *b)
{
    b->p = NULL;
    b->len = b->cap = 0;
    b->failed = 0;
}

void wire_buf_free(wire_buf *b)
{
    free(b->p);
    wire_buf_init(b);
}

void wire_buf_reset(wire_buf *b)
{
    b->len = 0;
    b->failed = 0;
    if (b->p)
        b->p[0] = '\0';
}

/* Room for n more bytes and the NUL; 0 or -1. */
static int reserve(wire_buf *b, size_t n)
{
    if (b->failed)
        return -1;
    if (b->len + n + 1 <= b->cap)
        return 0;
    size_t ncap = b->cap ? b->cap : 256;
    while (ncap < b->len + n + 1) {
        if (ncap > SIZE_MAX / 2) {
            b->failed = 1;
            return -1;
        }
        ncap *= 2;
    }
    char *p = realloc(b->p, ncap);
    if (!p) {
        b->failed = 1;
        return -1;
    }
    b->p = p;
    b->cap = ncap;
    return 0;
}

void wire_put_bytes(wire_buf *b, const char *s, size_t n)
{
    if (reserve(b, n) != 0)
        return;
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
}

void wire_put_str(wire_buf *b, const char *s) { wire_put_bytes(b, s, strlen(s)); }

void wire_put_key(wire_buf *b, const char *key)
{
    if (b->len > 0)
        wire_put_bytes(b, " ", 1);
    wire_put_str(b, key);
    wire_put_bytes(b, "=", 1);
}

static const char HEX[] = "0123456789abcdef";

void wire_put_hex32s(wire_buf *b, const uint32_t *v, size_t n)
{
    if (n > (SIZE_MAX - 1) / 9 || reserve(b, 9 * n) != 0) {
        b->failed = 1;
        return;
    }
    char *q = b->p + b->len;
    for (size_t k = 0; k < n; k++) {
        if (k)
            *q++ = ',';
        for (int s = 28; s >= 0; s -= 4)
            *q++ = HEX[(v[k] >> s) & 15];
    }
    b->len = (size_t)(q - b->p);
    b->p[b->len] = '\0';
}

void wire_put_f32s(wire_buf *b, const float *v, size_t n)
{
    uint32_t chunk[256];
    for (size_t i = 0; i < n; i += 256) {
        size_t m = n - i < 256 ? n - i : 256;
        for (size_t k = 0; k < m; k++)
            chunk[k] = it_f32_bits(v[i + k]);
        if (i)
            wire_put_bytes(b, ",", 1);
        wire_put_hex32s(b, chunk, m);
    }
}

void wire_put_int(wire_buf *b, uint64_t v)
{
    char digits[24];
    size_t n = 0;
    do {
        digits[sizeof digits - 1 - n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    wire_put_bytes(b, digits + sizeof digits - n, n);
}

void wire_put_ints(wire_buf *b, const uint32_t *v, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        if (k)
            wire_put_bytes(b, ",", 1);
        wire_put_int(b, v[k]);
    }
}

void wire_put_u64(wire_buf *b, uint64_t v)
{
    char s[16];
    for (int i = 0; i < 16; i++)
        s[i] = HEX[(v >> (60 - 4 * i)) & 15];
    wire_put_bytes(b, s, 16);
}
