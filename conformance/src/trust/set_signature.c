/* set_signature.c — see set_signature.h. */
#include "trust/set_signature.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "core/util.h"
#include "trust/sshsig.h"
#include "vectorset/recipe_set.h"

/* the cap of a manifest read here: vectors/v1.2.0's is about 0.1 MiB */
enum { MANIFEST_CAP = 1 << 26, SIGNATURE_CAP = 1 << 16 };

set_signature set_signature_check(const char *dir, char fp[64], char *err, size_t cap)
{
    fp[0] = 0;
    char *sp = xasprintf("%s/" RECIPE_SET_SIGNATURE, dir), *mp = xasprintf("%s/MANIFEST.json", dir);
    struct stat st;
    set_signature r = SET_BAD;
    char *sig = NULL, *man = NULL, why[512];
    size_t sn = 0, mn = 0;
    if (lstat(sp, &st) != 0 && errno == ENOENT)
        r = SET_UNSIGNED;
    else if (read_file(sp, SIGNATURE_CAP, &sig, &sn, why, sizeof why) != 0)
        snprintf(err, cap, "%s: cannot be read: %s", sp, why);
    else if (read_file(mp, MANIFEST_CAP, &man, &mn, why, sizeof why) != 0)
        snprintf(err, cap, "%s: cannot be read: %s", mp, why);
    else if (sshsig_check(man, mn, sig, fp, why, sizeof why) != 0)
        snprintf(err, cap, "%s: its signature %s does not verify (%s): the manifest is not the one its maker signed",
                 mp, sp, why);
    else
        r = SET_SIGNED;
    free(sig);
    free(man);
    free(sp);
    free(mp);
    return r;
}
