/* The attacks of issue 9, each as a hostile IUT (tests/iuts) or a crafted
 * input that got PASS or an accepted receipt before, and the non-PASS it
 * must get now: scope (a filter or a missing verb), provenance (an edited
 * vector set), replay (answers looked up in the published vectors; a train
 * verb that ignores --seed), receipts (hand-edited, a binary changed during
 * the run, signatures). Runs against vectors/v1.0.0, the official set. */
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "isotrain.h" /* IT_SPEC_VERSION: what the reference claims in hello */
#include "core/util.h"
#include "trust/dsse.h"
#include "vectorset/manifest.h"
#include "vectorset/vectors_load.h"

TU_DIR_SUITE(trust, 0, .timeout = 120);

#define ALL_GROUPS "batch,dot,embedding,exp,init,linear,log,loss_grad,philox,rng,sgd,softmax_xent,sweep,tanh,tanh_backward"

/* ---- scope ---------------------------------------------------------------- */

Test(trust, a_filter_over_every_op_group_without_train_is_partial)
{
    tu_result r = tu_run_script("no_train.sh", tu_env("IT_VECTORS"), "--level", "all", "--filter", ALL_GROUPS, NULL);
    cr_assert_eq(r.code, 3, "%s%s", r.out, r.err);
    tu_assert_has(r.out, "summary: PARTIAL");
    tu_assert_has(r.out, "; PARTIAL: --filter: only the named groups ran; level train: no case ran\n");
    tu_assert_lacks(r.out, "summary: PASS");
    tu_result_free(&r);
}

Test(trust, no_ops_verb_with_a_profile_filter_is_partial)
{
    tu_result r = tu_run_script("no_ops.sh", tu_env("IT_VECTORS"), "--level", "all", "--filter", "mlp13k", NULL);
    cr_assert_eq(r.code, 3, "%s%s", r.out, r.err);
    tu_assert_has(r.out, "summary: PARTIAL: ops NOT RUN, train PASS, fresh PASS");
    tu_assert_has(r.out, "scope: not a full certification: level ops: no case ran");
    tu_result_free(&r);
}

/* The matrix, over one native host, refuses the receipt rp (with
 * `--vectors vec` unless NULL): exit 2, saying `why` on stderr. */
static void matrix_refuses(const char *rp, const char *vec, const char *why)
{
    char *hosts = at("hosts.json");
    char err[256];
    const char *h = "{\"hosts\": [{\"name\": \"nat\", \"emulator\": null, \"cpu\": null, \"isa\": \"x86_64\", "
                    "\"endianness\": \"little\", \"stands_for\": \"x\", \"build\": \"x86_64\", \"expected\": \"pass\", "
                    "\"required_features\": [], \"absent_features\": []}]}";
    cr_assert(write_file(hosts, h, strlen(h), err, sizeof err) == 0);
    if (vec)
        tu_conform_says(2, 1, why, "matrix", "--allow-unsigned", "--hosts", hosts, "--vectors", vec, rp, NULL);
    else
        tu_conform_says(2, 1, why, "matrix", "--allow-unsigned", "--hosts", hosts, rp, NULL);
    free(hosts);
}

/* ---- provenance -------------------------------------------------------------- */

Test(trust, an_edited_self_consistent_vector_set_is_unofficial)
{
    char *vec = at("vec");
    char *cmd = xasprintf("cp -r '%s' '%s' && rm -rf '%s/receipts'", tu_env("IT_VECTORS"), vec, vec);
    tu_sh_ok(cmd);
    free(cmd);
    tu_edit(vec, "ops/exp.json", "\"y\":\t\"3f800000\"", "\"y\":\t\"3f800001\"");
    tu_remanifest(vec);
    char *rp = at("r.json");
    tu_result r = tu_run_script("bent_exp.sh", vec, "--receipt", rp, NULL);
    cr_assert_eq(r.code, 4, "%s%s", r.out, r.err);
    tu_assert_has(r.out, "vectors: UNOFFICIAL: manifest digest ");
    tu_assert_has(r.out, "summary: UNOFFICIAL");
    tu_assert_has(r.out, "; UNOFFICIAL: UNOFFICIAL vector set: manifest digest ");
    cJSON *j = tu_receipt_json(rp);
    cr_assert(cJSON_IsFalse(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "vectors"), "official")));
    cr_assert_str_eq(cJSON_GetObjectItem(j, "verdict")->valuestring, "UNOFFICIAL");
    cJSON_Delete(j);
    tu_result_free(&r);
    /* the matrix refuses it, with or without --against */
    matrix_refuses(rp, vec, "refused: UNOFFICIAL is not a certification");
    free(rp);
    free(vec);
}

