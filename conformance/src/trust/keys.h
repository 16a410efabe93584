/* keys.h — the project's signing keys, pinned by fingerprint in the runner
 * the way vectorset/official.c pins the published vector sets: a principal
 * name in an allowed-signers file is a label anyone can write; the
 * fingerprint of the key that made a good signature is an identity. The
 * words every command uses for a signer come from here. */
#ifndef CONFORM_TRUST_KEYS_H
#define CONFORM_TRUST_KEYS_H

typedef enum { KEY_OTHER, KEY_PROJECT, KEY_PROJECT_RETIRED } key_class;

typedef struct {
    const char *fingerprint; /* "SHA256:..." as ssh-keygen -l prints it */
    const char *file;        /* its public half in vectors/KEYS/ */
    const char *retired;     /* NULL for the current key, else the date it was retired */
    const char *note;        /* why it was retired */
} project_key;

/* The pinned key with this fingerprint, or NULL. */
const project_key *project_key_find(const char *fingerprint);
key_class key_class_of(const char *fingerprint);

/* The words for a good signature: "signed by the project key
 * (isotrain-project SHA256:...)", "signed by a retired project key
 * (isotrain-project SHA256:..., retired 2026-12-01: ...)", "signed by another
 * key (not the project's): PRINCIPAL SHA256:...". Fresh string. */
char *signer_words(const char *principal, const char *fingerprint);

#endif
