/* The attacks of issue 16 (trust, round 2), one section per class, each a
 * test that failed on the main branch this round started from and passes
 * now: a chosen seed, an ops session that misbehaves after its answers,
 * unsigned receipts, signer labels, duplicate JSON keys, a subject that is
 * not what ran, a host that is only named, SIGKILL of the runner, hostile
 * numbers and sizes in receipts, and fresh cases too thin to catch a mutant.
 * A PASS exists only for a full, official, runner-seeded, signature-
 * checkable run with a bound subject. */
#define _DEFAULT_SOURCE /* realpath */
#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "testutil.h"
#include "core/json_strict.h"
#include "core/util.h"
#include "fresh/fresh.h"
#include "protocol/exe_format.h"
#include "protocol/trace.h"
#include "trust/dsse.h"
#include "trust/keys.h"
#include "vectorset/manifest.h"
#include "vectorset/vectors_load.h"

/* Script IUTs that escape their run leave their pids in the test's directory. */
static void escape_here(void);

TU_DIR_SUITE_HOOK(evidence, 0, escape_here, .timeout = 180);

static void escape_here(void)
{
    setenv("IT_ESCAPE_DIR", dir, 1);
}

static void put(const char *name, const char *text, int mode) { tu_put(dir, name, text, mode); }

static void sleep_s(double s)
{
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

/* The one-host hosts file for the native machine (and the receipt's name). */
static char *nat_hosts(void)
{
    put("hosts.json",
        "{\"hosts\": [{\"name\": \"nat\", \"emulator\": null, \"cpu\": null, \"isa\": \"x86_64\", "
        "\"endianness\": \"little\", \"stands_for\": \"x\", \"build\": \"x86_64\", \"expected\": \"pass\", "
        "\"required_features\": [], \"absent_features\": []}]}",
        0);
    return at("hosts.json");
}

static const char *case_verdict(cJSON *r, const char *id)
{
    cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItem(r, "cases")) if (!strcmp(cJSON_GetObjectItem(c, "id")->valuestring, id))
        return cJSON_GetObjectItem(c, "verdict")->valuestring;
    return "(missing)";
}

/* ---- 1. a seed the caller chose is a reproduction ------------------------------ */

Test(evidence, a_chosen_seed_is_a_reproduction_not_a_certification)
{
    char *rp = at("r.json"), *hosts = nat_hosts();
    tu_result r = tu_conform("run", "--iut-exec", tu_env("IT_REF_CLI"), "--vectors", tu_env("IT_VECTORS"), "--seed",
                             "4242", "--host", "nat", "--receipt", rp, NULL);
    cr_assert_eq(r.code, 5, "%s%s", r.out, r.err);
    tu_assert_has(r.out, "; REPRODUCTION: a reproduction of run seed 4242, not a certification: the fresh-case seed was "
                         "chosen by the caller (--seed)\n");
    tu_assert_lacks(r.out, "PASS (full certification)");
    tu_result_free(&r);
    cJSON *j = tu_receipt_json(rp);
    cr_assert_str_eq(cJSON_GetObjectItem(j, "verdict")->valuestring, "REPRODUCTION");
    cr_assert_eq(cJSON_GetObjectItem(j, "exit_code")->valuedouble, 5);
    cr_assert(cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "options"), "seed_given")));
    cJSON_Delete(j);
    /* verify recomputes it and says it is no certification evidence */
    r = tu_conform("verify", "--allow-unsigned", rp, NULL);
    cr_assert_eq(r.code, 1, "%s%s", r.out, r.err);
    tu_assert_has(r.out, "NOT CERTIFICATION EVIDENCE: verdict REPRODUCTION recomputed from");
    tu_assert_has(r.out, "not certification evidence: the fresh-case seed was chosen by the caller (--seed)");
    tu_result_free(&r);
    /* the matrix refuses it, naming why */
    tu_conform_says(2, 1,
                    "refused: REPRODUCTION is not certification evidence: the fresh-case seed was chosen by the caller (--seed)",
                    "matrix", "--allow-unsigned", "--hosts", hosts, rp, NULL);
    free(rp);
    free(hosts);
}

/* ---- 2. an ops session that misbehaves after its answers ------------------------ */

/* A fixture set (the runs are seconds), every level: the only defect is how
 * one ops session ends. */
static void bad_session(const char *how, const char *session, const char *case_id)
{
    char *vec = at("vec");
    tu_fixture(vec, 3);
    setenv("IT_BAD_END", how, 1);
    setenv("IT_BAD_END_SESSION", session, 1);
    char *iut = tu_iut("bad_end.sh"), *rp = at("r.json");
    tu_result r = tu_conform("run", "--iut-exec", iut, "--vectors", vec, "--level", "all", "--timeout-case", "3",
                             "--timeout-run", "30", "--receipt", rp, NULL);
    cr_assert_eq(r.code, 1, "%s/%s: %s%s", how, session, r.out, r.err);
    tu_assert_has(r.out, "summary: FAIL");
    cJSON *j = tu_receipt_json(rp);
    cr_assert_str_eq(case_verdict(j, case_id), "ERROR", "%s/%s: the case %s", how, session, case_id);
    const char *lv = !strcmp(session, "golden") ? "ops" : "fresh";
    cr_assert_str_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "levels"), lv), "verdict")->valuestring,
                     "ERROR", "%s/%s: level %s", how, session, lv);
    cJSON_Delete(j);
    unsetenv("IT_BAD_END_SESSION");
    tu_result_free(&r);
    tu_rmtree(vec);
    free(vec), free(iut), free(rp);
}

Test(evidence, a_golden_ops_session_that_ends_badly_is_not_a_pass)
{
    static const char *const how[] = {"crash", "nonzero", "hang", "extra"};
    for (size_t i = 0; i < 4; i++)
        bad_session(how[i], "golden", "ops-session");
}

Test(evidence, a_fresh_ops_session_is_judged_like_the_golden_one)
{
    static const char *const how[] = {"crash", "nonzero", "hang", "extra"};
    for (size_t i = 0; i < 4; i++)
        bad_session(how[i], "fresh", "fresh-ops-session");
}

/* The example on the official set: every answer right, then SIGSEGV. */
Test(evidence, official_set_ops_crash_after_the_answers_is_fail)
{
    setenv("IT_BAD_END", "crash", 1);
    setenv("IT_BAD_END_SESSION", "golden", 1);
    char *iut = tu_iut("bad_end.sh");
    tu_result r = tu_conform("run", "--iut-exec", iut, "--vectors", tu_env("IT_VECTORS"), "--level", "all", NULL);
    unsetenv("IT_BAD_END_SESSION");
    cr_assert_eq(r.code, 1, "%s%s", r.out, r.err);
    tu_assert_has(r.out, "level ops: ERROR");
    tu_assert_has(r.out, "summary: FAIL");
    tu_assert_lacks(r.out, "PASS (full certification)");
    tu_result_free(&r);
    free(iut);
}

/* ---- 3. unsigned receipts are not accepted by default ----------------------------- */

