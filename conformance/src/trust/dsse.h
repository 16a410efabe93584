/* dsse.h — the receipt as an in-toto Statement (predicate type test-result
 * v0.1, the full isotrain receipt as its extension) in a DSSE envelope
 * (payloadType application/vnd.in-toto+json), optionally signed with
 * ssh-keygen -Y sign over the DSSE pre-authentication encoding. */
#ifndef CONFORM_TRUST_DSSE_H
#define CONFORM_TRUST_DSSE_H

#include <cjson/cJSON.h>
#include <stddef.h>

#include "core/base64.h"
#include "core/problems.h"
#include "core/util.h"
#include "trust/keys.h"

#define DSSE_PAYLOAD_TYPE "application/vnd.in-toto+json"
#define INTOTO_STATEMENT "https://in-toto.io/Statement/v1"
#define INTOTO_TEST_RESULT "https://in-toto.io/attestation/test-result/v0.1"
#define RECEIPT_EXTENSION "isotrainReceipt"

/* DSSE v1 PAE: "DSSEv1" SP LEN(type) SP type SP LEN(body) SP body. */
void dsse_pae(sbuf *out, const char *type, const void *body, size_t len);

/* The Statement around a receipt (receipt is copied, not taken). */
cJSON *intoto_statement(const cJSON *receipt);

/* The envelope's text; signed when key is not NULL. NULL with err. */
char *dsse_envelope(const cJSON *statement, const char *key, char *err, size_t cap);
/* The same around payload bytes as they are (`sign`: the exact payload of
 * an unsigned envelope, never re-rendered). */
char *dsse_envelope_bytes(const void *payload, size_t plen, const char *key, char *err, size_t cap);

/* An opened envelope: the payload bytes, the parsed Statement and receipt
 * (pointing into statement), and the signatures. */
typedef struct {
    unsigned char *payload;
    size_t payload_len;
    cJSON *statement;
    const cJSON *receipt;
    char **sigs;     /* armored SSHSIG texts */
    char **keyids;
    size_t n_sigs;
} dsse_opened;

/* Parses an envelope; every problem names the file and the field. 0 or -1. */
int dsse_open(const char *file, const char *text, size_t len, dsse_opened *o, problems *pr);
void dsse_opened_free(dsse_opened *o);

/* Checks every signature against the allowed signers; *who gets the first
 * good principal. Returns the number of good signatures; problems for bad ones. */
size_t dsse_check_signatures(const char *file, const dsse_opened *o, const char *allowed, char **who, problems *pr);

/* Who signed, as an identity (trust/keys.h): the principal the allowed
 * signers give the key (a label), the key's fingerprint, whether it is a
 * pinned project key, and the words for it. */
typedef struct {
    char *principal;
    char fingerprint[64];
    key_class cls;
    char *words;
} dsse_signer;

/* dsse_check_signatures, with the first good signature's signer in *first
 * (principal NULL if none is good). Every problem names the key's
 * fingerprint. */
size_t dsse_check_signers(const char *file, const dsse_opened *o, const char *allowed, dsse_signer *first,
                          problems *pr);
void dsse_signer_free(dsse_signer *s);

/* Writes an envelope (dsse_envelope's text, which it frees) to path as one
 * line, as the runner and `sign` leave a receipt. 0, or -1 with err. */
int dsse_write_file(const char *path, char *text, char *err, size_t cap);

#endif
