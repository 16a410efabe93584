/* sshsig.h — signatures through OpenSSH's ssh-keygen -Y (the SSHSIG format),
 * namespace "isotrain-receipt": one key type every CI system and developer
 * already has, verified against an allowed-signers file. */
#ifndef CONFORM_TRUST_SSHSIG_H
#define CONFORM_TRUST_SSHSIG_H

#include <stddef.h>

#define SSHSIG_NAMESPACE "isotrain-receipt"

/* Signs msg with the private key file; *armored gets the
 * "-----BEGIN SSH SIGNATURE-----" text. 0, or -1 with err. */
int sshsig_sign(const char *key, const void *msg, size_t n, char **armored, char *err, size_t cap);

/* Verifies an armored signature of msg against an allowed-signers file;
 * *principal gets the signer's identity. 0 good, -1 with err otherwise. */
int sshsig_verify(const char *allowed_signers, const void *msg, size_t n, const char *armored, char **principal,
                  char *err, size_t cap);

/* Checks that the key inside an armored signature signed exactly msg (in
 * SSHSIG_NAMESPACE), whoever holds it (ssh-keygen -Y check-novalidate): a
 * set made on demand is "signed by whoever made it" (DESIGN.md), so who
 * that is comes back as the key's fingerprint, for the reader to judge.
 * 0 good, -1 with err otherwise. */
int sshsig_check(const void *msg, size_t n, const char *armored, char fp[64], char *err, size_t cap);

/* The SHA256 fingerprint ("SHA256:" + unpadded base64 of the SHA-256 of the
 * public key blob, as ssh-keygen -l prints it) of the key inside an armored
 * SSHSIG signature (PROTOCOL.sshsig: "SSHSIG", version, publickey, namespace,
 * reserved, hash algorithm, signature). 0, or -1 if it is not one. */
int sshsig_fingerprint(const char *armored, char fp[64]);

#endif
