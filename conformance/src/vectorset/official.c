/* official.c — the one place the runner pins published vector sets
 * (vectors/FORMAT.md §5 lists the same digests). Publishing a set means
 * adding its line here in the same commit as the set: an edited vector file,
 * with its manifest recomputed to be self-consistent, has another digest and
 * is therefore UNOFFICIAL. */
#include "vectorset/official.h"

#include <string.h>

static const official_set sets[] = {
    {"1.0.0", "1.0.0", "4a2ee4f979012509c4e73f04b87551c3d123bccbe4f4aa3f037c7684f2ab602e", 739},
    /* 1.1.0: mlp13k's files of 1.0.0 byte for byte, and addmod113 (spec §13) */
    {"1.1.0", "1.1.0", "b0ec503f9b4283c4f72e0f69f6d456a84a62d9d2202d0a0f28c2774375072a94", 791},
    /* 1.2.0: the files of 1.1.0 byte for byte, gptchar (spec §14) and the windows (FORMAT.md §6) */
    {"1.2.0", "1.2.0", "99be8d1e65fdb9717bf0749d61cbce47502a3c8f30b87f26006dd995dd5cc861", 897},
    /* 1.3.0: the files of 1.2.0 byte for byte and the example recipe's set
     * under recipes/shakespeare/ (spec §16, FORMAT.md §7), its own manifest
     * (595df257...) listed here like any file */
    {"1.3.0", "1.3.0", "59206d3a1cf0e92d5d0c544ec325c1c4aef13ef18229e28c535abead91d673d6", 897},
};

const official_set *official_find(const char *manifest_digest)
{
    for (size_t i = 0; manifest_digest && i < sizeof sets / sizeof sets[0]; i++)
        if (!strcmp(sets[i].manifest_digest, manifest_digest))
            return &sets[i];
    return NULL;
}

const official_set *official_by_version(const char *vector_version)
{
    for (size_t i = 0; vector_version && i < sizeof sets / sizeof sets[0]; i++)
        if (!strcmp(sets[i].vector_version, vector_version))
            return &sets[i];
    return NULL;
}