/* ---- replay --------------------------------------------------------------------- */

static char *lookup_iut(const char *train)
{
    return xasprintf("LOOKUP_VECTORS='%s' LOOKUP_TRAIN='%s' '%s/lookup.sh'", tu_env("IT_VECTORS"), train,
                     tu_env("IT_IUTS"));
}

Test(trust, published_answers_looked_up_do_not_pass)
{
    char *iut = lookup_iut(tu_env("IT_REF_CLI"));
    tu_result r = tu_conform("run", "--iut", iut, "--vectors", tu_env("IT_VECTORS"), NULL);
    /* every published case passes; no fresh op case can be looked up */
    tu_assert_has(r.out, "level ops: PASS (225 passed, 0 failed, 514 skipped)");
    cr_assert_eq(r.code, 3, "%s%s", r.out, r.err);
    tu_assert_has(r.out, "summary: PARTIAL: ops PASS, train PASS, fresh NOT REACHED");
    tu_assert_has(r.out, "fresh dot                0 passed, 16 skipped");
    tu_result_free(&r);
    free(iut);
}

Test(trust, a_lookup_replay_cannot_localize)
{
    char *iut = lookup_iut(tu_env("IT_MUTANT_FLIP"));
    tu_result r = tu_conform("run", "--iut", iut, "--vectors", tu_env("IT_VECTORS"), NULL);
    cr_assert_eq(r.code, 1, "%s%s", r.out, r.err);
    tu_assert_has(r.out, "first differing op: op-level localization not possible: 641 of 641 op calls of step 137 were not answered with outputs");
    tu_assert_lacks(r.out, "Every op of step");
    tu_result_free(&r);
    free(iut);
}

Test(trust, a_train_verb_that_ignores_the_seed_fails)
{
    tu_result r = tu_run_script("fixed_seed.sh", tu_env("IT_VECTORS"), "--seed", "12345", NULL);
    cr_assert_eq(r.code, 1, "%s%s", r.out, r.err);
    tu_assert_has(r.out, "level train: PASS");
    tu_assert_has(r.out, "FAIL fresh/mlp13k/0: parameters differ from the linked reference under seed 12345");
    tu_assert_has(r.out, "summary: FAIL: ops PASS, train PASS, fresh FAIL");
    tu_result_free(&r);
}

/* From spec 1.1 the fresh-seed run is required: an IUT that claims 1.1.0
 * without train_seed=1 is PARTIAL on a set of spec 1.1 (the fixture at
 * 1.1.0; every other case passes, so it would be UNOFFICIAL). On vectors of
 * 1.0 it is judged by 1.0, where the run is not required. */
Test(trust, no_train_seed_is_partial_under_spec_1_1_0)
{
    char *iut = tu_iut("old_hello.sh"), *set = at("fixture-1.1.0");
    tu_fixture_version(set, 6, "1.1.0");
    tu_result r = tu_conform("run", "--iut-exec", iut, "--vectors", set, NULL);
    cr_assert_eq(r.code, 3, "%s%s", r.out, r.err);
    tu_assert_has(r.out, "fresh-seed training not supported (spec 1.1.0 P7)");
    tu_assert_has(r.out, "summary: PARTIAL");
    tu_assert_has(r.out, "spec: judged by spec 1.1, the lower of the IUT's 1.1.0 and the vector set's 1.1.0");
    tu_result_free(&r);
    tu_conform_says(0, 0, "SKIP fresh/mlp13k/run: fresh-seed training is not a requirement of the spec certified here",
                    "run", "--iut-exec", iut, "--vectors", tu_env("IT_VECTORS"), NULL);
    free(iut);
    free(set);
}

