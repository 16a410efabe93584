/* Recipe vector sets (issue 32 item 2; conformance/README.md "Recipe vector
 * sets"): `isotrain-conform vectors --recipe R.json --out DIR` trains the
 * recipe with the linked reference and writes a set the loader accepts.
 * Its digests are checked against the reference CLI (`isotrain train
 * --recipe`) and, for gptchar.json, against the published v1.2.0 gptchar
 * training file; every refusal names the file and what was expected. */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "core/util.h"
#include "isotrain.h"
#include "vectorset/manifest.h"

TU_DIR_SUITE(recipe_vectors, 0, .timeout = 240);

static cJSON *read_json(const char *path)
{
    char *text = tu_read(path);
    cJSON *j = cJSON_Parse(text);
    free(text);
    cr_assert(j, "%s: not JSON", path);
    return j;
}

static const cJSON *get(const cJSON *o, const char *k)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    cr_assert(v, "no field %s", k);
    return v;
}

static char *make_set(const char *recipe, const char *name, const char *steps)
{
    char *out = at(name);
    tu_conform_says(0, 0, "recipe sha256:", "vectors", "--recipe", recipe, "--out", out, "--steps", steps, NULL);
    return out;
}

static void sha256_of_file(const char *path, char hex[65])
{
    char *text = tu_read(path);
    unsigned char d[32];
    it_sha256(text, strlen(text), d);
    it_hex(d, 32, hex);
    free(text);
}

Test(recipe_vectors, tiny_set_lints_and_names_its_recipe)
{
    char *out = make_set("spec/recipes/tiny.json", "tiny", "3");
    tu_conform_says(0, 0, "clean", "lint", out, NULL);
    char *mp = tu_at(out, "MANIFEST.json");
    cJSON *m = read_json(mp);
    const cJSON *rec = get(m, "recipe");
    char hex[65];
    sha256_of_file("spec/recipes/tiny.json", hex);
    cr_assert_str_eq(get(rec, "sha256")->valuestring, hex, "the manifest names the recipe's own SHA-256");
    cr_assert_str_eq(get(rec, "path")->valuestring, "recipe/tiny.json");
    tu_assert_has(get(m, "generator")->valuestring, "reference " IT_VERSION);
    char *copy = tu_at(out, "recipe/tiny.json");
    char chex[65];
    sha256_of_file(copy, chex);
    cr_assert_str_eq(chex, hex, "the set holds the recipe byte for byte");
    cJSON_Delete(m);
    free(copy);
    free(mp);
    free(out);
}

/* Every step of the set against the reference CLI's own trace of the
 * recipe: digest and loss bits, steps 0..3 (the vectors come from the
 * linked library, the IUT from the CLI: the two must agree). */
Test(recipe_vectors, tiny_set_is_the_reference_clis_run)
{
    char *out = make_set("spec/recipes/tiny.json", "tiny", "3");
    char *tp = tu_at(out, "train/recipe.json");
    cJSON *t = read_json(tp);
    const cJSON *trace = get(t, "trace");
    cr_assert_eq(cJSON_GetArraySize(trace), 4);
    char *cmd = xasprintf("%s train --recipe spec/recipes/tiny.json --steps 3 --trace -", tu_env("IT_REF_CLI"));
    tu_result r = tu_sh(cmd);
    cr_assert_eq(r.code, 0, "%s: %s", cmd, r.err);
    int compared = 0;
    for (const cJSON *e = trace->child; e; e = e->next) {
        int step = get(e, "step")->valueint;
        const cJSON *loss = cJSON_GetObjectItemCaseSensitive(e, "loss");
        char *line = loss ? xasprintf("step=%d loss=0x%s ", step, loss->valuestring) : xasprintf("step=%d ", step);
        char *dg = xasprintf("digest=%s\n", get(e, "digest")->valuestring);
        const char *at_line = strstr(r.out, line);
        cr_assert(at_line, "the CLI's trace has no '%s':\n%s", line, r.out);
        const char *eol = strchr(at_line, '\n');
        cr_assert(eol && strstr(at_line, dg) && strstr(at_line, dg) < eol + 1, "step %d: digest differs", step);
        compared++;
        free(line);
        free(dg);
    }
    cr_assert_eq(compared, 4, "every step compared");
    tu_result_free(&r);
    free(cmd);
    cJSON_Delete(t);
    free(tp);
    free(out);
}

