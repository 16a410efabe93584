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
#include "trust/dsse.h"
#include "trust/receipt_facts.h"

/* The trust rules receipts are written under (the receipt's "trust_rules";
 * conformance/README.md "What a receipt proves"): 2 = the subject bound (or
 * declared unbound), each ops session a case, the host fields measured. A
 * receipt without the field is of the first rules: it is read only when the
 * retired project key signed it (those are the receipts published before
 * the rules changed, and that key can sign nothing new). */
#define RECEIPT_TRUST_RULES 2

typedef struct {
    const char *vectors;         /* the vector set dir, NULL: vectors/v<vector_version> */
    const char *allowed_signers; /* who may sign (ssh-keygen ALLOWED SIGNERS); NULL: none can be checked */
    int allow_unsigned;          /* --allow-unsigned: an unsigned receipt is accepted (and said to be) */
    const char *ops_vectors;     /* a recipe set's op set dir, NULL: vectors/v1.2.0 (vectorset/ops_base.h) */
} verify_opts;

typedef struct {
    char verdict[96]; /* "PASS (recipe sha256:HEX, windows)" the longest */
    char *signer;  /* the principal of a good signature, NULL if none */
    size_t cases;
    int enveloped; /* it came in a DSSE envelope */
    /* who signed, as an identity (trust/keys.h); sig.principal NULL if no
     * good signature */
    dsse_signer sig;
    int unsigned_receipt; /* no signature at all (accepted only with allow_unsigned) */
    int legacy;           /* of the first trust rules, read because the retired project key signed it */
    int reproduction;     /* the verdict is REPRODUCTION: not certification evidence */
    /* a recipe certification (issue 32): the recipe's digest and the set's
     * generator as the receipt records them; "" for an official set's */
    char recipe_sha256[65], generator[200];
    /* its set's signer (the key's SHA256: fingerprint, "" unsigned) and the
     * op set's manifest digest: a recipe receipt without either field is
     * refused, so a verified one has both */
    char recipe_signer[64], ops_digest[65];
    /* the recipe the verified set pins (recipe_pinned: the set on disk was
     * loaded and is a recipe set): its schedule length and seed, what the
     * run's fresh windows were drawn from (fresh/fresh_windows.h) */
    int recipe_pinned;
    uint32_t recipe_steps;
    uint64_t recipe_seed;
    receipt_facts facts;  /* the subject, the emulator, what ran (trust/receipt_facts.h) */
} verify_info;

void verify_info_free(verify_info *info);

/* The words for a receipt's signer in one line: the signer_words() of a
 * good signature, or "UNSIGNED". */
const char *verify_signer_words(const verify_info *info);

/* Opens FILE (a DSSE envelope; a bare receipt only as an unsigned,
 * unenveloped document) and checks everything: the signature first (by
 * default against the project's allowed signers; an unsigned receipt is a
 * problem unless allow_unsigned), then every verdict and cross-reference.
 * Returns the receipt (a copy, the caller frees it) when every check
 * passed, NULL otherwise; every problem names the file and the field.
 * info is filled either way (verify_info_free it). Linear in the receipt's
 * size; at most VERIFY_MAX_PROBLEMS problems are kept (then a count). */
cJSON *verify_receipt_file(const char *file, const verify_opts *vo, verify_info *info, problems *pr);

enum { VERIFY_MAX_PROBLEMS = 40 };

/* The checks of a receipt object alone (no envelope, no signature; info's
 * signer decides whether a receipt of the first trust rules is read). */
void verify_receipt_object(const char *file, const cJSON *r, const verify_opts *vo, verify_info *info, problems *pr);

#endif