/* ---- receipts -------------------------------------------------------------------- */

/* Decodes an envelope's Statement, applies edit to its receipt, re-encodes
 * (unsigned): a receipt edited by hand. */
static void edit_receipt(const char *path, void (*edit)(cJSON *))
{
    cJSON *r = tu_receipt_json(path);
    edit(r);
    tu_write_receipt(path, r);
    cJSON_Delete(r);
}

static void claim_pass(cJSON *r)
{
    cJSON_ReplaceItemInObject(r, "verdict", cJSON_CreateString("PASS"));
    cJSON_ReplaceItemInObject(r, "exit_code", cJSON_CreateNumber(0));
    cJSON *lv = cJSON_GetObjectItem(r, "levels");
    cJSON *tr = cJSON_GetObjectItem(lv, "train");
    cJSON_ReplaceItemInObject(tr, "verdict", cJSON_CreateString("PASS"));
    cJSON *sc = cJSON_GetObjectItem(r, "scope");
    cJSON_ReplaceItemInObject(sc, "full_certification", cJSON_CreateTrue());
    /* the checkpoint digests the published receipts show */
    cJSON *p = cJSON_GetArrayItem(cJSON_GetObjectItem(tr, "profiles"), 0);
    cJSON_DeleteItemFromObject(p, "first_differing_step");
    cJSON *ck;
    cJSON_ArrayForEach(ck, cJSON_GetObjectItem(p, "checkpoints"))
        cJSON_ReplaceItemInObject(ck, "matches_vectors", cJSON_CreateTrue());
}

/* The other way to fake a PASS: drop the failing cases and recount. */
static void drop_failures(cJSON *r)
{
    claim_pass(r);
    cJSON *cases = cJSON_GetObjectItem(r, "cases");
    for (int i = cJSON_GetArraySize(cases) - 1; i >= 0; i--)
        if (!strcmp(cJSON_GetObjectItem(cJSON_GetArrayItem(cases, i), "verdict")->valuestring, "FAIL"))
            cJSON_DeleteItemFromArray(cases, i);
    cJSON *cnt = cJSON_GetObjectItem(r, "counts");
    cJSON_ReplaceItemInObject(cnt, "failed", cJSON_CreateNumber(0));
}

Test(trust, a_fail_receipt_with_its_failures_removed_is_refused)
{
    char *rp = at("r.json");
    tu_conform_exits(1, "run", "--iut-exec", tu_env("IT_MUTANT_FLIP"), "--vectors", tu_env("IT_VECTORS"), "--receipt",
                     rp, NULL);
    edit_receipt(rp, drop_failures);
    tu_conform_says(1, 0, ": cases: the train case mlp13k/137 of the vector set is missing", "verify",
                    "--allow-unsigned", rp, NULL);
    free(rp);
}

Test(trust, a_hand_edited_fail_receipt_is_refused)
{
    char *rp = at("r.json");
    tu_result r;
    tu_conform_exits(1, "run", "--iut-exec", tu_env("IT_MUTANT_FLIP"), "--vectors", tu_env("IT_VECTORS"), "--host",
                     "nat", "--receipt", rp, NULL);
    r = tu_conform("verify", "--allow-unsigned", rp, NULL);
    cr_assert_eq(r.code, 0, "the untouched FAIL receipt verifies: %s%s", r.out, r.err);
    tu_assert_has(r.out, "OK: verdict FAIL recomputed from");
    tu_result_free(&r);
    edit_receipt(rp, claim_pass);
    r = tu_conform("verify", "--allow-unsigned", rp, NULL);
    cr_assert_eq(r.code, 1, "%s%s", r.out, r.err);
    tu_assert_has(r.out, "FAILED");
    tu_assert_has(r.out, ": verdict: \"PASS\", but the case list and options give FAIL");
    tu_assert_has(r.out, ": levels.train.verdict: \"PASS\", but its cases give FAIL");
    tu_assert_has(r.out, "checkpoints[3].matches_vectors: the digest ");
    tu_result_free(&r);
    matrix_refuses(rp, NULL, "refused: the receipt does not verify");
    free(rp);
}