/* gptchar.json is the family at §14's values: its set's steps are the
 * published v1.2.0 gptchar training file's, digest and loss, one by one. */
Test(recipe_vectors, gptchar_recipe_is_published_gptchar)
{
    char *out = make_set("spec/recipes/gptchar.json", "gptchar", "4");
    char *tp = tu_at(out, "train/recipe.json");
    cJSON *mine = read_json(tp), *pub = read_json("vectors/v1.2.0/train/gptchar.json");
    const cJSON *a = get(mine, "trace"), *b = get(pub, "trace");
    int compared = 0;
    for (const cJSON *x = a->child, *y = b->child; x; x = x->next, y = y->next, compared++) {
        cr_assert(y, "the published trace is shorter");
        cr_assert(cJSON_Compare(x, y, 1), "step %d differs from vectors/v1.2.0's gptchar", compared);
    }
    cr_assert_eq(compared, 5, "steps 0..4 compared");
    cr_assert_str_eq(get(mine, "corpus_sha256")->valuestring, get(pub, "corpus_sha256")->valuestring);
    cJSON_Delete(mine);
    cJSON_Delete(pub);
    free(tp);
    free(out);
}

/* Bad input: exit 2, the message naming the file (or option) and what was
 * expected; each row a way the command must refuse. */
typedef struct {
    const char *why, *recipe, *out, *steps, *says;
} bad_row;
static const bad_row BAD[] = {
    {"a missing recipe", "nonexistent/r.json", "o", "3", "nonexistent/r.json"},
    {"a recipe the reference's reader refuses (its message names the field)", "@bad.json", "o", "3",
     "bad.json: corpus"},
    {"more steps than the recipe's", "spec/recipes/tiny.json", "o", "99",
     "--steps 99: expected 1 to the recipe's steps (5, spec/recipes/tiny.json)"},
    {"no step at all", "spec/recipes/tiny.json", "o", "0", "--steps 0: expected 1 to the recipe's steps"},
    {"an out directory that is not empty", "spec/recipes/tiny.json", "@full", "3",
     "exists and is not empty (expected a new or empty directory"},
    {"an out directory that cannot be made", "spec/recipes/tiny.json", "@no/such/parent", "3",
     "cannot create the directory"},
};
TU_TABLE_ROWS(recipe_vectors, refuses, sizeof BAD / sizeof BAD[0])
ParameterizedTest(const size_t *row, recipe_vectors, refuses)
{
    const bad_row *b = &BAD[*row];
    tu_put(dir, "bad.json", "{\"format\": \"isotrain-recipe-v1\", \"name\": \"x\"}", 0);
    tu_put(dir, "full/x", "x", 0);
    char *recipe = b->recipe[0] == '@' ? at(b->recipe + 1) : xstrdup(b->recipe);
    char *out = at(b->out[0] == '@' ? b->out + 1 : b->out);
    tu_conform_says(2, 1, b->says, "vectors", "--recipe", recipe, "--out", out, "--steps", b->steps, NULL);
    free(recipe);
    free(out);
}

/* The manifest's recipe digest is checked against the recipe's listing:
 * a manifest naming another digest is refused, naming the field. */
Test(recipe_vectors, recipe_digest_must_be_the_listed_one)
{
    char *out = make_set("spec/recipes/tiny.json", "tiny", "2");
    char hex[65];
    sha256_of_file("spec/recipes/tiny.json", hex);
    char *other = xstrdup(hex);
    other[0] = other[0] == '0' ? '1' : '0';
    tu_edit(out, "MANIFEST.json", hex, other); /* the "recipe" entry comes before the listing */
    tu_conform_says(2, 0, "$.recipe.sha256", "lint", out, NULL);
    free(other);
    free(out);
}

