/* json_strict.c — see json_strict.h. Linear in the document's size: one pass
 * over the text for escapes, cJSON's parse, one walk of the tree in which an
 * object of n keys is checked in O(n log n). */
#include "core/json_strict.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"

static void position(const char *text, const char *at, size_t *line, size_t *col)
{
    *line = 1, *col = 1;
    for (const char *p = text; p < at; p++) {
        if (*p == '\n')
            (*line)++, *col = 1;
        else
            (*col)++;
    }
}

/* The raw text: a \u0000 escape inside a string (backslashes counted, so
 * "\\u0000" — an escaped backslash and text — is not one). Returns the
 * escape's position or NULL. */
static const char *find_nul_escape(const char *text, size_t len)
{
    int in_string = 0;
    for (size_t i = 0; i < len; i++) {
        char c = text[i];
        if (!in_string) {
            in_string = c == '"';
            continue;
        }
        if (c == '"') {
            in_string = 0;
        } else if (c == '\\' && i + 1 < len) {
            if (text[i + 1] == 'u' && i + 5 < len && !memcmp(text + i + 2, "0000", 4))
                return text + i;
            i++; /* the escaped character */
        }
    }
    return NULL;
}

static int cmp_key(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The first key that appears twice in obj, or NULL. */
static const char *duplicate_key(const cJSON *obj)
{
    size_t n = 0;
    for (const cJSON *c = obj->child; c; c = c->next)
        n++;
    if (n < 2)
        return NULL;
    if (n <= 16) {
        for (const cJSON *a = obj->child; a; a = a->next)
            for (const cJSON *b = a->next; b; b = b->next)
                if (a->string && b->string && !strcmp(a->string, b->string))
                    return a->string;
        return NULL;
    }
    const char **keys = xmalloc(n * sizeof *keys);
    size_t k = 0;
    for (const cJSON *c = obj->child; c; c = c->next)
        keys[k++] = c->string ? c->string : "";
    qsort(keys, n, sizeof *keys, cmp_key);
    const char *dup = NULL;
    for (size_t i = 1; i < n && !dup; i++)
        if (!strcmp(keys[i - 1], keys[i]))
            dup = keys[i];
    free(keys);
    return dup;
}

/* Walks the tree (cJSON bounds its depth, CJSON_NESTING_LIMIT); path is the
 * JSON path of node. Returns 0, or -1 with the message. */
static int walk(const cJSON *node, sbuf *path, char *err, size_t cap)
{
    if (cJSON_IsObject(node)) {
        const char *dup = duplicate_key(node);
        if (dup) {
            char *k = sanitized(dup, strlen(dup), 60);
            snprintf(err, cap, "%s: key \"%s\" appears more than once in one object (JSON readers disagree on which one counts)",
                     path->p, k);
            free(k);
            return -1;
        }
    }
    if (!cJSON_IsObject(node) && !cJSON_IsArray(node))
        return 0;
    size_t keep = path->len, i = 0;
    for (const cJSON *c = node->child; c; c = c->next, i++) {
        if (cJSON_IsObject(node)) {
            char *k = sanitized(c->string ? c->string : "", c->string ? strlen(c->string) : 0, 60);
            sbuf_printf(path, ".%s", k);
            free(k);
        } else
            sbuf_printf(path, "[%zu]", i);
        int r = walk(c, path, err, cap);
        path->len = keep;
        path->p[keep] = '\0';
        if (r)
            return -1;
    }
    return 0;
}

cJSON *json_parse_strict(const char *text, size_t len, char *err, size_t cap)
{
    size_t line, col;
    const char *nul = find_nul_escape(text, len);
    if (nul) {
        position(text, nul, &line, &col);
        snprintf(err, cap, "line %zu, column %zu: a \\u0000 escape in a string (a C reader ends the string there, "
                           "other readers do not)", line, col);
        return NULL;
    }
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(text, len, &end, 0);
    if (!root) {
        const char *stop = end && end >= text && end <= text + len ? end : text + len;
        position(text, stop, &line, &col);
        snprintf(err, cap, "line %zu, column %zu: invalid JSON", line, col);
        return NULL;
    }
    const char *rest = end && end >= text && end <= text + len ? end : text + len;
    while (rest < text + len && (*rest == ' ' || *rest == '\t' || *rest == '\n' || *rest == '\r'))
        rest++;
    if (rest < text + len) {
        position(text, rest, &line, &col);
        snprintf(err, cap, "line %zu, column %zu: data after the JSON document (one document per file)", line, col);
        cJSON_Delete(root);
        return NULL;
    }
    sbuf path;
    sbuf_init(&path);
    sbuf_addc(&path, '$');
    int bad = walk(root, &path, err, cap);
    sbuf_free(&path);
    if (bad) {
        cJSON_Delete(root);
        return NULL;
    }
    return root;
}
