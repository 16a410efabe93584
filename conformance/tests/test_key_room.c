/* Issue 27 item 3: the key not in the room (DESIGN.md Wave 4). A trainer
 * that tries every route to the runner's --sign-key (the key's path from
 * /proc/PID/cmdline, the file, the file with its cover lifted in a namespace
 * of its own, /proc/PID/fd) gets nothing, and the receipt is signed after it
 * is gone; where the runner cannot keep the key away, run --sign-key is
 * refused and `sign` signs the receipt in a step of its own. On the main
 * branch this round started from, the same IUT copied the key. */
#include <cjson/cJSON.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "testutil.h"
#include "core/util.h"

static char *dir, *drop;

static void setup(void)
{
    dir = tu_tmpdir();
    drop = xasprintf("%s/drop", dir);
    /* the thief may run under another uid (as root: 65534): its drop is anyone's */
    cr_assert(chmod(dir, 0755) == 0 && mkdir(drop, 0777) == 0 && chmod(drop, 0777) == 0);
    char *cmd = xasprintf("ssh-keygen -q -t ed25519 -N '' -C room -f '%s/k' && printf 'room namespaces=\"isotrain-receipt\" "
                          "%%s\\n' \"$(cut -d' ' -f1,2 '%s/k.pub')\" > '%s/allowed'",
                          dir, dir, dir);
    tu_sh_ok(cmd);
    free(cmd);
    setenv("IT_KEY_DROP", drop, 1);
    char *k = xasprintf("%s/k", dir);
    setenv("IT_KEY_GUESS", k, 1); /* the thief even knows where the key is */
    free(k);
}

static void teardown(void)
{
    unsetenv("ISOTRAIN_CONFORM_CONTAIN");
    tu_rmtree(dir);
    free(dir), free(drop);
}

TestSuite(key_room, .init = setup, .fini = teardown, .timeout = 180);

static char *at(const char *name)
{
    return xasprintf("%s/%s", dir, name);
}

/* What the thief left in its drop: "" when nothing. */
static char *stolen(void)
{
    sbuf b;
    sbuf_init(&b);
    DIR *d = opendir(drop);
    cr_assert(d);
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        if (e->d_name[0] != '.') {
            sbuf_adds(&b, e->d_name);
            sbuf_addc(&b, ' ');
        }
    closedir(d);
    char *s = xstrdup(b.p ? b.p : "");
    sbuf_free(&b);
    return s;
}

/* The negative control: the thief does take a key it can reach. */
Test(key_room, the_thief_takes_a_key_within_reach)
{
    char *cmd = xasprintf("IT_REF_CLI='%s' '%s' hello", tu_env("IT_REF_CLI"), tu_iut("key_thief.sh"));
    tu_sh_ok(cmd);
    free(cmd);
    char *got = stolen();
    tu_assert_has(got, "stolen.hello");
    free(got);
}

Test(key_room, a_trainer_cannot_copy_the_sign_key)
{
    char *key = at("k"), *allowed = at("allowed"), *rp = at("r.json"), *thief = tu_iut("key_thief.sh");
    tu_result r = tu_conform("run", "--iut-exec", thief, "--vectors", tu_env("IT_VECTORS"), "--level", "train",
                             "--steps", "2", "--sign-key", key, "--receipt", rp, NULL);
    char *got = stolen();
    cr_assert_str_eq(got, "", "the IUT copied the key: %s\n%s", got, r.out);
    if (strstr(r.out, "signing key: REFUSED")) { /* no PID namespace here: refused before any IUT ran */
        cr_assert_eq(r.code, 2, "%s%s", r.out, r.err);
        tu_assert_has(r.out, "isotrain-conform sign --sign-key KEY RECEIPT");
    } else {
        cr_assert_eq(r.code, 3, "%s%s", r.out, r.err); /* PARTIAL: --steps 2; the thief trains like the reference */
        tu_assert_has(r.out, "signing key: the IUT runs in its own PID and mount namespaces (a fresh /proc;");
        tu_assert_has(r.out, "5 passed, 0 failed"); /* hello, steps 0..2 of training, the trace */
        tu_assert_lacks(r.out, "FAIL");
        tu_result_free(&r);
        r = tu_conform("verify", "--allowed-signers", allowed, rp, NULL);
        cr_assert_eq(r.code, 0, "%s%s", r.out, r.err);
        tu_assert_has(r.out, "signature good");
    }
    tu_result_free(&r);
    free(got), free(key), free(allowed), free(rp), free(thief);
}

/* Without a PID namespace the runner cannot keep the key away: refused,
 * before any IUT process starts; `sign` signs the unsigned receipt after. */
Test(key_room, no_namespace_no_sign_key_and_sign_after_the_run)
{
    char *key = at("k"), *allowed = at("allowed"), *rp = at("r.json"), *sp = at("s.json"), *thief = tu_iut("key_thief.sh");
    setenv("ISOTRAIN_CONFORM_CONTAIN", "keeper", 1);
    tu_result r = tu_conform("run", "--iut-exec", thief, "--vectors", tu_env("IT_VECTORS"), "--level", "ops",
                             "--filter", "dot", "--sign-key", key, "--receipt", rp, NULL);
    cr_assert_eq(r.code, 2, "%s%s", r.out, r.err);
    tu_assert_has(r.out, "signing key: REFUSED: --sign-key ");
    tu_assert_has(r.out, "sign the receipt afterwards with `isotrain-conform sign --sign-key KEY RECEIPT`");
    tu_assert_lacks(r.out, "hello:");
    tu_result_free(&r);
    /* the same run unsigned, then signed in a step of its own */
    tu_conform_exits(3, "run", "--iut-exec", thief, "--vectors", tu_env("IT_VECTORS"), "--level", "ops", "--filter",
                     "dot", "--receipt", rp, NULL);
    unsetenv("ISOTRAIN_CONFORM_CONTAIN");
    r = tu_conform("verify", "--allowed-signers", allowed, rp, NULL);
    cr_assert_eq(r.code, 1, "%s%s", r.out, r.err); /* unsigned */
    tu_result_free(&r);
    tu_conform_exits(0, "sign", "--sign-key", key, rp, sp, NULL);
    tu_conform_says(0, 0, "signed by another key (not the project's): room SHA256:", "verify", "--allowed-signers",
                    allowed, sp, NULL);
    /* the payload is what run wrote, byte for byte */
    char *a = tu_read(rp), *b = tu_read(sp);
    cJSON *ja = cJSON_Parse(a), *jb = cJSON_Parse(b);
    cr_assert_str_eq(cJSON_GetObjectItem(ja, "payload")->valuestring, cJSON_GetObjectItem(jb, "payload")->valuestring);
    cJSON_Delete(ja), cJSON_Delete(jb);
    free(a), free(b);
    /* a signed receipt is not signed again */
    tu_conform_says(2, 1, "already carries 1 signature", "sign", "--sign-key", key, sp, NULL);
    free(key), free(allowed), free(rp), free(sp), free(thief);
}
