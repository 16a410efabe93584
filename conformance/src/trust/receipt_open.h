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
#include "trust/dsse.h"

enum { RECEIPT_FILE_MAX = 64 << 20, RECEIPT_SCHEMA_PROBLEMS = 40 };

/* A receipt file as read, before any field is checked: the parsed file,
 * and for an envelope the opened envelope (its signatures are verify's to
 * check). receipt points into doc or env. */
typedef struct {
    cJSON *doc;
    int enveloped;
    dsse_opened env;
    const cJSON *receipt;
} receipt_file;

/* Reads file (a regular file, at most RECEIPT_FILE_MAX bytes) through the
 * strict JSON rule and opens the envelope. 0 with f->receipt set, or -1
 * with problems; receipt_file_free either way. */
int receipt_file_read(const char *file, receipt_file *f, problems *pr);
void receipt_file_free(receipt_file *f);

/* The receipt of file (a copy the caller frees), or NULL with problems
 * naming the file and the field. *enveloped (may be NULL) says whether it
 * came in a DSSE envelope. */
cJSON *receipt_open(const char *file, int *enveloped, problems *pr);

#endif
