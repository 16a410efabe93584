/* official.h — the vector sets the project has published, pinned by manifest
 * digest (vectors/FORMAT.md §5). A set whose digest is not listed here runs,
 * but is labelled UNOFFICIAL and can never be a PASS. */
#ifndef CONFORM_VECTORSET_OFFICIAL_H
#define CONFORM_VECTORSET_OFFICIAL_H

#include <stddef.h>

typedef struct {
    const char *vector_version;
    const char *spec_version;
    const char *manifest_digest;
    /* the set's shape, so `verify` can check a receipt's case list covers it
     * without the files at hand (its profiles are the reference's rows
     * whose `since` is not later than the set, isotrain_profile.h) */
    size_t op_cases;
} official_set;

/* The pinned set with this manifest digest, or NULL. */
const official_set *official_find(const char *manifest_digest);
/* The pinned set of this vector version, or NULL. */
const official_set *official_by_version(const char *vector_version);

#endif
