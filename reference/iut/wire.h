/* wire: the line protocol of spec/iut-protocol.md P3-P4, parsing and
 * formatting only (no I/O policy, no ops). Strict: anything the protocol
 * does not allow is an error with a message that says what and where.
 *
 * Every parser takes a value as (pointer, length) into the request line, so
 * a line is never copied or modified, and writes its message (without the
 * key; the caller prefixes it) into err[0..cap-1] on failure. */
#ifndef IT_WIRE_H
#define IT_WIRE_H

/* printf-style checking for the CLI's formatters. MinGW's "printf" check is
 * msvcrt's (no %zu); Windows builds use MinGW's own C99 printf
 * (-D__USE_MINGW_ANSI_STDIO=1, mk/cross.mk), which gnu_printf describes. */
#if defined(__MINGW32__)
#define IT_PRINTF_FORMAT gnu_printf
#else
#define IT_PRINTF_FORMAT printf
#endif

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* P3: a request or response line is at most 4 MiB. The reference counts the
 * bytes before the terminating '\n'. */
#define WIRE_MAX_LINE ((size_t)4 << 20)
/* P3: a case id is 1 to 256 bytes, so that an error line, which echoes it,
 * stays short whatever the request was. */
#define WIRE_MAX_ID 256

/* ---- reading lines ---------------------------------------------------------- */

typedef enum {
    WIRE_LINE_OK,           /* a full line, '\n' stripped */
    WIRE_LINE_EOF,          /* end of input before any byte */
    WIRE_LINE_TOO_LONG,     /* more than cap bytes before '\n': the first cap
                               are kept, the rest up to '\n' (or EOF) dropped */
    WIRE_LINE_UNTERMINATED, /* end of input after some bytes but no '\n' */
    WIRE_LINE_READ_ERROR    /* ferror(in) */
} wire_line_status;

/* Reads one line of at most cap bytes into buf (which has room for cap
 * bytes; no NUL is added: bytes may include NUL, the splitter rejects it). */
wire_line_status wire_read_line(FILE *in, char *buf, size_t cap, size_t *len);

/* ---- splitting a line into key=value tokens (P3) --------------------------- */

typedef struct {
    const char *key;
    size_t key_len;
    const char *val;
    size_t val_len;
} wire_kv;

typedef struct {
    wire_kv *kv;
    size_t n, cap;
} wire_tokens;

void wire_tokens_init(wire_tokens *t);
void wire_tokens_free(wire_tokens *t);

/* Splits line[0..len-1] into tokens: single spaces between tokens, keys
 * [a-z][a-z0-9_]*, values without space, '=' or control characters, no
 * key twice. 0 on success, -1 with a message. */
int wire_split(const char *line, size_t len, wire_tokens *t, char *err, size_t cap);

/* The token with this key, or NULL. */
const wire_kv *wire_find(const wire_tokens *t, const char *key);

/* When a line is malformed the answer still needs its id: the value of a
 * leading "id=" token if that token itself is well-formed (1 to WIRE_MAX_ID
 * bytes, none of them a space, '=' or control character, followed by a space
 * or the end of the line), else NULL. */
const char *wire_leading_id(const char *line, size_t len, size_t *id_len);

/* ---- values (P4) --------------------------------------------------------------- */

/* int: decimal, no sign, no leading zeros, at most max. */
int wire_parse_int(const char *v, size_t len, uint64_t max, uint64_t *out, char *err, size_t cap);
/* u64: exactly 16 hex digits. */
int wire_parse_u64(const char *v, size_t len, uint64_t *out, char *err, size_t cap);
/* u32[n] / f32[n] (as bit patterns): n >= 1 groups of exactly 8 hex digits
 * separated by single commas. *out is malloc'd (caller frees). */
int wire_parse_hex32s(const char *v, size_t len, uint32_t **out, size_t *n, char *err, size_t cap);
/* int[n]: n >= 1 ints, each at most max (<= 2^32-1), comma-separated. */
int wire_parse_ints(const char *v, size_t len, uint64_t max, uint32_t **out, size_t *n, char *err,
                    size_t cap);
/* name: [a-z0-9_]+ */
int wire_parse_name(const char *v, size_t len, char *err, size_t cap);

/* ---- formatting ---------------------------------------------------------------- */

/* A growable byte buffer. On allocation failure `failed` is set and later
 * appends do nothing. The buffer is always NUL-terminated when p != NULL. */
typedef struct {
    char *p;
    size_t len, cap;
    int failed;
} wire_buf;

void wire_buf_init(wire_buf *b);
void wire_buf_free(wire_buf *b);
void wire_buf_reset(wire_buf *b);
void wire_put_bytes(wire_buf *b, const char *s, size_t n);
void wire_put_str(wire_buf *b, const char *s);
/* " key=" (no space before the first token of the line) */
void wire_put_key(wire_buf *b, const char *key);
/* Values in the P4 encodings, lowercase hex. */
void wire_put_hex32s(wire_buf *b, const uint32_t *v, size_t n);
void wire_put_f32s(wire_buf *b, const float *v, size_t n);
void wire_put_ints(wire_buf *b, const uint32_t *v, size_t n);
void wire_put_int(wire_buf *b, uint64_t v);
void wire_put_u64(wire_buf *b, uint64_t v);

#endif
