/* set_signature.h — a vector set's MANIFEST.json.sig (vectorset/
 * recipe_set.h; conformance/README.md "Recipe vector sets"), checked by the
 * runner itself before it trusts the manifest: `vectors --sign-key` signs
 * the manifest's bytes, and the listing binds every other file to them. */
#ifndef CONFORM_TRUST_SET_SIGNATURE_H
#define CONFORM_TRUST_SET_SIGNATURE_H

#include <stddef.h>

typedef enum {
    SET_UNSIGNED = 0, /* no signature beside the manifest */
    SET_SIGNED = 1,   /* the key in the signature signed these manifest bytes */
    SET_BAD = -1      /* a signature that does not verify, or cannot be read */
} set_signature;

/* Checks DIR/MANIFEST.json against DIR/MANIFEST.json.sig. SET_SIGNED puts
 * the signing key's fingerprint in fp; SET_BAD puts in err what failed,
 * naming the file. */
set_signature set_signature_check(const char *dir, char fp[64], char *err, size_t cap);

#endif