static void another_binary(cJSON *r)
{
    const char *x = "abababababababababababababababababababababababababababababababab";
    cJSON *iut = cJSON_GetObjectItem(r, "iut");
    cJSON *bin = cJSON_GetObjectItem(iut, "binary");
    cJSON_ReplaceItemInObject(bin, "sha256", cJSON_CreateString(x));
    cJSON_ReplaceItemInObject(bin, "sha256_after", cJSON_CreateString(x));
    cJSON *f;
    cJSON_ArrayForEach(f, cJSON_GetObjectItem(cJSON_GetObjectItem(iut, "subject"), "files"))
    {
        cJSON_ReplaceItemInObject(f, "sha256", cJSON_CreateString(x));
        cJSON_ReplaceItemInObject(f, "sha256_after", cJSON_CreateString(x));
    }
}

Test(evidence, unsigned_receipts_are_refused_unless_allowed)
{
    char *rp = at("r.json"), *hosts = nat_hosts();
    tu_result r;
    tu_conform_exits(0, "run", "--iut-exec", tu_env("IT_REF_CLI"), "--vectors", tu_env("IT_VECTORS"), "--host", "nat",
                     "--receipt", rp, NULL);
    /* the Statement rebuilt around another binary's digest, unsigned */
    cJSON *j = tu_receipt_json(rp);
    another_binary(j);
    tu_write_receipt(rp, j);
    cJSON_Delete(j);
    r = tu_conform("verify", rp, NULL);
    cr_assert_eq(r.code, 1, "%s%s", r.out, r.err);
    tu_assert_has(r.out, "signatures checked against vectors/KEYS/allowed_signers");
    tu_assert_has(r.out, ": UNSIGNED: the receipt carries no signature");
    tu_assert_has(r.out, "signer: UNSIGNED");
    tu_result_free(&r);
    tu_conform_says(2, 1, "UNSIGNED", "matrix", "--hosts", hosts, rp, NULL);
    tu_conform_says(2, 1, "UNSIGNED", "matrix", "--hosts", "qemu/hosts.json", "--against", "vectors/v1.0.0/receipts",
                    rp, NULL);
    /* explicitly allowed: accepted, and said to be unsigned */
    tu_conform_says(0, 0, "UNSIGNED (accepted: --allow-unsigned)", "verify", "--allow-unsigned", rp, NULL);
    r = tu_conform("matrix", "--allow-unsigned", "--hosts", hosts, rp, NULL);
    cr_assert_eq(r.code, 0, "%s%s", r.out, r.err);
    tu_assert_has(r.out, "nat: UNSIGNED; subject bound");
    tu_result_free(&r);
    free(rp);
    free(hosts);
}

Test(evidence, published_receipts_verify_against_the_committed_signers_by_default)
{
    tu_result r = tu_conform("verify", "vectors/v1.0.0/receipts/aarch64-cortex-a72.json", NULL);
    cr_assert_eq(r.code, 0, "%s%s", r.out, r.err);
    tu_assert_has(r.out, "signatures checked against vectors/KEYS/allowed_signers");
    tu_assert_has(r.out, "signer: signed by a retired project key (isotrain-project "
                         "SHA256:tOf5s44w8SeW1PcK1mbwFIkJIP0FDn1ttN2V3zVWDik, retired 2026-12-01");
    tu_result_free(&r);
}

/* ---- 4. a signer is a key fingerprint, not a label ------------------------------------- */

static char *fingerprint_of(const char *pub)
{
    char *cmd = xasprintf("ssh-keygen -lf '%s' | cut -d' ' -f2", pub);
    char *fp = tu_sh_line(cmd);
    free(cmd);
    return fp;
}

Test(evidence, a_key_labelled_isotrain_project_is_another_key)
{
    /* any key, named isotrain-project in an allowed-signers file */
    char *cmd = xasprintf("ssh-keygen -q -t ed25519 -N '' -C x -f '%s/k' && printf 'isotrain-project "
                          "namespaces=\"isotrain-receipt\" %%s\\n' \"$(cut -d' ' -f1,2 '%s/k.pub')\" > '%s/allowed'",
                          dir, dir, dir);
    tu_sh_ok(cmd);
    free(cmd);
    char *key = at("k"), *pub = at("k.pub"), *allowed = at("allowed"), *rp = at("r.json"), *hosts = nat_hosts();
    char *fp = fingerprint_of(pub);
    tu_result r;
    tu_conform_exits(0, "run", "--iut-exec", tu_env("IT_REF_CLI"), "--vectors", tu_env("IT_VECTORS"), "--host", "nat",
                     "--receipt", rp, "--sign-key", key, NULL);
    r = tu_conform("verify", "--allowed-signers", allowed, rp, NULL);
    cr_assert_eq(r.code, 0, "%s%s", r.out, r.err);
    char *words = xasprintf("signer: signed by another key (not the project's): isotrain-project %s\n", fp);
    tu_assert_has(r.out, words);
    tu_assert_lacks(r.out, "signed by the project key");
    tu_result_free(&r);
    /* the matrix names it the same way, per row */
    r = tu_conform("matrix", "--allowed-signers", allowed, "--hosts", hosts, rp, NULL);
    cr_assert_eq(r.code, 0, "%s%s", r.out, r.err);
    tu_assert_has(r.out, "other: isotrain-project");
    char *row = xasprintf("nat: signed by another key (not the project's): isotrain-project %s; subject bound", fp);
    tu_assert_has(r.out, row);
    tu_result_free(&r);
    /* the page too: a principal is a label, never "the project key" (issue 27 item 5) */
    char *page = at("p.html");
    tu_conform_exits(0, "report", "--allowed-signers", allowed, "--hosts", hosts, "-o", page, rp, NULL);
    char *html = tu_read(page);
    tu_assert_has(html, "another key (not the project&#39;s), named <strong>isotrain-project</strong>, key <code>");
    tu_assert_has(html, "signed by another key (not the project&#39;s), named <strong>isotrain-project</strong> (key");
    tu_assert_lacks(html, "<dd><strong>isotrain-project</strong>");
    tu_assert_lacks(html, "signed by <strong>isotrain-project</strong>");
    free(html), free(page);
    /* with the project's signers (the default) the key is not allowed at all */
    r = tu_conform("verify", rp, NULL);
    cr_assert_eq(r.code, 1, "%s%s", r.out, r.err);
    char *named = xasprintf("signatures[0]: key %s: the signing key is not in the allowed signers file", fp);
    tu_assert_has(r.out, named);
    tu_result_free(&r);
    free(named), free(row), free(words), free(fp), free(key), free(pub), free(allowed), free(rp), free(hosts);
}

