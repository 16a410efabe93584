/* base64.h — the runner's one base64 codec (RFC 4648 §4, the standard
 * alphabet): the DSSE envelope's payload and signatures, and the SSHSIG
 * armor whose key the fingerprint names. */
#ifndef CONFORM_CORE_BASE64_H
#define CONFORM_CORE_BASE64_H

#include <stddef.h>

#include "core/util.h"

/* Appends the padded base64 of data to out. */
void b64_encode(sbuf *out, const void *data, size_t n);

/* Strict decoding (RFC 4648 §3.3, §3.5): the length a multiple of 4, '='
 * only as the last one or two characters of the text, nothing outside the
 * alphabet (no line breaks), and the bits the padding leaves over zero, so
 * that one byte string has one text. *out is malloc'd (NUL-terminated, for
 * text payloads). 0, or -1 with *out NULL. */
int b64_decode(const char *s, size_t n, unsigned char **out, size_t *len);

#endif
