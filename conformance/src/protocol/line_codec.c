/* line_codec.c — P3 lines and P4 values of spec/iut-protocol.md. */
#include "protocol/line_codec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void value_free(value *x)
{
    free(x->v);
    free(x->text);
    x->v = NULL;
    x->text = NULL;
    x->n = 0;
}

const char *val_type_name(val_type t)
{
    switch (t) {
    case VT_F32: return "f32[]";
    case VT_U32: return "u32[]";
    case VT_U64: return "u64";
    case VT_INT: return "int";
    case VT_INTS: return "int[]";
    case VT_NAME: return "name";
    case VT_SHA256: return "sha256";
    }
    return "?";
}

/* P4 table, one phrase per type. */
const char *val_type_describe(val_type t)
{
    switch (t) {
    case VT_F32: return "f32[n] (binary32 bit patterns, 8 hex digits each, comma-separated, n >= 1)";
    case VT_U32: return "u32[n] (8 hex digits each, comma-separated, n >= 1)";
    case VT_U64: return "u64 (16 hex digits)";
    case VT_INT: return "int (decimal, no sign, no leading zeros)";
    case VT_INTS: return "int[n] (decimal ints, comma-separated, n >= 1)";
    case VT_NAME: return "name ([a-z0-9_]+)";
    case VT_SHA256: return "sha256 (64 hex digits)";
    }
    return "?";
}

static int hex_run(const char *s, size_t n, int lower_only, uint64_t *out)
{
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        int h = hexval((unsigned char)s[i]);
        if (h < 0 || (lower_only && s[i] >= 'A' && s[i] <= 'F'))
            return -1;
        v = (v << 4) | (uint64_t)h;
    }
    *out = v;
    return 0;
}

static int dec_run(const char *s, size_t n, uint64_t *out)
{
    if (n == 0 || (n > 1 && s[0] == '0'))
        return -1;
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        uint64_t d = (uint64_t)(s[i] - '0');
        if (v > (UINT64_MAX - d) / 10)
            return -1;
        v = v * 10 + d;
    }
    *out = v;
    return 0;
}

/* Comma-separated elements of fixed hex width (width > 0) or decimal (0). */
static int parse_list(const char *s, size_t len, size_t width, int lower_only, value *out,
                      char *why, size_t cap)
{
    size_t count = 1;
    for (size_t i = 0; i < len; i++)
        count += s[i] == ',';
    out->v = xmalloc(count * sizeof *out->v);
    out->n = 0;
    size_t start = 0;
    for (size_t i = 0; i <= len; i++) {
        if (i < len && s[i] != ',')
            continue;
        size_t n = i - start;
        int bad = width ? (n != width || hex_run(s + start, n, lower_only, &out->v[out->n]) != 0)
                        : dec_run(s + start, n, &out->v[out->n]) != 0;
        if (bad) {
            if (n == 0)
                snprintf(why, cap, "element %zu is empty", out->n);
            else if (width)
                snprintf(why, cap, "element %zu '%.*s' is not %zu %shex digits", out->n,
                         (int)(n > 24 ? 24 : n), s + start, width, lower_only ? "lowercase " : "");
            else
                snprintf(why, cap, "element %zu '%.*s' is not a decimal int without sign or leading zeros",
                         out->n, (int)(n > 24 ? 24 : n), s + start);
            free(out->v);
            out->v = NULL;
            out->n = 0;
            return -1;
        }
        out->n++;
        start = i + 1;
    }
    return 0;
}

/* P4 */
int value_parse(val_type t, const char *s, size_t len, int lower_only, value *out, char *why, size_t cap)
{
    out->type = t;
    out->n = 0;
    out->v = NULL;
    out->text = NULL;
    if (len == 0) {
        snprintf(why, cap, "empty value (arrays are never empty, P4)");
        return -1;
    }
    switch (t) {
    case VT_F32:
    case VT_U32:
        return parse_list(s, len, 8, lower_only, out, why, cap);
    case VT_INTS:
        return parse_list(s, len, 0, lower_only, out, why, cap);
    case VT_U64:
    case VT_INT:
        out->v = xmalloc(sizeof *out->v);
        out->n = 1;
        if (t == VT_U64 ? (len != 16 || hex_run(s, len, lower_only, out->v) != 0) : dec_run(s, len, out->v) != 0) {
            snprintf(why, cap, "'%.*s' is not %s", (int)(len > 24 ? 24 : len), s,
                     t == VT_U64 ? (lower_only ? "16 lowercase hex digits" : "16 hex digits")
                                 : "a decimal int without sign or leading zeros");
            value_free(out);
            return -1;
        }
        return 0;
    case VT_NAME:
        for (size_t i = 0; i < len; i++)
            if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '_')) {
                snprintf(why, cap, "'%.*s' is not a name [a-z0-9_]+", (int)(len > 24 ? 24 : len), s);
                return -1;
            }
        out->text = xstrndup(s, len);
        out->n = 1;
        return 0;
    case VT_SHA256: {
        uint64_t dummy;
        int bad = len != 64;
        for (size_t i = 0; !bad && i < 64; i += 8)
            bad = hex_run(s + i, 8, lower_only, &dummy) != 0;
        if (bad) {
            snprintf(why, cap, "'%.*s' is not 64 %shex digits", (int)(len > 70 ? 70 : len), s,
                     lower_only ? "lowercase " : "");
            return -1;
        }
        out->text = xstrndup(s, len);
        for (size_t i = 0; i < 64; i++)
            if (out->text[i] >= 'A' && out->text[i] <= 'F')
                out->text[i] = (char)(out->text[i] - 'A' + 'a');
        out->n = 1;
        return 0;
    }
    }
    snprintf(why, cap, "unknown type");
    return -1;
}