Test(evidence, the_pinned_fingerprints_are_the_project_keys)
{
    char *cur = fingerprint_of("vectors/KEYS/isotrain-project-2026-12-03.pub");
    char *old = fingerprint_of("vectors/KEYS/isotrain-project.pub");
    char *lost = fingerprint_of("vectors/KEYS/isotrain-project-2026-12.pub");
    char *prev = fingerprint_of("vectors/KEYS/isotrain-project-2026-12-01.pub");
    cr_assert_eq(key_class_of(cur), KEY_PROJECT, "%s", cur);
    cr_assert_eq(key_class_of(old), KEY_PROJECT_RETIRED, "%s", old);
    cr_assert_eq(key_class_of(lost), KEY_PROJECT_RETIRED, "%s", lost);
    cr_assert_eq(key_class_of(prev), KEY_PROJECT_RETIRED, "%s", prev);
    free(lost), free(prev);
    /* the control: any other key is another key */
    char *cmd = xasprintf("ssh-keygen -q -t ed25519 -N '' -f '%s/any'", dir);
    tu_result s = tu_sh(cmd);
    cr_assert_eq(s.code, 0);
    tu_result_free(&s);
    char *p = at("any.pub");
    char *any = fingerprint_of(p);
    cr_assert_eq(key_class_of(any), KEY_OTHER, "%s", any);
    char *w = signer_words("isotrain-project", any);
    tu_assert_has(w, "signed by another key (not the project's): isotrain-project SHA256:");
    free(w), free(any), free(p), free(cmd), free(cur), free(old);
}

/* ---- 5. duplicate keys: one rule for every JSON the runner reads ---------------- */

