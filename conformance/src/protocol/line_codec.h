/* line_codec.h — the IUT line protocol's lines (spec/iut-protocol.md P3) and value
 * encodings (P4). Used both for requests/responses and for the vector files,
 * whose input/output strings are P4 encodings (vectors/FORMAT.md §2). */
#ifndef CONFORM_LINE_CODEC_H
#define CONFORM_LINE_CODEC_H

#include <stddef.h>
#include <stdint.h>

#include "core/util.h"

/* P4 value types. */
typedef enum { VT_F32, VT_U32, VT_U64, VT_INT, VT_INTS, VT_NAME, VT_SHA256 } val_type;

/* A decoded value: numbers (bit patterns for f32/u32) in v[0..n-1]; for
 * VT_NAME and VT_SHA256 the text (sha256 lowercased) in text, n = 1. */
typedef struct {
    val_type type;
    size_t n;
    uint64_t *v;
    char *text;
} value;

void value_free(value *x);
/* Human description of a type's encoding, for "expected ..." messages. */
const char *val_type_describe(val_type t);
/* The type's name as P5 writes it (f32, u32, u64, int, int[], name, sha256). */
const char *val_type_name(val_type t);

/* P4: decodes s[0..len) as type t. lower_only: hex must be lowercase (vector
 * files, FORMAT.md: "Hex strings are lowercase"; an IUT MAY answer in either
 * case). Returns 0, or -1 with what was wrong in why. */
int value_parse(val_type t, const char *s, size_t len, int lower_only, value *out, char *why, size_t cap);

/* P4 encoders (lowercase hex). */
void encode_f32s(sbuf *b, const float *x, size_t n);
void encode_u32s(sbuf *b, const uint32_t *x, size_t n);
void encode_ints(sbuf *b, const uint64_t *x, size_t n);

/* P3: one key=value token of a line, pointing into the line. */
typedef struct {
    const char *key, *val;
    size_t key_len, val_len;
} wire_token;

typedef struct {
    wire_token *t;
    size_t n, cap;
} wire_line;

void wire_line_init(wire_line *l);
void wire_line_free(wire_line *l);
/* P3: splits a line (without its '\n') into tokens; rejects empty tokens,
 * double spaces, keys outside [a-z][a-z0-9_]*, values with '=', control
 * characters, an empty value and repeated keys. */
int wire_line_parse(const char *line, size_t len, wire_line *out, char *why, size_t cap);
/* The token with this key, or NULL. */
const wire_token *wire_line_get(const wire_line *l, const char *key);

/* P3 key syntax. */
int wire_key_ok(const char *k, size_t n);

#endif