/* --sign-key: the manifest's bytes signed (ssh-keygen -Y, the receipts'
 * namespace), the signature beside it and outside the listing. */
Test(recipe_vectors, signed_set)
{
    char *cmd = xasprintf("cd '%s' && ssh-keygen -q -t ed25519 -N '' -C rv@example.org -f key && "
                          "printf 'rv@example.org namespaces=\"isotrain-receipt\" %%s\\n' \"$(cat key.pub)\" "
                          "> allowed_signers",
                          dir);
    tu_sh_ok(cmd);
    char *key = at("key"), *out = at("signed");
    tu_conform_says(0, 0, "signed (MANIFEST.json.sig)", "vectors", "--recipe", "spec/recipes/tiny.json", "--out", out,
                    "--steps", "2", "--sign-key", key, NULL);
    tu_conform_says(0, 0, "clean", "lint", out, NULL);
    char *check = xasprintf("ssh-keygen -Y verify -f '%s/allowed_signers' -I rv@example.org -n isotrain-receipt "
                            "-s '%s/MANIFEST.json.sig' < '%s/MANIFEST.json'",
                            dir, out, out);
    tu_sh_ok(check);
    /* control: the same check fails on a changed manifest */
    tu_edit(out, "MANIFEST.json", "\"recipe\"", "\"recipe\" ");
    tu_result r = tu_sh(check);
    cr_assert_neq(r.code, 0, "a changed manifest still verified");
    tu_result_free(&r);
    free(check);
    free(key);
    free(out);
    free(cmd);
}

/* ---- run --vectors RECIPESET: the recipe's certification ---- */

/* The reference CLI against a set of tiny.json: exit 6, the verdict naming
 * the recipe's digest and never the bare official PASS; the receipt records
 * the digest and the generator, and verify says what it is. */
Test(recipe_vectors, reference_passes_the_recipe)
{
    char *out = make_set("spec/recipes/tiny.json", "tiny", "3");
    char hex[65];
    sha256_of_file("spec/recipes/tiny.json", hex);
    char *receipt = at("r.json"), *junit = at("junit.xml");
    tu_result r = tu_conform("run", "--vectors", out, "--receipt", receipt, "--junit", junit, "--",
                             tu_env("IT_REF_CLI"), NULL);
    char *word = xasprintf("PASS (recipe sha256:%s)", hex);
    cr_assert_eq(r.code, 6, "exit %d, expected 6 (a recipe's PASS)\n%s%s", r.code, r.out, r.err);
    char *closing = xasprintf("; %s\n", word);
    tu_assert_has(r.out, closing);
    tu_assert_has(r.out, "scope: recipe certification");
    tu_assert_lacks(r.out, "; PASS\n");
    tu_assert_lacks(r.out, "full certification)");
    tu_result_free(&r);
    cJSON *rj = tu_receipt_json(receipt);
    const cJSON *vec = get(rj, "vectors");
    cr_assert_str_eq(get(vec, "recipe_sha256")->valuestring, hex);
    tu_assert_has(get(vec, "generator")->valuestring, "isotrain-conform vectors");
    cr_assert_str_eq(get(rj, "verdict")->valuestring, word);
    cr_assert_eq(get(rj, "exit_code")->valueint, 6);
    cr_assert(cJSON_IsFalse(get(get(rj, "scope"), "full_certification")));
    cJSON_Delete(rj);
    /* JUnit: the certification passes (no failure, not skipped), named a recipe's */
    char *x = tu_read(junit);
    tu_assert_has(x, "<testsuite name=\"isotrain-verdict\" tests=\"1\" failures=\"0\" errors=\"0\" skipped=\"0\">");
    tu_assert_has(x, "<property name=\"vectors\" value=\"RECIPE\"/>");
    tu_assert_has(x, word);
    free(x);
    free(junit);
    tu_conform_says(0, 0, "RECIPE certification: of recipe sha256:", "verify", "--allow-unsigned", "--vectors", out,
                    receipt, NULL);
    /* the receipt is bound to its set: against another set it does not verify */
    tu_conform_says(1, 0, "vectors.manifest_digest", "verify", "--allow-unsigned", "--vectors", "vectors/v1.2.0",
                    receipt, NULL);
    free(closing);
    free(word);
    free(receipt);
    free(out);
}