Test(evidence, json_strict_rule)
{
    static const struct {
        const char *text, *why;
    } bad[] = {
        {"{\"a\": 1, \"a\": 2}", "$: key \"a\" appears more than once"},
        {"{\"x\": [{\"p\": 1, \"q\": 2, \"p\": 3}]}", "$.x[0]: key \"p\" appears more than once"},
        {"{\"pay\\u0000load\": 1}", "line 1, column 6: a \\u0000 escape"},
        {"{\"a\": 1} {\"a\": 2}", "line 1, column 10: data after the JSON document"},
        {"{\"a\": }", "invalid JSON"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char err[256];
        cJSON *j = json_parse_strict(bad[i].text, strlen(bad[i].text), err, sizeof err);
        cr_assert(!j, "accepted: %s", bad[i].text);
        tu_assert_has(err, bad[i].why);
    }
    /* the controls: the same shapes, legal */
    static const char *const good[] = {"{\"a\": 1, \"b\": {\"a\": 2}}", "{\"s\": \"\\\\u0000 is text\"}", "[1, 2]  \n"};
    for (size_t i = 0; i < 3; i++) {
        char err[256];
        cJSON *j = json_parse_strict(good[i], strlen(good[i]), err, sizeof err);
        cr_assert(j, "refused %s: %s", good[i], err);
        cJSON_Delete(j);
    }
    /* a large object is checked in O(n log n): 100,000 keys, one repeated */
    sbuf b;
    sbuf_init(&b);
    sbuf_addc(&b, '{');
    for (int i = 0; i < 100000; i++)
        sbuf_printf(&b, "%s\"k%d\": %d", i ? "," : "", i == 99999 ? 17 : i, i);
    sbuf_addc(&b, '}');
    char err[256];
    double t0 = now_s();
    cr_assert(!json_parse_strict(b.p, b.len, err, sizeof err));
    cr_assert(now_s() - t0 < 2.0, "took %.1f s", now_s() - t0);
    tu_assert_has(err, "key \"k17\" appears more than once");
    sbuf_free(&b);
}

/* A project-signed FAIL envelope with a second "payload" (a forged PASS):
 * cJSON reads the first (signed) one, jq and Python the second. */
Test(evidence, a_second_payload_in_a_signed_envelope_is_refused)
{
    char *fail = tu_read("vectors/v1.0.0/receipts/i386-x87.json");
    char *pass = tu_read("vectors/v1.0.0/receipts/x86_64-native.json");
    cJSON *pj = cJSON_Parse(pass);
    const char *forged = cJSON_GetObjectItem(pj, "payload")->valuestring;
    const char *at_sig = strstr(fail, "\"signatures\"");
    cr_assert(at_sig);
    sbuf b;
    sbuf_init(&b);
    sbuf_add(&b, fail, (size_t)(at_sig - fail));
    sbuf_printf(&b, "\"payload\": \"%s\",\n  ", forged);
    sbuf_adds(&b, at_sig);
    put("dup.json", b.p, 0);
    char *p = at("dup.json");
    tu_result r = tu_conform("verify", p, NULL);
    cr_assert_eq(r.code, 1, "%s%s", r.out, r.err);
    tu_assert_has(r.out, "key \"payload\" appears more than once");
    tu_assert_lacks(r.out, "OK: verdict");
    tu_result_free(&r);
    /* the untouched envelope verifies: the control */
    tu_conform_exits(0, "verify", "vectors/v1.0.0/receipts/i386-x87.json", NULL);
    /* a key that a C reader ends at \u0000 ("payload\u0000") */
    sbuf_reset(&b);
    sbuf_add(&b, fail, (size_t)(at_sig - fail));
    sbuf_printf(&b, "\"payload\\u0000\": \"%s\",\n  ", forged);
    sbuf_adds(&b, at_sig);
    put("nul.json", b.p, 0);
    free(p);
    p = at("nul.json");
    tu_conform_says(1, 0, "a \\u0000 escape in a string", "verify", p, NULL);
    /* two documents: jq reads both */
    sbuf_reset(&b);
    sbuf_adds(&b, fail);
    sbuf_adds(&b, pass);
    put("two.json", b.p, 0);
    free(p);
    p = at("two.json");
    tu_conform_says(1, 0, "data after the JSON document", "verify", p, NULL);
    sbuf_free(&b);
    cJSON_Delete(pj);
    free(p), free(fail), free(pass);
}

/* In the Statement (the decoded payload) and in a bare receipt. */
Test(evidence, duplicate_keys_in_a_statement_and_a_receipt)
{
    cJSON *r = tu_full_receipt("nat", 1, -1, NULL);
    char *text = cJSON_PrintUnformatted(r);
    cJSON_Delete(r);
    /* a bare receipt with a second "verdict" */
    sbuf b;
    sbuf_init(&b);
    sbuf_add(&b, text, strlen(text) - 1);
    sbuf_adds(&b, ", \"verdict\": \"FAIL\"}");
    put("bare.json", b.p, 0);
    char *p = at("bare.json");
    tu_conform_says(1, 0, "$: key \"verdict\" appears more than once", "verify", "--allow-unsigned", p, NULL);
    /* a Statement with a second "predicate" */
    char *env_path = at("st.json");
    tu_write_envelope(env_path, text);
    char *env_text = tu_read(env_path);
    cJSON *env = cJSON_Parse(env_text);
    free(env_text);
    const char *pl = cJSON_GetObjectItem(env, "payload")->valuestring;
    unsigned char *raw;
    size_t rl;
    cr_assert(b64_decode(pl, strlen(pl), &raw, &rl) == 0);
    sbuf st;
    sbuf_init(&st);
    sbuf_add(&st, raw, rl - 1);
    sbuf_adds(&st, ", \"predicate\": {}}");
    sbuf enc;
    sbuf_init(&enc);
    b64_encode(&enc, st.p, st.len);
    cJSON_ReplaceItemInObject(env, "payload", cJSON_CreateString(enc.p));
    char *et = cJSON_Print(env);
    put("st.json", et, 0);
    tu_conform_says(1, 0,
                    "payload: not a JSON object (an in-toto Statement): $: key \"predicate\" appears more than once",
                    "verify", "--allow-unsigned", env_path, NULL);
    free(et), free(raw), free(env_path), free(p), free(text);
    cJSON_Delete(env);
    sbuf_free(&b), sbuf_free(&st), sbuf_free(&enc);
}

/* A vector file and the manifest (re-manifested, so only the JSON rule can
 * refuse them): a second document after the first, a duplicate key. */
Test(evidence, vector_files_and_manifests_follow_the_rule)
{
    char *vec = at("vec");
    tu_fixture(vec, 3);
    char *f = xasprintf("%s/ops/exp.json", vec);
    char *t = tu_read(f);
    sbuf b;
    sbuf_init(&b);
    sbuf_adds(&b, t);
    sbuf_adds(&b, "{\"tests\": []}\n");
    char err[256];
    cr_assert(write_file(f, b.p, b.len, err, sizeof err) == 0);
    tu_remanifest(vec);
    tu_result r = tu_conform("lint", vec, NULL);
    cr_assert_eq(r.code, 2, "%s%s", r.out, r.err);
    tu_assert_has(r.out, "ops/exp.json: line ");
    tu_assert_has(r.out, "data after the JSON document");
    tu_result_free(&r);
    /* the manifest: a second "manifest_digest" after the first */
    tu_fixture(vec, 3);
    char *m = xasprintf("%s/MANIFEST.json", vec);
    char *mt = tu_read(m);
    char *last = strrchr(mt, '}');
    cr_assert(last);
    sbuf_reset(&b);
    sbuf_add(&b, mt, (size_t)(last - mt));
    sbuf_adds(&b, ", \"manifest_digest\": \"0000000000000000000000000000000000000000000000000000000000000000\"}\n");
    cr_assert(write_file(m, b.p, b.len, err, sizeof err) == 0);
    r = tu_conform("lint", vec, NULL);
    cr_assert_eq(r.code, 2, "%s%s", r.out, r.err);
    tu_assert_has(r.out, "MANIFEST.json: $: key \"manifest_digest\" appears more than once");
    tu_assert_lacks(r.out, "0 problems");
    tu_result_free(&r);
    sbuf_free(&b);
    free(f), free(t), free(m), free(mt), free(vec);
}

Test(evidence, a_hosts_file_follows_the_rule)
{
    put("hosts.json",
        "{\"hosts\": [{\"name\": \"nat\", \"emulator\": null, \"cpu\": null, \"isa\": \"x86_64\", "
        "\"endianness\": \"little\", \"stands_for\": \"x\", \"build\": \"x86_64\", \"expected\": \"pass\", "
        "\"required_features\": [], \"absent_features\": [], \"expected\": \"expected-fail\"}]}",
        0);
    char *h = at("hosts.json");
    tu_conform_says(2, 1, "hosts.json: not valid JSON: $.hosts[0]: key \"expected\" appears more than once", "matrix",
                    "--hosts", h, "--list", NULL);
    free(h);
}

/* ---- 6. the subject is what ran -------------------------------------------------- */

/* Each shell form of the issue: at best PARTIAL, "subject unbound". */
static void unbound(const char *cmd)
{
    char *rp = at("r.json");
    tu_result r = tu_conform("run", "--iut", cmd, "--vectors", tu_env("IT_VECTORS"), "--receipt", rp, NULL);
    cr_assert_eq(r.code, 3, "%s: %s%s", cmd, r.out, r.err);
    tu_assert_has(r.out, "; PARTIAL: subject unbound (shell form)");
    tu_assert_has(r.out, "subject: UNBOUND");
    cJSON *j = tu_receipt_json(rp);
    cJSON *sj = cJSON_GetObjectItem(cJSON_GetObjectItem(j, "iut"), "subject");
    cr_assert(cJSON_IsFalse(cJSON_GetObjectItem(sj, "bound")), "%s", cmd);
    cr_assert_str_eq(cJSON_GetObjectItem(sj, "form")->valuestring, "shell");
    cJSON_Delete(j);
    tu_result_free(&r);
    free(rp);
}

Test(evidence, a_shell_command_binds_no_subject)
{
    char *c1 = xasprintf("'%s' hello >/dev/null; exec '%s'", tu_env("IT_MUTANT_FLIP"), tu_env("IT_REF_CLI"));
    unbound(c1);
    char *bin = at("bin");
    mkdir(bin, 0777);
    char *ln = xasprintf("%s/isotrain", bin);
    char *abs = realpath(tu_env("IT_REF_CLI"), NULL);
    cr_assert(symlink(abs, ln) == 0);
    char *c2 = xasprintf("PATH='%s':$PATH isotrain", bin);
    unbound(c2);
    char *c3 = xasprintf("cd '%s' && exec ./isotrain", bin);
    unbound(c3);
    free(c1), free(c2), free(c3), free(bin), free(ln), free(abs);
}

static char *sha_of(const char *path)
{
    char hex[65], err[256];
    cr_assert(sha256_file(path, hex, NULL, err, sizeof err) == 0, "%s", err);
    return xstrdup(hex);
}

static cJSON *subject_file(cJSON *j, const char *role)
{
    cJSON *f;
    cJSON_ArrayForEach(f, cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "iut"), "subject"), "files"))
        if (!strcmp(cJSON_GetObjectItem(f, "role")->valuestring, role))
            return f;
    return NULL;
}

static int seen_running(cJSON *j, const char *sha, int *is_subject)
{
    cJSON *p;
    cJSON_ArrayForEach(p, cJSON_GetObjectItem(cJSON_GetObjectItem(j, "iut"), "processes_seen"))
        if (!strcmp(cJSON_GetObjectItem(p, "sha256")->valuestring, sha)) {
            if (is_subject)
                *is_subject = cJSON_IsTrue(cJSON_GetObjectItem(p, "is_subject"));
            return 1;
        }
    return 0;
}

