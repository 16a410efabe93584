/* input.c — reading the matrix's JSON inputs (see matrix.h). */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/json_strict.h"
#include "core/json_checked.h"
#include "report/matrix/matrix.h"

/* ---- small helpers -------------------------------------------------------- */

char *mx_dup(const char *s) { return s ? xstrdup(s) : NULL; }

void mx_free_strv(char **v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

/* Where the matrix says what is wrong with its inputs: stderr, unless the
 * report (report/html/receipt_gate.c) collects it to show a refused receipt's
 * reason on the page. */
static FILE *messages;

void mx_set_messages(FILE *f) { messages = f; }

FILE *mx_messages(void) { return messages ? messages : stderr; }

/* A problem with an input file: "FILE: FIELD: what" on mx_messages(). */
int mx_bad(const char *file, const char *field, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int mx_bad(const char *file, const char *field, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    FILE *o = mx_messages();
    fprintf(o, "isotrain-conform matrix: %s: %s%s", file, field ? field : "", field ? ": " : "");
    vfprintf(o, fmt, ap);
    fputc('\n', o);
    va_end(ap);
    return -1;
}

/* obj[key] as a string; NULL (and *ok=0 after a message) when absent or not a
 * string, unless nullable and the value is JSON null. */
const char *mx_jstr(const char *file, const cJSON *obj, const char *path, const char *key, int nullable, int *ok)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    char field[256];
    snprintf(field, sizeof field, "%s%s%s", path, *path ? "." : "", key);
    if (!v) {
        if (*ok)
            mx_bad(file, field, "missing (a string%s is required)", nullable ? " or null" : "");
        *ok = 0;
        return NULL;
    }
    if (nullable && cJSON_IsNull(v))
        return NULL;
    if (!cJSON_IsString(v)) {
        if (*ok)
            mx_bad(file, field, "expected a string%s", nullable ? " or null" : "");
        *ok = 0;
        return NULL;
    }
    return v->valuestring;
}

const cJSON *mx_jobj(const char *file, const cJSON *obj, const char *path, const char *key, int *ok)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!cJSON_IsObject(v)) {
        if (*ok)
            mx_bad(file, NULL, "%s%s%s: %s", path, *path ? "." : "", key, v ? "expected an object" : "missing (an object is required)");
        *ok = 0;
        return NULL;
    }
    return v;
}

cJSON *mx_parse_file(const char *path, size_t cap)
{
    char *data;
    size_t len;
    char err[512];
    if (read_file(path, cap, &data, &len, err, sizeof err) != 0) {
        fprintf(mx_messages(), "isotrain-conform matrix: %s\n", err);
        return NULL;
    }
    char why[256];
    cJSON *j = json_parse_strict(data, len, why, sizeof why); /* core/json_strict.h */
    if (!j)
        mx_bad(path, NULL, "not valid JSON: %s", why);
    free(data);
    return j;
}

/* A whole number in [0, max] (max < 2^53) from a JSON number, checked
 * before it is converted: an out-of-range double converted to an integer is
 * undefined behaviour, and a receipt is untrusted input. */
int mx_juint(const char *file, const char *field, const cJSON *v, uint64_t max, uint64_t *out)
{
    if (jx_whole(v, max, out) != 0) /* core/json_checked.h: verify reads the same way */
        return mx_bad(file, field, "expected a whole number from 0 to %llu", (unsigned long long)max);
    return 0;
}