/* The receipt of the reference's certification against a 2-step set of
 * tiny.json (the set's directory into *out). */
static char *tiny_receipt(char **out)
{
    *out = make_set("spec/recipes/tiny.json", "tiny", "2");
    char *receipt = at("r.json");
    tu_result r = tu_conform("run", "--vectors", *out, "--receipt", receipt, "--", tu_env("IT_REF_CLI"), NULL);
    cr_assert_eq(r.code, 6, "%s%s", r.out, r.err);
    tu_result_free(&r);
    return receipt;
}

/* A receipt whose recipe digest was changed (and the verdict with it) is
 * refused by verify, naming the field. */
Test(recipe_vectors, verify_refuses_another_recipe_digest)
{
    char *out, *receipt = tiny_receipt(&out);
    cJSON *rj = tu_receipt_json(receipt);
    cJSON *vec = cJSON_GetObjectItemCaseSensitive(rj, "vectors");
    const char *fake = "00000000000000000000000000000000000000000000000000000000000000ff";
    cJSON_ReplaceItemInObjectCaseSensitive(vec, "recipe_sha256", cJSON_CreateString(fake));
    char *w = xasprintf("PASS (recipe sha256:%s)", fake);
    cJSON_ReplaceItemInObjectCaseSensitive(rj, "verdict", cJSON_CreateString(w));
    char *forged = at("forged.json");
    tu_write_receipt(forged, rj);
    tu_conform_says(1, 0, "vectors.recipe_sha256: " /* the field named */, "verify", "--allow-unsigned", "--vectors",
                    out, forged, NULL);
    /* control: the receipt as written verifies */
    tu_conform_exits(0, "verify", "--allow-unsigned", "--vectors", out, receipt, NULL);
    cJSON_Delete(rj);
    free(w);
    free(forged);
    free(receipt);
    free(out);
}

/* The receipt records the op set a recipe certification ran (its manifest
 * digest: the pinned v1.2.0's) and the set's signer (null: unsigned);
 * verify shows both and re-checks them against the sets on disk, the op set
 * at --ops-vectors DIR. Controls: another op digest in the receipt, a
 * signer where the set has none, and an op set that is not the pinned one
 * are each refused, naming the field or the set. */
Test(recipe_vectors, receipt_names_the_signer_and_the_op_set)
{
    char *out, *receipt = tiny_receipt(&out);
    const char *v12 = "99be8d1e65fdb9717bf0749d61cbce47502a3c8f30b87f26006dd995dd5cc861",
               *v11 = "b0ec503f9b4283c4f72e0f69f6d456a84a62d9d2202d0a0f28c2774375072a94";
    cJSON *rj = tu_receipt_json(receipt);
    cJSON *vec = cJSON_GetObjectItemCaseSensitive(rj, "vectors");
    cr_assert_str_eq(get(vec, "ops_manifest_digest")->valuestring, v12);
    cr_assert(cJSON_IsNull(get(vec, "recipe_signer")));
    tu_result v = tu_conform("verify", "--allow-unsigned", "--vectors", out, "--ops-vectors", "vectors/v1.2.0", receipt,
                             NULL);
    cr_assert_eq(v.code, 0, "%s%s", v.out, v.err);
    tu_assert_has(v.out, "recipe set signer: UNSIGNED");
    char *ops = xasprintf("op vectors: manifest %s", v12);
    tu_assert_has(v.out, ops);
    tu_result_free(&v);
    /* controls */
    tu_conform_says(1, 0, "is not the pinned digest of vector set 1.2.0", "verify", "--allow-unsigned", "--vectors",
                    out, "--ops-vectors", "vectors/v1.1.0", receipt, NULL);
    cJSON_ReplaceItemInObjectCaseSensitive(vec, "ops_manifest_digest", cJSON_CreateString(v11));
    char *forged = at("ops.json");
    tu_write_receipt(forged, rj);
    tu_conform_says(1, 0, "vectors.ops_manifest_digest: b0ec503f", "verify", "--allow-unsigned", "--vectors", out,
                    forged, NULL);
    cJSON_ReplaceItemInObjectCaseSensitive(vec, "ops_manifest_digest", cJSON_CreateString(v12));
    cJSON_ReplaceItemInObjectCaseSensitive(vec, "recipe_signer",
                                           cJSON_CreateString("SHA256:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"));
    tu_write_receipt(forged, rj);
    tu_conform_says(1, 0, "vectors.recipe_signer: SHA256:AAAA", "verify", "--allow-unsigned", "--vectors", out, forged,
                    NULL);
    /* a recipe receipt without either field is refused, naming it (absent
     * is not "unsigned" nor "any op set"); the receipt as written is the control above */
    cJSON_DeleteItemFromObjectCaseSensitive(vec, "recipe_signer");
    tu_write_receipt(forged, rj);
    tu_conform_says(1, 0, "vectors.recipe_signer: missing", "verify", "--allow-unsigned", "--vectors", out, forged,
                    NULL);
    cJSON_AddNullToObject(vec, "recipe_signer");
    cJSON_DeleteItemFromObjectCaseSensitive(vec, "ops_manifest_digest");
    tu_write_receipt(forged, rj);
    tu_conform_says(1, 0, "vectors.ops_manifest_digest: missing", "verify", "--allow-unsigned", "--vectors", out,
                    forged, NULL);
    cJSON_Delete(rj);
    free(ops);
    free(forged);
    free(receipt);
    free(out);
}