void encode_f32s(sbuf *b, const float *x, size_t n)
{
    char tmp[16];
    for (size_t i = 0; i < n; i++) {
        uint32_t u;
        memcpy(&u, &x[i], 4);
        snprintf(tmp, sizeof tmp, i ? ",%08x" : "%08x", (unsigned)u);
        sbuf_add(b, tmp, i ? 9 : 8);
    }
}

void encode_u32s(sbuf *b, const uint32_t *x, size_t n)
{
    char tmp[16];
    for (size_t i = 0; i < n; i++) {
        snprintf(tmp, sizeof tmp, i ? ",%08x" : "%08x", (unsigned)x[i]);
        sbuf_add(b, tmp, i ? 9 : 8);
    }
}

void encode_ints(sbuf *b, const uint64_t *x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        sbuf_printf(b, i ? ",%llu" : "%llu", (unsigned long long)x[i]);
}

void wire_line_init(wire_line *l)
{
    l->t = NULL;
    l->n = l->cap = 0;
}

void wire_line_free(wire_line *l)
{
    free(l->t);
    wire_line_init(l);
}

int wire_key_ok(const char *k, size_t n)
{
    if (n == 0 || k[0] < 'a' || k[0] > 'z')
        return 0;
    for (size_t i = 1; i < n; i++)
        if (!((k[i] >= 'a' && k[i] <= 'z') || (k[i] >= '0' && k[i] <= '9') || k[i] == '_'))
            return 0;
    return 1;
}

static int key_order(const void *a, const void *b)
{
    const wire_token *x = *(const wire_token *const *)a, *y = *(const wire_token *const *)b;
    size_t n = x->key_len < y->key_len ? x->key_len : y->key_len;
    int c = memcmp(x->key, y->key, n);
    if (c)
        return c;
    return (x->key_len > y->key_len) - (x->key_len < y->key_len);
}

/* P3: no key twice. Sorting makes this O(n log n): a legal 4 MiB line of
 * distinct keys must not cost minutes (pairwise comparison did). */
static int check_unique_keys(const wire_line *l, char *why, size_t cap)
{
    if (l->n < 2)
        return 0;
    const wire_token **ix = xmalloc(l->n * sizeof *ix);
    for (size_t i = 0; i < l->n; i++)
        ix[i] = &l->t[i];
    qsort(ix, l->n, sizeof *ix, key_order);
    int rc = 0;
    for (size_t i = 1; i < l->n && !rc; i++)
        if (key_order(&ix[i - 1], &ix[i]) == 0) {
            snprintf(why, cap, "key '%.*s' appears twice", (int)(ix[i]->key_len > 32 ? 32 : ix[i]->key_len), ix[i]->key);
            rc = -1;
        }
    free(ix);
    return rc;
}

/* P3 */
int wire_line_parse(const char *line, size_t len, wire_line *out, char *why, size_t cap)
{
    out->n = 0;
    if (len == 0) {
        snprintf(why, cap, "empty line");
        return -1;
    }
    size_t start = 0;
    for (size_t i = 0; i <= len; i++) {
        if (i < len && line[i] != ' ')
            continue;
        const char *tok = line + start;
        size_t n = i - start;
        if (n == 0) {
            snprintf(why, cap, "empty token at byte %zu (tokens are separated by single spaces)", start);
            return -1;
        }
        const char *eq = memchr(tok, '=', n);
        if (!eq) {
            snprintf(why, cap, "token %zu '%.*s' has no '='", out->n + 1, (int)(n > 32 ? 32 : n), tok);
            return -1;
        }
        size_t klen = (size_t)(eq - tok);
        if (!wire_key_ok(tok, klen)) {
            snprintf(why, cap, "token %zu: key '%.*s' is not [a-z][a-z0-9_]*", out->n + 1,
                     (int)(klen > 32 ? 32 : klen), tok);
            return -1;
        }
        /* P3 (1.1.1): an empty value is valid syntax; where a P4 value is
         * expected, value_parse refuses it, and an unknown key is ignored */
        const char *val = eq + 1;
        size_t vlen = n - klen - 1;
        for (size_t j = 0; j < vlen; j++) {
            unsigned char c = (unsigned char)val[j];
            if (c == '=' || c < 0x20 || c == 0x7f) {
                snprintf(why, cap, "value of '%.*s' contains %s at offset %zu", (int)klen, tok,
                         c == '=' ? "'='" : c == '\r' ? "'\\r'" : "a control character", j);
                return -1;
            }
        }
        if (out->n == out->cap) {
            out->cap = out->cap ? 2 * out->cap : 8;
            out->t = xrealloc(out->t, out->cap * sizeof *out->t);
        }
        out->t[out->n].key = tok;
        out->t[out->n].key_len = klen;
        out->t[out->n].val = val;
        out->t[out->n].val_len = vlen;
        out->n++;
        start = i + 1;
    }
    return check_unique_keys(out, why, cap);
}

const wire_token *wire_line_get(const wire_line *l, const char *key)
{
    size_t k = strlen(key);
    for (size_t i = 0; i < l->n; i++)
        if (l->t[i].key_len == k && memcmp(l->t[i].key, key, k) == 0)
            return &l->t[i];
    return NULL;
}
