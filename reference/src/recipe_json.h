/* recipe_json.h — the one JSON reader of the reference (libc only: the CLI
 * links statically for every ISA of the matrix). It reads what a recipe is
 * made of and refuses whatever two JSON readers could read differently:
 * a key twice in one object, a string escape, bytes after the document,
 * a number with a sign, a fraction, an exponent or a leading zero. */
#ifndef IT_RECIPE_JSON_H
#define IT_RECIPE_JSON_H

#include <stddef.h>
#include <stdint.h>

typedef enum { RJ_OBJECT, RJ_ARRAY, RJ_STRING, RJ_INTEGER, RJ_OTHER } rj_type;

typedef struct rj_value rj_value;
struct rj_value {
    rj_type type;
    const char *str; /* RJ_STRING: its bytes (no escapes), str_len of them */
    size_t str_len;
    uint64_t num;    /* RJ_INTEGER; num_big when it exceeds 2^64 - 1 */
    int num_big;
    size_t n;        /* members of an object or an array */
    char **keys;     /* RJ_OBJECT: NUL-terminated */
    rj_value *items;
};

/* Parses len bytes. Returns the document (free with rj_free), or NULL with
 * "line L, column C: what" in err. */
rj_value *rj_parse(const char *text, size_t len, char *err, size_t cap);
void rj_free(rj_value *v);

#endif
