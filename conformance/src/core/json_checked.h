/* json_checked.h — checked access to cJSON documents for the manifest check and the
 * loader: every failed expectation becomes one problem naming the file, the
 * JSON path ($.tests[3].inputs.x) and what was expected (vectors/FORMAT.md:
 * "with the file name, the JSON path of the offending field and what was
 * expected"). */
#ifndef CONFORM_JSON_CHECKED_H
#define CONFORM_JSON_CHECKED_H

#include <cjson/cJSON.h>
#include <stdint.h>

#include "core/problems.h"

typedef struct {
    const char *file; /* as shown in messages */
    problems *pr;
} jctx;

/* Parses text; on a syntax error adds "file: line L, column C: invalid JSON"
 * and returns NULL. */
cJSON *jx_parse(jctx *c, const char *text, size_t len);

/* Adds "file: path: expected WHAT, got <description of item>". */
void jx_expect(jctx *c, const char *path, const cJSON *item, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* A short description of a JSON value ("string \"x\"", "number 3", "array"). */
void jx_describe(const cJSON *item, char *buf, size_t cap);

/* Requires obj to be an object with exactly these keys in this order
 * (FORMAT.md: field order is as listed). Returns 0 if so. */
int jx_fields(jctx *c, const cJSON *obj, const char *path, const char *const *keys, size_t n);
/* Requires an object without repeated keys. */
int jx_no_duplicates(jctx *c, const cJSON *obj, const char *path);

/* A whole number in [0, max] (max < 2^53), checked on the double before it
 * is converted (an out-of-range double converted to an integer is undefined
 * behaviour, and a receipt is untrusted): 0.5, 2^63 and -1e300 are refused.
 * The one reading of a receipt's counts for `verify` and `matrix`. Returns 0,
 * or -1 with nothing written. */
int jx_whole(const cJSON *v, uint64_t max, uint64_t *out);

/* Field getters: on a wrong type or value they add a problem and return
 * NULL / -1. Paths are of the containing object. */
const char *jx_str(jctx *c, const cJSON *obj, const char *path, const char *key);
int jx_uint(jctx *c, const cJSON *obj, const char *path, const char *key, uint64_t max, uint64_t *out);
const cJSON *jx_arr(jctx *c, const cJSON *obj, const char *path, const char *key);
const cJSON *jx_obj(jctx *c, const cJSON *obj, const char *path, const char *key);
/* An element that must be a non-negative integer <= max. */
int jx_item_uint(jctx *c, const cJSON *item, const char *path, uint64_t max, uint64_t *out);

/* "x.y.z" with decimal parts. */
int jx_is_version(const char *s);

#endif
