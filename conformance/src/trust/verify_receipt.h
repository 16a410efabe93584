/* verify_receipt.h — what `isotrain-conform verify` (and `matrix`) check in a
 * receipt: every verdict recomputed from its own case list, every
 * cross-reference (counts, per-step digests against the vector set, the
 * pinned manifest digest, the fresh-seed run against the linked reference,
 * the fresh op cases regenerated from the run seed, the IUT binary before and
 * after the run), the Statement around it, and its signature. */
#ifndef CONFORM_TRUST_VERIFY_RECEIPT_H
#define CONFORM_TRUST_VERIFY_RECEIPT_H

#include <cjson/cJSON.h>

#include "core/problems.h"

typedef struct {
    const char *vectors;         /* the vector set dir, NULL: vectors/v<vector_version> */
    const char *allowed_signers; /* NULL: signatures are not required */
} verify_opts;

typedef struct {
    char verdict[16];
    char *signer;  /* the principal of a good signature, NULL if none */
    size_t cases;
    int enveloped; /* it came in a DSSE envelope */
} verify_info;

/* Opens FILE (a DSSE envelope; a bare receipt only as an unsigned,
 * unenveloped document) and checks everything. Returns the receipt (a copy,
 * the caller frees it) when every check passed, NULL otherwise; every
 * problem names the file and the field. */
cJSON *verify_receipt_file(const char *file, const verify_opts *vo, verify_info *info, problems *pr);

/* The checks of a receipt object alone (no envelope, no signature). */
void verify_receipt_object(const char *file, const cJSON *r, const verify_opts *vo, verify_info *info, problems *pr);

#endif
