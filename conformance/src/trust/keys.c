/* keys.c — the one place the runner pins the project's signing keys
 * (vectors/KEYS/; README "Signing keys"). Rotating the key means adding its
 * line here, with the old one marked retired, in the same commit as its
 * public half and its allowed-signers line. */
#include "trust/keys.h"

#include <string.h>

#include "core/util.h"

static const project_key keys[] = {
    {"SHA256:N8KsWo47crbujr0vqdXiUK9tHFEpGmfNFnUvmBSddnY", "vectors/KEYS/isotrain-project-2026-12-03.pub", NULL, NULL},
    {"SHA256:Eq/qo/Pg1Grmy33a6i0o5dZ298r94wBO+kbVZ87Y/GI", "vectors/KEYS/isotrain-project-2026-12-01.pub", "2026-12-03",
     "its private half was lost with the machine of the session that made it; its receipts of v1.1.0 stay valid"},
    {"SHA256:r2MBJdHm+LvSUI4ecpwM1BaHRgMsvY/Xz7ra3qCOu+M", "vectors/KEYS/isotrain-project-2026-12.pub", "2026-12-01",
     "its private half was lost with the machine of the session that made it, before it signed anything"},
    {"SHA256:tOf5s44w8SeW1PcK1mbwFIkJIP0FDn1ttN2V3zVWDik", "vectors/KEYS/isotrain-project.pub", "2026-12-01",
     "its private half was lost; it signs nothing new"},
};

const project_key *project_key_find(const char *fingerprint)
{
    for (size_t i = 0; fingerprint && i < sizeof keys / sizeof keys[0]; i++)
        if (!strcmp(keys[i].fingerprint, fingerprint))
            return &keys[i];
    return NULL;
}

key_class key_class_of(const char *fingerprint)
{
    const project_key *k = project_key_find(fingerprint);
    return !k ? KEY_OTHER : k->retired ? KEY_PROJECT_RETIRED : KEY_PROJECT;
}

char *signer_words(const char *principal, const char *fingerprint)
{
    const project_key *k = project_key_find(fingerprint);
    const char *who = principal ? principal : "?";
    if (!k)
        return xasprintf("signed by another key (not the project's): %s %s", who, fingerprint ? fingerprint : "?");
    if (k->retired)
        return xasprintf("signed by a retired project key (%s %s, retired %s: %s)", who, k->fingerprint, k->retired,
                         k->note);
    return xasprintf("signed by the project key (%s %s)", who, k->fingerprint);
}