static void drop_binary_case(cJSON *r)
{
    cJSON *cases = cJSON_GetObjectItem(r, "cases");
    for (int i = cJSON_GetArraySize(cases) - 1; i >= 0; i--)
        if (!strcmp(cJSON_GetObjectItem(cJSON_GetArrayItem(cases, i), "id")->valuestring, "iut-binary"))
            cJSON_DeleteItemFromArray(cases, i);
    cJSON *cnt = cJSON_GetObjectItem(r, "counts");
    cJSON_ReplaceItemInObject(cnt, "failed", cJSON_CreateNumber(cJSON_GetObjectItem(cnt, "failed")->valuedouble - 1));
}

Test(trust, a_binary_changed_during_the_run_is_refused)
{
    char *copy = at("iut.sh");
    char *cmd = xasprintf("cp '%s/self_modify.sh' '%s' && chmod +x '%s'", tu_env("IT_IUTS"), copy, copy);
    tu_sh_ok(cmd);
    char *rp = at("r.json");
    tu_result r = tu_conform("run", "--iut-exec", copy, "--vectors", tu_env("IT_VECTORS"), "--receipt", rp, NULL);
    cr_assert_eq(r.code, 1, "%s%s", r.out, r.err);
    /* the argv form hashes it again before every verb: the change is caught
     * before the next verb runs, which is then refused */
    tu_assert_has(r.out, "FAIL iut-binary: the IUT binary changed during the run: the script ");
    tu_result_free(&r);
    /* the runner's own receipt verifies as what it is, a FAIL ... */
    tu_conform_says(0, 0, "OK: verdict FAIL recomputed from", "verify", "--allow-unsigned", rp, NULL);
    /* ... and with its failing iut-binary case removed it is refused */
    edit_receipt(rp, drop_binary_case);
    r = tu_conform("verify", "--allow-unsigned", rp, NULL);
    cr_assert_eq(r.code, 1, "%s%s", r.out, r.err);
    tu_assert_has(r.out, "iut.binary: the IUT binary changed during the run");
    tu_assert_has(r.out, "but no failing iut-binary case says so");
    tu_result_free(&r);
    free(rp);
    free(cmd);
    free(copy);
}

/* ssh-keygen -l's SHA256 fingerprint of dir/NAME.pub. */
static char *key_fingerprint(const char *name)
{
    char *cmd = xasprintf("ssh-keygen -lf '%s/%s.pub' | cut -d' ' -f2", dir, name);
    char *fp = tu_sh_line(cmd);
    free(cmd);
    cr_assert(!strncmp(fp, "SHA256:", 7), "%s", fp);
    return fp;
}

/* A throwaway ed25519 key and its allowed-signers line. */
static void make_key(const char *name, const char *principal)
{
    char *cmd = xasprintf("ssh-keygen -q -t ed25519 -N '' -C %s -f '%s/%s' && printf '%s namespaces=\"isotrain-receipt\" %%s\\n' \"$(cut -d' ' -f1,2 '%s/%s.pub')\" >> '%s/allowed_signers'",
                          principal, dir, name, principal, dir, name, dir);
    tu_sh_ok(cmd);
    free(cmd);
}