/* A mutated IUT (tests/iuts/recipe_wrong.sh: checkpoints from step 2 on
 * one bit off in a recipe run) FAILs, at step 2, exit 1. */
Test(recipe_vectors, mutated_iut_fails)
{
    char *out = make_set("spec/recipes/tiny.json", "tiny", "3");
    unsetenv("NO_RECIPE_HELLO");
    char *junit = at("junit.xml");
    tu_result r = tu_run_script("recipe_wrong.sh", out, "--junit", junit, NULL);
    cr_assert_eq(r.code, 1, "exit %d, expected 1 (FAIL)\n%s%s", r.code, r.out, r.err);
    tu_assert_has(r.out, "FAIL: first failure: recipe/2: parameters differ");
    tu_assert_lacks(r.out, "PASS (recipe");
    tu_result_free(&r);
    /* the control of the JUnit pass above: this certification is a failure */
    char *x = tu_read(junit);
    tu_assert_has(x, "<testsuite name=\"isotrain-verdict\" tests=\"1\" failures=\"1\" errors=\"0\" skipped=\"0\">");
    tu_assert_has(x, "<property name=\"vectors\" value=\"RECIPE\"/>");
    free(x);
    free(junit);
    free(out);
}

/* An IUT whose hello lacks train_recipe=1 is never told --recipe (P7): its
 * run is skipped as not implemented, the verdict PARTIAL (exit 3). */
Test(recipe_vectors, no_train_recipe_no_recipe_run)
{
    char *out = make_set("spec/recipes/tiny.json", "tiny", "2");
    setenv("NO_RECIPE_HELLO", "1", 1);
    tu_result r = tu_run_script("recipe_wrong.sh", out, NULL);
    unsetenv("NO_RECIPE_HELLO");
    cr_assert_eq(r.code, 3, "exit %d, expected 3 (PARTIAL)\n%s%s", r.code, r.out, r.err);
    tu_assert_has(r.out, "hello does not advertise train_recipe=1");
    tu_assert_lacks(r.out, "told --recipe");
    tu_result_free(&r);
    free(out);
}

/* The manifest listing after a file of the set changed: the set's manifest
 * rewritten as `vectors` writes it, the recipe entry kept. */
