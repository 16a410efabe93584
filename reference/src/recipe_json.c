/* The recipe's JSON reader (recipe_json.h): a recursive descent over the
 * grammar of RFC 8259, narrowed to what a recipe holds. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "recipe_json.h"

typedef struct {
    const char *s;
    size_t len, pos;
    char *err;
    size_t cap;
    int failed;
} rj_in;

enum { RJ_MAX_DEPTH = 8 };

static void fail(rj_in *in, const char *what)
{
    if (in->failed)
        return;
    size_t line = 1, col = 1;
    for (size_t i = 0; i < in->pos && i < in->len; i++) {
        if (in->s[i] == '\n')
            line++, col = 1;
        else
            col++;
    }
    snprintf(in->err, in->cap, "line %zu, column %zu: %s", line, col, what);
    in->failed = 1;
}

#define FAIL(in, what)                                                                                           \
    do {                                                                                                        \
        fail((in), (what));                                                                                     \
        return;                                                                                                 \
    } while (0)

static void skip_ws(rj_in *in)
{
    while (in->pos < in->len && strchr(" \t\r\n", in->s[in->pos]) && in->s[in->pos])
        in->pos++;
}

static int peek(rj_in *in) { return in->pos < in->len ? (unsigned char)in->s[in->pos] : -1; }

static void value(rj_in *in, rj_value *v, int depth);

static void string(rj_in *in, const char **str, size_t *n)
{
    in->pos++; /* the opening quote */
    size_t start = in->pos;
    for (;;) {
        int c = peek(in);
        if (c < 0)
            FAIL(in, "a string that does not end");
        if (c == '"')
            break;
        if (c == '\\')
            FAIL(in, "an escape in a string (a recipe's strings are written as they are)");
        if (c < 0x20)
            FAIL(in, "a control character in a string");
        in->pos++;
    }
    *str = in->s + start;
    *n = in->pos - start;
    in->pos++;
}

static void integer(rj_in *in, rj_value *v)
{
    if (peek(in) == '-')
        FAIL(in, "a negative number; expected a non-negative integer");
    size_t start = in->pos;
    while (peek(in) >= '0' && peek(in) <= '9') {
        unsigned d = (unsigned)(peek(in) - '0');
        if (v->num > (UINT64_MAX - d) / 10)
            v->num_big = 1;
        else
            v->num = v->num * 10 + d;
        in->pos++;
    }
    if (in->pos - start > 1 && in->s[start] == '0') {
        in->pos = start;
        FAIL(in, "a number with a leading zero");
    }
    if (peek(in) == '.' || peek(in) == 'e' || peek(in) == 'E')
        FAIL(in, "a fraction or an exponent; expected an integer");
    v->type = RJ_INTEGER;
}

static void grow(rj_in *in, rj_value *v, size_t *cap, int with_keys)
{
    if (v->n < *cap)
        return;
    size_t nc = *cap ? 2 * *cap : 8;
    rj_value *items = realloc(v->items, nc * sizeof *items);
    if (items)
        v->items = items;
    char **keys = with_keys ? realloc(v->keys, nc * sizeof *keys) : NULL;
    if (keys)
        v->keys = keys;
    if (!items || (with_keys && !keys))
        FAIL(in, "out of memory");
    *cap = nc;
}

static void members(rj_in *in, rj_value *v, int depth, int object)
{
    const char close = object ? '}' : ']';
    size_t cap = 0;
    in->pos++;
    skip_ws(in);
    if (peek(in) == close) {
        in->pos++;
        return;
    }
    for (;;) {
        skip_ws(in);
        grow(in, v, &cap, object);
        if (in->failed)
            return;
        rj_value *item = &v->items[v->n];
        memset(item, 0, sizeof *item);
        if (object) {
            v->keys[v->n] = NULL;
            if (peek(in) != '"')
                FAIL(in, "expected a key (a string)");
            const char *k;
            size_t kn = 0;
            string(in, &k, &kn);
            if (in->failed)
                return;
            for (size_t j = 0; j < v->n; j++)
                if (strlen(v->keys[j]) == kn && memcmp(v->keys[j], k, kn) == 0)
                    {
                    in->pos -= kn + 2;
                    FAIL(in, "a key that appears twice in one object");
                }
            char *copy = malloc(kn + 1);
            if (!copy)
                FAIL(in, "out of memory");
            memcpy(copy, k, kn);
            copy[kn] = 0;
            v->keys[v->n] = copy;
            skip_ws(in);
            if (peek(in) != ':')
                {
                v->n++;
                FAIL(in, "expected ':' after a key");
            }
            in->pos++;
        }
        v->n++;
        value(in, item, depth + 1);
        if (in->failed)
            return;
        skip_ws(in);
        if (peek(in) == ',') {
            in->pos++;
            continue;
        }
        if (peek(in) == close) {
            in->pos++;
            return;
        }
        FAIL(in, object ? "expected ',' or '}'" : "expected ',' or ']'");
    }
}

static void literal(rj_in *in, rj_value *v, const char *word)
{
    size_t n = strlen(word);
    if (in->len - in->pos < n || memcmp(in->s + in->pos, word, n) != 0)
        FAIL(in, "invalid JSON");
    in->pos += n;
    v->type = RJ_OTHER;
}

static void value(rj_in *in, rj_value *v, int depth)
{
    if (depth > RJ_MAX_DEPTH)
        FAIL(in, "nested deeper than a recipe is");
    skip_ws(in);
    int c = peek(in);
    if (c == '{')
        v->type = RJ_OBJECT, members(in, v, depth, 1);
    else if (c == '[')
        v->type = RJ_ARRAY, members(in, v, depth, 0);
    else if (c == '"')
        v->type = RJ_STRING, string(in, &v->str, &v->str_len);
    else if (c == '-' || (c >= '0' && c <= '9'))
        integer(in, v);
    else if (c == 't')
        literal(in, v, "true");
    else if (c == 'f')
        literal(in, v, "false");
    else if (c == 'n')
        literal(in, v, "null");
    else
        fail(in, c < 0 ? "the document ends early" : "invalid JSON");
}

rj_value *rj_parse(const char *text, size_t len, char *err, size_t cap)
{
    rj_in in = {text, len, 0, err, cap, 0};
    rj_value *v = calloc(1, sizeof *v);
    if (!v) {
        snprintf(err, cap, "out of memory");
        return NULL;
    }
    value(&in, v, 0);
    skip_ws(&in);
    if (!in.failed && in.pos != len)
        fail(&in, "bytes after the document");
    if (in.failed) {
        rj_free(v);
        return NULL;
    }
    return v;
}

static void release(rj_value *v)
{
    for (size_t i = 0; i < v->n; i++) {
        release(&v->items[i]);
        if (v->keys)
            free(v->keys[i]);
    }
    free(v->items);
    free(v->keys);
}

void rj_free(rj_value *v)
{
    if (!v)
        return;
    release(v);
    free(v);
}