Test(evidence, the_argv_form_binds_the_executable_that_ran)
{
    char *rp = at("r.json");
    tu_result r = tu_conform("run", "--iut-exec", tu_env("IT_REF_CLI"), "--vectors", tu_env("IT_VECTORS"),
                             "--receipt", rp, NULL);
    cr_assert_eq(r.code, 0, "%s%s", r.out, r.err);
    tu_assert_has(r.out, "; PASS (full certification)\n");
    tu_result_free(&r);
    cJSON *j = tu_receipt_json(rp);
    char *sha = sha_of(tu_env("IT_REF_CLI"));
    cJSON *f = subject_file(j, "executable");
    cr_assert(f);
    cr_assert_str_eq(cJSON_GetObjectItem(f, "sha256")->valuestring, sha);
    cr_assert_str_eq(cJSON_GetObjectItem(f, "executed_through")->valuestring, "descriptor");
    cr_assert_str_eq(cJSON_GetObjectItem(f, "isa")->valuestring, "x86_64");
    int is_subject = 0;
    cr_assert(seen_running(j, sha, &is_subject), "/proc/PID/exe of the IUT's processes was not recorded");
    cr_assert(is_subject);
    cJSON_Delete(j);
    /* the Statement names it */
    char *env = tu_read(rp);
    cJSON *e = cJSON_Parse(env);
    const char *pl = cJSON_GetObjectItem(e, "payload")->valuestring;
    unsigned char *raw;
    size_t rl;
    cr_assert(b64_decode(pl, strlen(pl), &raw, &rl) == 0);
    char *st = xstrndup((const char *)raw, rl);
    tu_assert_has(st, sha);
    free(st), free(raw), free(env), free(sha), free(rp);
    cJSON_Delete(e);
}

/* A "#!" script: the interpreter is executed (and bound), the script too. */
Test(evidence, a_script_and_a_named_interpreter_are_bound)
{
    char *vec = at("vec"), *rp = at("r.json");
    tu_fixture(vec, 3);
    char *iut = tu_iut("reference.sh");
    /* the published set's ops level: a session of seconds, seen running */
    tu_result r = tu_conform("run", "--iut-exec", iut, "--vectors", tu_env("IT_VECTORS"), "--level", "ops", "--receipt",
                             rp, NULL);
    cr_assert_eq(r.code, 3, "%s%s", r.out, r.err); /* PARTIAL: --level ops; the subject is bound */
    tu_result_free(&r);
    cJSON *j = tu_receipt_json(rp);
    char *ssha = sha_of(iut), *shsha = sha_of("/bin/sh");
    cJSON *script = subject_file(j, "script"), *interp = subject_file(j, "interpreter");
    cr_assert(script && interp);
    cr_assert_str_eq(cJSON_GetObjectItem(script, "sha256")->valuestring, ssha);
    cr_assert_str_eq(cJSON_GetObjectItem(interp, "sha256")->valuestring, shsha);
    cr_assert(cJSON_IsTrue(cJSON_GetObjectItem(interp, "executed")));
    /* the reference the script runs is seen running, and is not the subject */
    char *refsha = sha_of(tu_env("IT_REF_CLI"));
    int is_subject = 1;
    cr_assert(seen_running(j, refsha, &is_subject), "the program the script started was not seen");
    cr_assert(!is_subject);
    cJSON_Delete(j);
    /* python3 SCRIPT: the interpreter is the executable (Debian's, an ELF), the script an argument */
    tu_conform_exits(3, "run", "--iut-exec", "/usr/bin/python3", "--iut-arg", "adapters/python-minimal/iut.py",
                     "--vectors", vec, "--level", "ops", "--filter", "dot", "--receipt", rp, NULL);
    j = tu_receipt_json(rp);
    char *pysha = sha_of("adapters/python-minimal/iut.py");
    cJSON *arg = subject_file(j, "argument");
    cr_assert(arg);
    cr_assert_str_eq(cJSON_GetObjectItem(arg, "sha256")->valuestring, pysha);
    cr_assert(subject_file(j, "executable"));
    cJSON_Delete(j);
    free(pysha), free(refsha), free(ssha), free(shsha), free(iut), free(vec), free(rp);
}

/* 'sh SCRIPT' whose script rewrites itself: the argument is hashed before
 * every verb, so the rewrite is a FAIL, never the recorded subject. */
Test(evidence, a_script_argument_rewritten_during_the_run_fails)
{
    char *copy = at("iut.sh");
    char *cmd = xasprintf("cp '%s/self_modify.sh' '%s'", tu_env("IT_IUTS"), copy);
    tu_sh_ok(cmd);
    tu_conform_says(1, 0, "FAIL iut-binary: the IUT binary changed during the run: the argument ", "run", "--iut-exec",
                    "sh", "--iut-arg", copy, "--vectors", tu_env("IT_VECTORS"), NULL);
    free(cmd), free(copy);
}

/* The file is renamed over while the run goes on: the runner keeps
 * executing the descriptor it hashed (the reference), so training passes
 * and only the reference is ever seen running, and the changed path is the
 * failing case iut-binary. Run by path, the FMA mutant would have trained. */
Test(evidence, the_executable_is_run_through_the_descriptor_it_was_hashed_from)
{
    char *iut = at("iut"), *other = at("other"), *rp = at("r.json"), *log = at("log");
    char *cmd = xasprintf("cp '%s' '%s' && cp '%s' '%s'", tu_env("IT_REF_CLI"), iut, tu_env("IT_MUTANT_FMA"), other);
    tu_sh_ok(cmd);
    const char *conform = tu_env("IT_CONFORM");
    pid_t pid = fork();
    cr_assert(pid >= 0);
    if (pid == 0) {
        int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        dup2(fd, 1);
        dup2(fd, 2);
        execl(conform, conform, "run", "--iut-exec", iut, "--vectors", tu_env("IT_VECTORS"), "--level", "all",
              "--receipt", rp, (char *)NULL);
        _exit(127);
    }
    /* once the ops level is under way, the path gets another file */
    int renamed = 0;
    for (int i = 0; i < 600 && !renamed; i++) {
        char *t = NULL, e[128];
        size_t n;
        if (read_file(log, 1 << 20, &t, &n, e, sizeof e) == 0 && strstr(t, "level ops: ")) {
            cr_assert(rename(other, iut) == 0);
            renamed = 1;
        }
        free(t);
        if (!renamed)
            sleep_s(0.05);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    char *out = tu_read(log);
    cr_assert(renamed, "the run never reached the ops level:\n%s", out);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 1, "wait status 0x%x:\n%s", st, out);
    tu_assert_has(out, "level train: PASS");
    tu_assert_has(out, "FAIL iut-binary: the IUT binary changed during the run: the executable ");
    cJSON *j = tu_receipt_json(rp);
    char *fma = sha_of(iut);
    cr_assert(!seen_running(j, fma, NULL), "the file put in its place ran");
    cJSON_Delete(j);
    free(fma), free(out), free(cmd), free(iut), free(other), free(rp), free(log);
}

/* ---- 7. the host is measured, not only named ------------------------------------------ */

/* A native run under a fake qemu-aarch64 first on PATH, whose `info` lies:
 * the runner cannot tell, the matrix does (ELF machine, the emulator is a
 * script, native code ran outside any emulator). */