static void remanifest_recipe_set(const char *set)
{
    char *mp = tu_at(set, "MANIFEST.json");
    cJSON *m = read_json(mp);
    cJSON *files = cJSON_GetObjectItemCaseSensitive(m, "files");
    size_t n = (size_t)cJSON_GetArraySize(files), i = 0;
    manifest_file *mf = calloc(n, sizeof *mf);
    for (cJSON *f = files->child; f; f = f->next, i++) {
        const char *p = cJSON_GetObjectItemCaseSensitive(f, "path")->valuestring;
        char *full = tu_at(set, p), hex[65], err[256];
        uint64_t size = 0;
        cr_assert_eq(sha256_file(full, hex, &size, err, sizeof err), 0, "%s", err);
        cJSON_ReplaceItemInObjectCaseSensitive(f, "size", cJSON_CreateNumber((double)size));
        cJSON_ReplaceItemInObjectCaseSensitive(f, "sha256", cJSON_CreateString(hex));
        mf[i].path = (char *)p;
        mf[i].size = size;
        memcpy(mf[i].sha256, hex, 65);
        free(full);
    }
    char digest[65];
    manifest_digest_of(mf, n, digest);
    cJSON_ReplaceItemInObjectCaseSensitive(m, "manifest_digest", cJSON_CreateString(digest));
    char *text = cJSON_Print(m);
    FILE *fp = fopen(mp, "w");
    cr_assert(fp);
    fputs(text, fp);
    fclose(fp);
    free(text);
    free(mf);
    cJSON_Delete(m);
    free(mp);
}

/* One step's digest of the set changed: as it is, the manifest refuses the
 * set (exit 2, no case run); re-manifested, the runner hashes the
 * reference's checkpoints itself, so the honest reference FAILs that step:
 * an edited set never yields a PASS of what it did not train. */
Test(recipe_vectors, tampered_step_digest)
{
    /* 4 steps: windows start at 0, 1 and 2, the checkpoint is 4's; step 3's
     * digest is in the trace alone (an edit of a window start or checkpoint
     * step is refused by the loader too: their files' digests disagree) */
    char *out = make_set("spec/recipes/tiny.json", "tiny", "4");
    char *tp = tu_at(out, "train/recipe.json");
    cJSON *t = read_json(tp);
    const cJSON *e2 = cJSON_GetArrayItem(get(t, "trace"), 3);
    char *want = xstrdup(get(e2, "digest")->valuestring);
    cJSON_Delete(t);
    char *other = xstrdup(want);
    other[0] = other[0] == '0' ? '1' : '0';
    tu_edit(out, "train/recipe.json", want, other);
    tu_result r = tu_conform("run", "--vectors", out, "--", tu_env("IT_REF_CLI"), NULL);
    cr_assert_eq(r.code, 2, "exit %d, expected 2 (refused)\n%s%s", r.code, r.out, r.err);
    tu_assert_has(r.err, "train/recipe.json: SHA-256");
    tu_assert_has(r.out, "no case was run");
    tu_result_free(&r);
    remanifest_recipe_set(out);
    r = tu_conform("run", "--vectors", out, "--", tu_env("IT_REF_CLI"), NULL);
    cr_assert_eq(r.code, 1, "exit %d, expected 1 (FAIL)\n%s%s", r.code, r.out, r.err);
    tu_assert_has(r.out, "recipe/3: parameters differ");
    tu_result_free(&r);
    free(want);
    free(other);
    free(tp);
    free(out);
}

/* A set whose manifest names another recipe digest than its listed recipe
 * file's is refused by run, naming the field. */
Test(recipe_vectors, run_refuses_another_recipe_digest)
{
    char *out = make_set("spec/recipes/tiny.json", "tiny", "2");
    char hex[65];
    sha256_of_file("spec/recipes/tiny.json", hex);
    char *other = xstrdup(hex);
    other[5] = other[5] == 'a' ? 'b' : 'a';
    tu_edit(out, "MANIFEST.json", hex, other);
    tu_result r = tu_conform("run", "--vectors", out, "--", tu_env("IT_REF_CLI"), NULL);
    cr_assert_eq(r.code, 2, "exit %d, expected 2\n%s%s", r.code, r.out, r.err);
    tu_assert_has(r.err, "$.recipe.sha256");
    tu_assert_has(r.err, "expected the recipe's own digest");
    tu_result_free(&r);
    free(other);
    free(out);
}