Test(trust, signed_receipts_verify_and_any_flipped_byte_breaks_them)
{
    make_key("key", "ci@example.org");
    char *key = at("key"), *allowed = at("allowed_signers"), *rp = at("r.json");
    tu_result r;
    tu_conform_exits(0, "run", "--iut-exec", tu_env("IT_REF_CLI"), "--vectors", tu_env("IT_VECTORS"), "--receipt", rp,
                     "--sign-key", key, NULL);
    r = tu_conform("verify", "--allowed-signers", allowed, rp, NULL);
    cr_assert_eq(r.code, 0, "%s%s", r.out, r.err);
    tu_assert_has(r.out, "OK: verdict PASS recomputed from");
    /* the signer is the key's fingerprint, and said not to be the project's */
    char *fp = key_fingerprint("key");
    char *words = xasprintf("signer: signed by another key (not the project's): ci@example.org %s", fp);
    tu_assert_has(r.out, words);
    free(words);
    free(fp);
    tu_result_free(&r);
    /* flip bytes at spread positions: each one must break verify, named */
    char *orig = tu_read(rp);
    size_t n = strlen(orig);
    for (size_t k = 1; k < 8; k++) {
        size_t pos = n * k / 8;
        char *t = xstrdup(orig);
        t[pos] = t[pos] == 'A' ? 'B' : 'A';
        char err[256];
        cr_assert(write_file(rp, t, n, err, sizeof err) == 0);
        r = tu_conform("verify", "--allowed-signers", allowed, rp, NULL);
        cr_assert_eq(r.code, 1, "flipping byte %zu still verifies: %s", pos, r.out);
        tu_assert_has(r.out, "FAILED");
        tu_result_free(&r);
        free(t);
    }
    free(orig);
    /* a key that is not in the allowed signers */
    char *other = at("other");
    char *cmd = xasprintf("ssh-keygen -q -t ed25519 -N '' -f '%s'", other);
    tu_result s = tu_sh(cmd);
    cr_assert_eq(s.code, 0);
    tu_result_free(&s);
    r = tu_conform("run", "--iut-exec", tu_env("IT_REF_CLI"), "--vectors", tu_env("IT_VECTORS"), "--level", "ops",
                   "--receipt", rp, "--sign-key", other, NULL);
    tu_result_free(&r);
    r = tu_conform("verify", "--allowed-signers", allowed, rp, NULL);
    cr_assert_eq(r.code, 1, "%s", r.out);
    char *ofp = key_fingerprint("other");
    char *named = xasprintf("signatures[0]: key %s: the signing key is not in the allowed signers file", ofp);
    tu_assert_has(r.out, named);
    free(named);
    free(ofp);
    tu_result_free(&r);
    /* unsigned, with --allowed-signers: refused */
    r = tu_conform("run", "--iut-exec", tu_env("IT_REF_CLI"), "--vectors", tu_env("IT_VECTORS"), "--level", "ops",
                   "--receipt", rp, NULL);
    tu_result_free(&r);
    r = tu_conform("verify", "--allowed-signers", allowed, rp, NULL);
    cr_assert_eq(r.code, 1, "%s", r.out);
    tu_assert_has(r.out, ": UNSIGNED: the receipt carries no signature");
    tu_result_free(&r);
    free(cmd);
    free(other);
    free(key);
    free(allowed);
    free(rp);
}