Test(evidence, a_fake_emulator_and_a_lying_info_are_a_host_mismatch)
{
    char *bin = at("bin");
    mkdir(bin, 0777);
    put("bin/qemu-aarch64",
        "#!/bin/sh\n"
        "# a fake qemu-aarch64: drops -cpu MODEL and runs the program natively; its info lies\n"
        "[ \"$1\" = -cpu ] && shift 2\n"
        "prog=$1; shift\n"
        "if [ \"$1\" = info ]; then\n"
        "    printf 'isa=aarch64\\nendianness=little\\ncpu_model=cortex-a72\\ncpu_features=hwcap=0x3 hwcap2=0x0\\nos=linux\\n'\n"
        "    exit 0\n"
        "fi\n"
        "exec \"$prog\" \"$@\"\n",
        0755);
    put("hosts.json",
        "{\"hosts\": [{\"name\": \"aarch64-cortex-a72\", \"emulator\": \"qemu-aarch64\", \"cpu\": \"cortex-a72\", "
        "\"isa\": \"aarch64\", \"endianness\": \"little\", \"stands_for\": \"x\", \"build\": \"aarch64\", "
        "\"expected\": \"pass\", \"required_features\": [\"fp@hwcap:0\", \"asimd@hwcap:1\"], "
        "\"absent_features\": [\"sve@hwcap:22\"]}]}",
        0);
    char *path = xasprintf("%s:%s", bin, getenv("PATH"));
    char *saved = xstrdup(getenv("PATH"));
    setenv("PATH", path, 1);
    char *rp = at("r.json"), *h = at("hosts.json");
    tu_result r = tu_conform("run", "--vectors", tu_env("IT_VECTORS"), "--host", "aarch64-cortex-a72", "--emulator",
                             "qemu-aarch64", "--emulator-cpu", "cortex-a72", "--receipt", rp, "--", "qemu-aarch64",
                             "-cpu", "cortex-a72", tu_env("IT_REF_CLI"), NULL);
    setenv("PATH", saved, 1);
    /* the runner itself cannot tell: every case passes */
    cr_assert_eq(r.code, 0, "%s%s", r.out, r.err);
    tu_result_free(&r);
    r = tu_conform("matrix", "--allow-unsigned", "--hosts", h, rp, NULL);
    cr_assert_eq(r.code, 1, "%s%s", r.out, r.err);
    tu_assert_has(r.out, "HOST MISMATCH");
    tu_assert_has(r.out, "the IUT's program is x86_64 code (its executable's machine field), the hosts file says aarch64");
    tu_assert_has(r.out, "is a script, not a QEMU executable");
    tu_assert_has(r.out, "not the emulator: code ran outside the emulated CPU");
    tu_assert_lacks(r.out, "matrix: OK");
    tu_result_free(&r);
    /* the receipt records the emulator as found: path, digest, its --version */
    cJSON *j = tu_receipt_json(rp);
    cJSON *e = cJSON_GetObjectItem(j, "emulator");
    tu_assert_has(cJSON_GetObjectItem(e, "path")->valuestring, "/bin/qemu-aarch64");
    cr_assert(cJSON_IsString(cJSON_GetObjectItem(e, "sha256")));
    cr_assert(cJSON_IsString(cJSON_GetObjectItem(e, "version")));
    cr_assert(cJSON_IsTrue(cJSON_GetObjectItem(e, "is_executable")));
    cJSON_Delete(j);
    free(path), free(saved), free(rp), free(h), free(bin);
}

/* ELF class/byte order/machine and PE machine of synthetic headers. */
static void header(const char *name, const unsigned char *h, size_t n)
{
    char *p = at(name);
    char err[256];
    cr_assert(write_file(p, (const char *)h, n, err, sizeof err) == 0);
    free(p);
}

Test(evidence, executable_machine_types)
{
    static const struct {
        unsigned char cls, data;
        unsigned machine;
        const char *isa;
    } elf[] = {{2, 1, 62, "x86_64"},  {1, 1, 3, "i386"},     {2, 1, 183, "aarch64"}, {1, 1, 40, "armhf"},
               {2, 2, 22, "s390x"},   {2, 1, 21, "ppc64le"}, {2, 1, 243, "riscv64"}, {2, 1, 9999, "elf-machine-9999"}};
    for (size_t i = 0; i < sizeof elf / sizeof elf[0]; i++) {
        unsigned char h[64] = {0x7f, 'E', 'L', 'F', elf[i].cls, elf[i].data, 1};
        unsigned m = elf[i].machine;
        if (elf[i].data == 2)
            h[18] = (unsigned char)(m >> 8), h[19] = (unsigned char)m;
        else
            h[18] = (unsigned char)m, h[19] = (unsigned char)(m >> 8);
        header("elf", h, sizeof h);
        char *p = at("elf");
        exe_format f;
        cr_assert(exe_format_of_path(p, &f) == 0);
        cr_assert_eq(f.kind, EXE_ELF);
        cr_assert_str_eq(f.isa, elf[i].isa);
        free(p);
    }
    unsigned char pe[0x90] = {'M', 'Z'};
    pe[0x3c] = 0x80;
    memcpy(pe + 0x80, "PE\0\0\x64\x86", 6);
    header("pe", pe, sizeof pe);
    char *p = at("pe");
    exe_format f;
    cr_assert(exe_format_of_path(p, &f) == 0);
    cr_assert_eq(f.kind, EXE_PE);
    cr_assert_str_eq(f.isa, "x86_64");
    free(p);
    header("sh", (const unsigned char *)"#!/bin/sh -e\necho\n", 18);
    p = at("sh");
    cr_assert(exe_format_of_path(p, &f) == 0);
    cr_assert_eq(f.kind, EXE_SCRIPT);
    cr_assert_str_eq(f.interp, "/bin/sh");
    cr_assert_str_eq(f.interp_arg, "-e");
    free(p);
    cr_assert(exe_format_of_path(tu_env("IT_REF_CLI"), &f) == 0);
    cr_assert_str_eq(f.isa, "x86_64");
}

/* ---- 8. SIGKILL of the runner ends the IUT's whole tree ----------------------------------- */

/* 1 while the process runs `sleep` (a pid reused by another process is not it). */
static int sleeping(long pid)
{
    char p[64];
    snprintf(p, sizeof p, "/proc/%ld/cmdline", pid);
    char *t = NULL, e[128];
    size_t n;
    if (read_file(p, 4096, &t, &n, e, sizeof e) != 0)
        return 0;
    int yes = n >= 5 && !memcmp(t, "sleep", 5);
    free(t);
    return yes;
}

