/* json_checked.c — see json_checked.h. */
#include "core/json_checked.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/json_strict.h"
#include "core/util.h"

/* Every document goes through the strict rule (core/json_strict.h): a
 * duplicate key, a \u0000 escape or data after the document is refused like
 * a syntax error. */
cJSON *jx_parse(jctx *c, const char *text, size_t len)
{
    char err[256];
    cJSON *root = json_parse_strict(text, len, err, sizeof err);
    if (root)
        return root;
    if (strstr(err, ": invalid JSON"))
        problems_add(c->pr, "%s: %s (expected a JSON document written by cJSON)", c->file, err);
    else
        problems_add(c->pr, "%s: %s", c->file, err);
    return NULL;
}

void jx_describe(const cJSON *item, char *buf, size_t cap)
{
    if (!item)
        snprintf(buf, cap, "nothing (missing)");
    else if (cJSON_IsString(item)) {
        char *s = sanitized(item->valuestring, strlen(item->valuestring), 40);
        snprintf(buf, cap, "string \"%s\"", s);
        free(s);
    } else if (cJSON_IsNumber(item))
        snprintf(buf, cap, "number %.17g", item->valuedouble);
    else if (cJSON_IsArray(item))
        snprintf(buf, cap, "an array of %d", cJSON_GetArraySize(item));
    else if (cJSON_IsObject(item))
        snprintf(buf, cap, "an object");
    else if (cJSON_IsBool(item))
        snprintf(buf, cap, "%s", cJSON_IsTrue(item) ? "true" : "false");
    else if (cJSON_IsNull(item))
        snprintf(buf, cap, "null");
    else
        snprintf(buf, cap, "an invalid value");
}

void jx_expect(jctx *c, const char *path, const cJSON *item, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *want = xvasprintf(fmt, ap);
    va_end(ap);
    char got[128];
    jx_describe(item, got, sizeof got);
    problems_add(c->pr, "%s: %s: expected %s, got %s", c->file, path, want, got);
    free(want);
}

int jx_no_duplicates(jctx *c, const cJSON *obj, const char *path)
{
    int bad = 0;
    for (const cJSON *a = obj->child; a; a = a->next)
        for (const cJSON *b = a->next; b; b = b->next)
            if (a->string && b->string && strcmp(a->string, b->string) == 0) {
                problems_add(c->pr, "%s: %s: key \"%s\" appears more than once", c->file, path, a->string);
                bad = 1;
            }
    return bad ? -1 : 0;
}

int jx_fields(jctx *c, const cJSON *obj, const char *path, const char *const *keys, size_t n)
{
    if (!cJSON_IsObject(obj)) {
        jx_expect(c, path, obj, "an object");
        return -1;
    }
    int bad = jx_no_duplicates(c, obj, path);
    for (size_t i = 0; i < n; i++)
        if (!cJSON_GetObjectItemCaseSensitive(obj, keys[i])) {
            problems_add(c->pr, "%s: %s: missing field \"%s\"", c->file, path, keys[i]);
            bad = -1;
        }
    for (const cJSON *it = obj->child; it; it = it->next) {
        int known = 0;
        for (size_t i = 0; i < n; i++)
            known |= it->string && strcmp(it->string, keys[i]) == 0;
        if (!known) {
            problems_add(c->pr, "%s: %s.%s: unknown field (expected only the fields FORMAT.md lists)", c->file,
                         path, it->string ? it->string : "?");
            bad = -1;
        }
    }
    if (bad)
        return -1;
    size_t i = 0;
    for (const cJSON *it = obj->child; it; it = it->next, i++)
        if (strcmp(it->string, keys[i]) != 0) {
            problems_add(c->pr, "%s: %s: field \"%s\" at position %zu, expected \"%s\" there (field order is as FORMAT.md lists)",
                         c->file, path, it->string, i + 1, keys[i]);
            return -1;
        }
    return 0;
}

const char *jx_str(jctx *c, const cJSON *obj, const char *path, const char *key)
{
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!cJSON_IsString(it) || !it->valuestring) {
        char *p = xasprintf("%s.%s", path, key);
        jx_expect(c, p, it, "a string");
        free(p);
        return NULL;
    }
    return it->valuestring;
}

int jx_item_uint(jctx *c, const cJSON *item, const char *path, uint64_t max, uint64_t *out)
{
    if (!cJSON_IsNumber(item) || item->valuedouble < 0 || item->valuedouble > (double)max ||
        item->valuedouble != floor(item->valuedouble) || item->valuedouble > 9007199254740992.0) {
        jx_expect(c, path, item, "an integer in [0, %llu]", (unsigned long long)max);
        return -1;
    }
    *out = (uint64_t)item->valuedouble;
    return 0;
}

int jx_whole(const cJSON *v, uint64_t max, uint64_t *out)
{
    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) || v->valuedouble < 0 ||
        v->valuedouble > (double)max || v->valuedouble != floor(v->valuedouble))
        return -1;
    *out = (uint64_t)v->valuedouble;
    return 0;
}

int jx_uint(jctx *c, const cJSON *obj, const char *path, const char *key, uint64_t max, uint64_t *out)
{
    char *p = xasprintf("%s.%s", path, key);
    int r = jx_item_uint(c, cJSON_GetObjectItemCaseSensitive(obj, key), p, max, out);
    free(p);
    return r;
}

/* obj[key] when is(it), else a problem naming path.key and what. */
static const cJSON *member_of_kind(jctx *c, const cJSON *obj, const char *path, const char *key,
                                  cJSON_bool (*is)(const cJSON *), const char *what)
{
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!is(it)) {
        char *p = xasprintf("%s.%s", path, key);
        jx_expect(c, p, it, "%s", what);
        free(p);
        return NULL;
    }
    return it;
}

const cJSON *jx_arr(jctx *c, const cJSON *obj, const char *path, const char *key)
{
    return member_of_kind(c, obj, path, key, cJSON_IsArray, "an array");
}

const cJSON *jx_obj(jctx *c, const cJSON *obj, const char *path, const char *key)
{
    return member_of_kind(c, obj, path, key, cJSON_IsObject, "an object");
}

int jx_is_version(const char *s)
{
    int parts = 0;
    while (*s) {
        if (*s < '0' || *s > '9')
            return 0;
        if (*s == '0' && s[1] >= '0' && s[1] <= '9')
            return 0;
        while (*s >= '0' && *s <= '9')
            s++;
        parts++;
        if (*s == '.')
            s++;
        else if (*s)
            return 0;
    }
    return parts == 3;
}
