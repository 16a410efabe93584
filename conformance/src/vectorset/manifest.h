/* manifest.h — vectors/FORMAT.md §4: MANIFEST.json and its verification. */
#ifndef CONFORM_MANIFEST_H
#define CONFORM_MANIFEST_H

#include <stdint.h>

#include "core/problems.h"

typedef struct {
    char *path;
    uint64_t size;
    char sha256[65];
    /* the bytes that were hashed: the loader parses these, never the file
     * again, so nothing can change between the check and the use */
    unsigned char *data;
    size_t len;
} manifest_file;

typedef struct {
    char *spec_version, *vector_version, *generator;
    char recorded_digest[65]; /* manifest_digest as written */
    char digest[65];          /* recomputed from the listing */
    manifest_file *files;
    size_t n_files;
    /* a recipe set's "recipe" (vectorset/recipe_set.h): its path in the set
     * and SHA-256, checked against the listing; NULL in an official set */
    char *recipe_path;
    char recipe_sha256[65];
} manifest_info;

void manifest_free(manifest_info *m);

/* FORMAT.md §4: parses DIR/MANIFEST.json and checks that every listed file
 * exists with its size and digest, that no unlisted file is present outside
 * receipts/, that the listing is sorted, and that manifest_digest is the
 * SHA-256 of the "<sha256> <size> <path>\n" lines. Every finding is added to
 * pr naming the file. Returns the number of findings (0: the set is intact). */
size_t manifest_verify(const char *dir, manifest_info *m, problems *pr);

/* The verified bytes of a listed file (path relative to the set), or NULL. */
const manifest_file *manifest_bytes(const manifest_info *m, const char *rel);

/* FORMAT.md §4: the digest of a listing ("<sha256> <size> <path>\n" lines). */
void manifest_digest_of(const manifest_file *files, size_t n, char hex[65]);

#endif