static void sigkill_runner(const char *level, const char *contain)
{
    char *vec = at("vec");
    tu_fixture(vec, 3);
    char *iut = tu_iut("sleepy.sh");
    const char *verb = !strcmp(level, "ops") ? "ops" : "train";
    char *pf = xasprintf("pid.%s", verb), *cf = xasprintf("pid.%s.child", verb);
    const char *conform = tu_env("IT_CONFORM");
    /* A SIGKILLed runner cannot remove its work directory: it goes in the
     * test's own directory (teardown removes it), not in the suite's TMPDIR,
     * which make test's leftover check keeps empty. */
    char *tmp = at("tmp-sigkill");
    mkdir(tmp, 0700);
    pid_t pid = fork();
    cr_assert(pid >= 0);
    if (pid == 0) {
        setenv("TMPDIR", tmp, 1);
        if (contain)
            setenv("ISOTRAIN_CONFORM_CONTAIN", contain, 1);
        int devnull = open("/dev/null", O_WRONLY);
        dup2(devnull, 1);
        dup2(devnull, 2);
        execl(conform, conform, "run", "--iut-exec", iut, "--vectors", vec, "--level", level, "--timeout-run", "120",
              (char *)NULL);
        _exit(127);
    }
    long p = -1, c = -1;
    for (int i = 0; i < 400 && (p <= 0 || c <= 0); i++) {
        sleep_s(0.05);
        p = tu_read_pid(dir, pf), c = tu_read_pid(dir, cf);
    }
    kill(pid, SIGKILL);
    int st;
    waitpid(pid, &st, 0);
    cr_assert(p > 0 && c > 0, "%s (%s): the IUT never started", level, contain ? contain : "default");
    int alive = 1;
    for (int i = 0; i < 100 && alive; i++) {
        alive = sleeping(p) || sleeping(c);
        if (alive)
            sleep_s(0.05);
    }
    int p_alive = sleeping(p), c_alive = sleeping(c);
    if (p_alive)
        kill((pid_t)p, SIGKILL);
    if (c_alive)
        kill((pid_t)c, SIGKILL);
    cr_assert(!p_alive, "%s (%s): the IUT (pid %ld) outlived the runner's SIGKILL", level,
              contain ? contain : "default", p);
    cr_assert(!c_alive, "%s (%s): the IUT's setsid child (pid %ld) outlived the runner's SIGKILL", level,
              contain ? contain : "default", c);
    char *a = at(pf), *b = at(cf);
    unlink(a), unlink(b);
    free(a), free(b), free(pf), free(cf), free(iut);
    tu_rmtree(tmp);
    free(tmp);
    tu_rmtree(vec);
    free(vec);
}

Test(evidence, sigkill_of_the_runner_mid_ops_ends_the_iut_tree)
{
    sigkill_runner("ops", NULL);
}

Test(evidence, sigkill_of_the_runner_mid_train_ends_the_iut_tree)
{
    sigkill_runner("train", NULL);
}

/* The fallback (no PID namespace): a keeper that notices the runner's death
 * on its lifeline pipe and kills every descendant. */
Test(evidence, sigkill_with_the_keeper_fallback_mid_ops_and_mid_train)
{
    sigkill_runner("ops", "keeper");
    sigkill_runner("train", "keeper");
    /* and the fallback is what ran: the receipt says so */
    char *vec = at("vec2"), *rp = at("k.json");
    tu_fixture(vec, 3);
    setenv("ISOTRAIN_CONFORM_CONTAIN", "keeper", 1);
    tu_result r = tu_conform("run", "--iut-exec", tu_env("IT_REF_CLI"), "--vectors", vec, "--receipt", rp, NULL);
    unsetenv("ISOTRAIN_CONFORM_CONTAIN");
    cr_assert_eq(r.code, 4, "%s%s", r.out, r.err);
    tu_result_free(&r);
    cJSON *j = tu_receipt_json(rp);
    tu_assert_has(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "iut"), "containment")->valuestring, "keeper");
    cJSON_Delete(j);
    tu_rmtree(vec);
    free(vec), free(rp);
}

/* ---- 9. hostile numbers and sizes in a receipt ---------------------------------------- */

static cJSON *at_path(cJSON *r, const char *dotted)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", dotted);
    cJSON *o = r;
    for (char *k = strtok(buf, "."); k && o; k = strtok(NULL, ".")) {
        char *br = strchr(k, '[');
        if (br) {
            *br = '\0';
            o = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(o, k), atoi(br + 1));
        } else
            o = cJSON_GetObjectItemCaseSensitive(o, k);
    }
    return o;
}

Test(evidence, hostile_numbers_in_every_numeric_field_of_a_receipt)
{
    static const struct {
        const char *object, *key;
    } fields[] = {
        {"options", "steps"},
        {"vectors.profiles[0]", "steps"},
        {"levels.train.profiles[0].trace[3]", "step"},
        {"levels.train.profiles[0].checkpoints[1]", "step"},
        {"levels.fresh.training", "steps"},
        {"levels.fresh.training.trace[2]", "step"},
        {"", "interrupted_by_signal"},
        {"", "trust_rules"},
        {"", "exit_code"},
        {"counts", "passed"},
        {"levels.train.profiles[0]", "first_differing_step"},
        /* issue 27 item 8: read as matrix reads them (core/json_checked.h jx_whole) */
        {"levels.train.profiles[0]", "steps"},
        {"levels.train.profiles[0]", "steps_in_vectors"},
    };
    static const double values[] = {1e300, -1e300, -1, 0.5, 4294967296.0, 9007199254740993.0, 9223372036854775808.0};
    enum { NV = sizeof values / sizeof values[0] };
    cJSON *base = tu_full_receipt("nat", 1, -1, NULL);
    size_t runs = 0;
    for (size_t f = 0; f < sizeof fields / sizeof fields[0]; f++) {
        /* one verify for the field's six receipts (the vector set is read once) */
        char *paths[NV];
        for (size_t v = 0; v < NV; v++) {
            cJSON *r = cJSON_Duplicate(base, 1);
            cJSON *obj = fields[f].object[0] ? at_path(r, fields[f].object) : r;
            cr_assert(obj, "no %s", fields[f].object);
            if (cJSON_GetObjectItemCaseSensitive(obj, fields[f].key))
                cJSON_ReplaceItemInObject(obj, fields[f].key, cJSON_CreateNumber(values[v]));
            else
                cJSON_AddNumberToObject(obj, fields[f].key, values[v]);
            char name[64];
            snprintf(name, sizeof name, "n%zu-%zu.json", f, v);
            paths[v] = at(name);
            tu_write_receipt(paths[v], r);
            cJSON_Delete(r);
        }
        tu_result x = tu_conform("verify", "--allow-unsigned", paths[0], paths[1], paths[2], paths[3], paths[4],
                                 paths[5], paths[6], NULL);
        /* refused, each by name, without a crash or a sanitizer report */
        cr_assert_eq(x.signal, 0, "%s.%s: verify died of signal %d", fields[f].object, fields[f].key, x.signal);
        tu_assert_lacks(x.err, "runtime error");
        cr_assert_eq(x.code, 1, "%s.%s: %s", fields[f].object, fields[f].key, x.out);
        for (size_t v = 0; v < NV; v++) {
            char *head = xasprintf("verify: %s: FAILED", paths[v]);
            const char *at_head = strstr(x.out, head);
            cr_assert(at_head, "%s.%s = %g verifies:\n%s", fields[f].object, fields[f].key, values[v], x.out);
            const char *next = strstr(at_head + 1, "\nverify: ");
            char *block = xstrndup(at_head, next ? (size_t)(next - at_head) : strlen(at_head));
            cr_assert(strstr(block, fields[f].key), "%s.%s = %g: the problem does not name the field:\n%s",
                      fields[f].object, fields[f].key, values[v], block);
            free(block);
            free(head);
            free(paths[v]);
            runs++;
        }
        tu_result_free(&x);
    }
    cr_assert_eq(runs, 91);
    cJSON_Delete(base);
}

