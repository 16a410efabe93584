/* receipt_open.h — the strict reader of a receipt file: the envelope (or a
 * bare receipt) through core/json_strict.h (no key twice, no \u0000, nothing
 * after the document), then every field against the one table
 * (trust/receipt_schema.h). It checks no signature and recomputes no
 * verdict: that is verify (trust/verify_receipt.h), which reads the same
 * way. */
#ifndef CONFORM_TRUST_RECEIPT_OPEN_H
#define CONFORM_TRUST_RECEIPT_OPEN_H

#include <cjson/cJSON.h>

#include "core/problems.h"

enum { RECEIPT_FILE_MAX = 64 << 20, RECEIPT_SCHEMA_PROBLEMS = 40 };

/* The receipt of file (a copy the caller frees), or NULL with problems
 * naming the file and the field. *enveloped (may be NULL) says whether it
 * came in a DSSE envelope. */
cJSON *receipt_open(const char *file, int *enveloped, problems *pr);

#endif