Test(trust, the_same_seed_gives_the_same_receipt)
{
    char *a = at("a.json"), *b = at("b.json");
    tu_result r = tu_conform("run", "--iut-exec", tu_env("IT_REF_CLI"), "--vectors", tu_env("IT_VECTORS"), "--seed", "99",
                             "--receipt", a, NULL);
    cr_assert_eq(r.code, 5, "a caller-chosen seed is a reproduction (exit 5): %s%s", r.out, r.err);
    tu_assert_has(r.out, "run seed: 99 (fresh cases; --seed 99 reproduces them)");
    /* the reference's later minor version is additive over the vectors' 1.0:
     * the run is judged by 1.0 */
    tu_assert_has(r.out, "spec: judged by spec 1.0, the lower of the IUT's " IT_SPEC_VERSION " and the vector set's 1.0.0");
    tu_result_free(&r);
    r = tu_conform("run", "--iut-exec", tu_env("IT_REF_CLI"), "--vectors", tu_env("IT_VECTORS"), "--seed", "99",
                   "--receipt", b, NULL);
    cr_assert_eq(r.code, 5);
    tu_result_free(&r);
    /* identical apart from timings (the reference's step times the deadlines
     * were calibrated on among them), the start time and what the 100 ms
     * sampling happened to see (iut.processes_seen, and the files those
     * processes mapped executable: iut.code_mapped and its count of the
     * ones not listed; under load a short-lived process can be missed) */
    char *cmd = xasprintf("python3 -c '\n"
                          "import json, base64, sys\n"
                          "def load(p):\n"
                          "    r = json.loads(base64.b64decode(json.load(open(p))[\"payload\"]))[\"predicate\"][\"isotrainReceipt\"]\n"
                          "    def scrub(o):\n"
                          "        if isinstance(o, dict):\n"
                          "            return {k: scrub(v) for k, v in o.items() if k not in (\"seconds\", \"timings\", \"started\", \"op_replay_seconds\", \"reference_step_seconds\", \"processes_seen\", \"code_mapped\", \"code_mapped_not_listed\")}\n"
                          "        if isinstance(o, list):\n"
                          "            return [scrub(v) for v in o]\n"
                          "        return o\n"
                          "    return scrub(r)\n"
                          "a, b = load(sys.argv[1]), load(sys.argv[2])\n"
                          "for k in sorted(set(a) | set(b)):\n"
                          "    if a.get(k) != b.get(k):\n"
                          "        print(\"differs: \" + k, file=sys.stderr)\n"
                          "sys.exit(0 if a == b else 1)' '%s' '%s'",
                          a, b);
    tu_result s = tu_sh(cmd);
    cr_assert_eq(s.code, 0, "the receipts of two runs with --seed 99 differ beyond timings: %s", s.err);
    tu_result_free(&s);
    free(cmd);
    free(a);
    free(b);
}

Test(trust, the_published_seed_is_not_a_fresh_seed)
{
    tu_conform_says(2, 1, "--seed 7598539542230034798 is the mlp13k profile's own, published seed", "run", "--iut-exec",
                    tu_env("IT_REF_CLI"), "--seed", "7598539542230034798", NULL);
}

/* Provenance, between check and use: a file swapped after the manifest
 * check is not what the loader parses (it parses the bytes it hashed). */
Test(trust, the_loader_parses_the_bytes_the_manifest_check_hashed)
{
    tu_fixture(dir, 3);
    problems pr;
    problems_init(&pr);
    manifest_info m;
    cr_assert_eq(manifest_verify(dir, &m, &pr), 0, "%s", pr.n ? pr.items[0] : "");
    tu_edit(dir, "ops/exp.json", "\"y\":\t\"3f800000\"", "\"y\":\t\"3f800001\"");
    vector_set vs, disk;
    cr_assert_eq(vectors_load(dir, &m, &vs, &pr), 0, "%s", pr.n ? pr.items[0] : "");
    cr_assert_eq(vectors_load(dir, NULL, &disk, &pr), 0, "%s", pr.n ? pr.items[0] : "");
    const op_group *e = NULL, *e_disk = NULL;
    for (size_t g = 0; g < vs.n_groups; g++)
        if (!strcmp(vs.groups[g].group, "exp")) {
            e = &vs.groups[g];
            e_disk = &disk.groups[g];
        }
    cr_assert(e && e_disk);
    /* the control: read from disk now, the swapped value shows */
    cr_assert_eq(e_disk->cases[0].out[0].v[0], 0x3f800001u);
    cr_assert_eq(e->cases[0].out[0].v[0], 0x3f800000u, "the loader read the file again after the check");
    vectors_free(&vs);
    vectors_free(&disk);
    manifest_free(&m);
    problems_free(&pr);
}