/* A receipt claiming a 10,000-step fresh-seed run (1.7 MB): refused at
 * once, in a few lines, without recomputing 10,000 reference steps. */
Test(evidence, a_huge_claimed_fresh_run_is_refused_quickly_and_briefly)
{
    cJSON *r = tu_full_receipt("nat", 1, -1, NULL);
    cJSON *ft = at_path(r, "levels.fresh.training");
    cJSON_ReplaceItemInObject(ft, "steps", cJSON_CreateNumber(10000));
    cJSON *tr = cJSON_GetObjectItem(ft, "trace");
    cJSON *cases = cJSON_GetObjectItem(r, "cases");
    for (int s = 21; s <= 10000; s++) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "step", s);
        cJSON_AddBoolToObject(o, "reached", 1);
        cJSON_AddStringToObject(o, "loss", "0x40000000");
        cJSON_AddStringToObject(o, "sha256", "cdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcd");
        cJSON_AddItemToArray(tr, o);
        cJSON *c = cJSON_CreateObject();
        char id[32];
        snprintf(id, sizeof id, "fresh/mlp13k/%d", s);
        cJSON_AddStringToObject(c, "id", id);
        cJSON_AddStringToObject(c, "level", "fresh");
        cJSON_AddStringToObject(c, "suite", "fresh/train/mlp13k");
        cJSON_AddStringToObject(c, "verdict", "PASS");
        cJSON_AddBoolToObject(c, "required", 1);
        cJSON_AddNumberToObject(c, "seconds", 0);
        cJSON_AddItemToArray(cases, c);
    }
    cJSON *cnt = cJSON_GetObjectItem(r, "counts");
    cJSON_ReplaceItemInObject(cnt, "passed", cJSON_CreateNumber(cJSON_GetObjectItem(cnt, "passed")->valuedouble + 9980));
    char *t = cJSON_Print(r);
    cJSON_Delete(r);
    cr_assert(strlen(t) > 1500000, "only %zu bytes", strlen(t));
    char *p = at("big.json");
    tu_write_envelope(p, t);
    free(t);
    tu_result x = tu_conform("verify", "--allow-unsigned", p, NULL);
    cr_assert_eq(x.code, 1, "%s", x.out);
    tu_assert_has(x.out, "levels.fresh.training.steps: the runner trains 20 fresh-seed steps here");
    size_t lines = 0;
    for (const char *q = x.out; *q; q++)
        lines += *q == '\n';
    cr_assert(lines < 60, "%zu lines of output", lines);
    /* as quick as the receipt without the claim (the same build, the same
     * load on the machine): nothing of the 10,000 steps is recomputed */
    cJSON *base = tu_full_receipt("nat", 1, -1, NULL);
    char *bp = at("base.json");
    tu_write_receipt(bp, base);
    cJSON_Delete(base);
    tu_result y = tu_conform("verify", "--allow-unsigned", bp, NULL);
    cr_assert_eq(y.code, 0, "%s", y.out);
    cr_assert(x.seconds < 2 * y.seconds + 2, "verify took %.1f s, %.1f s for the receipt without the claim", x.seconds,
              y.seconds);
    tu_result_free(&y);
    tu_result_free(&x);
    free(bp);
    free(p);
}

Test(evidence, trace_loss_bits_are_lowercase_0x)
{
    static const char *const head = "# isotrain-trace v1 profile=mlp13k steps=1\nstep=0\n";
    char text[256], err[256];
    trace_doc t;
    snprintf(text, sizeof text, "%sstep=1 loss=0X40a00000 loss_dec=5\n", head);
    cr_assert(trace_parse(text, strlen(text), "t", &t, err, sizeof err) != 0, "0X accepted");
    tu_assert_has(err, "loss is not 0x and 8 lowercase hex digits");
    trace_free(&t);
    snprintf(text, sizeof text, "%sstep=1 loss=0x40A00000 loss_dec=5\n", head);
    cr_assert(trace_parse(text, strlen(text), "t", &t, err, sizeof err) != 0, "uppercase digits accepted");
    trace_free(&t);
    /* the controls: §9.2's form and P7's bare P4 form */
    snprintf(text, sizeof text, "%sstep=1 loss=0x40a00000 loss_dec=5\n", head);
    cr_assert(trace_parse(text, strlen(text), "t", &t, err, sizeof err) == 0, "%s", err);
    trace_free(&t);
    snprintf(text, sizeof text, "%sstep=1 loss=40a00000 loss_dec=5\n", head);
    cr_assert(trace_parse(text, strlen(text), "t", &t, err, sizeof err) == 0, "%s", err);
    trace_free(&t);
}

/* ---- 10. fresh cases thick enough to catch a mutant -------------------------------------- */

Test(evidence, every_op_group_draws_at_least_16_fresh_cases_over_its_classes)
{
    problems pr;
    problems_init(&pr);
    manifest_info m;
    vector_set vs;
    cr_assert(manifest_verify("vectors/v1.1.0", &m, &pr) == 0 && vectors_load("vectors/v1.1.0", &m, &vs, &pr) == 0);
    for (size_t g = 0; g < vs.n_groups; g++) {
        const char *group = vs.groups[g].group, *why;
        fresh_list l;
        memset(&l, 0, sizeof l);
        size_t n = fresh_ops_generate(&l, group, 12345, &why);
        if (!strcmp(group, "init") || !strcmp(group, "batch")) {
            cr_assert_eq(n, 0, "%s: its op takes no seed", group);
            continue;
        }
        cr_assert(n >= FRESH_MIN_PER_GROUP, "group %s draws %zu fresh cases", group, n);
        /* spread: more than one class (op and what it draws from) */
        size_t classes = 0;
        for (size_t i = 0; i < l.n; i++) {
            int seen = 0;
            for (size_t k = 0; k < i && !seen; k++)
                seen = l.c[k].op == l.c[i].op && !strcmp(l.c[k].what, l.c[i].what);
            classes += !seen;
        }
        cr_assert(classes >= 2, "group %s draws from %zu class", group, classes);
        fresh_list_free(&l);
    }
    vectors_free(&vs);
    manifest_free(&m);
    problems_free(&pr);
}

/* The property every run of this suite checks (testutil.c: the receipt
 * verifies as the printed verdict), on a set where an op group and a
 * profile share a name: addmod113/1 is an op case and a training step,
 * fresh/addmod113/1 a fresh op case and a fresh-seed step. */
Test(evidence, an_op_group_and_a_profile_of_one_name_verify)
{
    tu_conform_says(3, 0, "fresh addmod113", "run", "--iut-exec", tu_env("IT_REF_CLI"), "--vectors", "vectors/v1.1.0",
                    "--filter", "addmod113", "--steps", "2", NULL);
}
