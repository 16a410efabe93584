/* A recipe certification is ops + fresh + the recipe's run, like an
 * official one (issue 32 item 3; conformance/README.md "Recipe vector
 * sets"): the GPT family's op groups of the pinned set v1.2.0 (found where
 * `run` finds its default set, or at --ops-vectors DIR), fresh op cases and
 * a fresh-seed recipe run; `run --windows` adds fresh windows over the
 * recipe's whole run from start states the linked reference makes. Each
 * test has its negative control: a wrong op, a wrong late step. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "core/util.h"

#include <cjson/cJSON.h>

TU_DIR_SUITE(recipe_certify, 0, .timeout = 900);

static char *make_set(const char *recipe, const char *name, const char *steps)
{
    char *out = at(name);
    tu_conform_says(0, 0, "recipe sha256:", "vectors", "--recipe", recipe, "--out", out, "--steps", steps, NULL);
    return out;
}

/* tiny.json at N steps (schedule max(N, 10), its checkpoint at N), named
 * tinyN, the corpus beside it as the recipe names it; 20 steps are long
 * enough for three windows of the family's 3 steps, one in each third. */
static char *recipe_steps(const char *n)
{
    char *text = tu_read("spec/recipes/tiny.json"), *corpus = tu_read("spec/recipes/shakespeare100k.txt");
    const char *from[] = {"\"steps\": 5", "\"schedule_length\": 10", "\"checkpoint_steps\": [5]", "\"name\": \"tiny\""};
    char *steps = xasprintf("\"steps\": %s", n), *length = xasprintf("\"schedule_length\": %s", atoi(n) > 10 ? n : "10"),
         *ck = xasprintf("\"checkpoint_steps\": [%s]", n), *name = xasprintf("\"name\": \"tiny%s\"", n);
    const char *to[] = {steps, length, ck, name};
    for (size_t i = 0; i < 4; i++) {
        char *p = strstr(text, from[i]);
        cr_assert(p, "spec/recipes/tiny.json has no %s", from[i]);
        char *next = xasprintf("%.*s%s%s", (int)(p - text), text, to[i], p + strlen(from[i]));
        free(text);
        text = next;
    }
    char *rel = xasprintf("r%s/tiny%s.json", n, n), *crel = xasprintf("r%s/shakespeare100k.txt", n);
    tu_put(dir, rel, text, 0);
    tu_put(dir, crel, corpus, 0);
    char *path = at(rel);
    free(text);
    free(corpus);
    free(rel);
    free(crel);
    free(steps);
    free(length);
    free(ck);
    free(name);
    return path;
}

/* The reference: the family's op groups run (and no group only other
 * profiles use), fresh op cases and the fresh-seed recipe run pass, the
 * verdict is the recipe's PASS (exit 6) and verify recomputes it with the
 * same op set. Control: an op the family uses answering wrong FAILs the
 * certification at the op level (exit 1), the recipe's run still passing. */
Test(recipe_certify, ops_and_fresh_are_part_of_it)
{
    char *out = make_set("spec/recipes/tiny.json", "tiny", "3"), *receipt = at("r.json");
    tu_result r = tu_conform("run", "--vectors", out, "--ops-vectors", "vectors/v1.2.0", "--receipt", receipt, "--",
                             tu_env("IT_REF_CLI"), NULL);
    cr_assert_eq(r.code, 6, "exit %d, expected 6\n%s%s", r.code, r.out, r.err);
    tu_assert_has(r.out, "op groups the GPT family uses, of the official set vectors/v1.2.0");
    tu_assert_has(r.out, "\n  layernorm ");
    tu_assert_lacks(r.out, "\n  mlp13k "); /* mlp13k's group: not the family's */
    tu_assert_has(r.out, "level ops: PASS");
    tu_assert_has(r.out, "level fresh: PASS");
    tu_assert_has(r.out, "fresh recipe seed ");
    tu_assert_has(r.out, "scope: recipe certification: the GPT family's op vectors");
    tu_result_free(&r);
    tu_conform_says(0, 0, "RECIPE certification", "verify", "--allow-unsigned", "--vectors", out, receipt, NULL);
    setenv("RECIPE_WRONG_OP", "1", 1);
    r = tu_run_script("recipe_wrong.sh", out, NULL);
    unsetenv("RECIPE_WRONG_OP");
    cr_assert_eq(r.code, 1, "exit %d, expected 1 (FAIL)\n%s%s", r.code, r.out, r.err);
    tu_assert_has(r.out, "level ops: FAIL");
    tu_assert_has(r.out, "FAIL: first failure: exp/1: ");
    tu_assert_has(r.out, "level train: PASS");
    tu_assert_lacks(r.out, "PASS (recipe");
    tu_result_free(&r);
    free(receipt);
    free(out);
}

/* The fresh-seed run of a recipe is min(steps, W + 3) (spec §16.5, P7): a
 * tiny of 8 steps (W 2) runs 5 fresh steps, not 8. Control: an IUT right
 * under the recipe's seed and wrong from step 5 on under any other one (a
 * defect only another seed shows) passes the golden run and FAILs the
 * fresh level at step 5, the last one the bound keeps. */
Test(recipe_certify, fresh_run_is_cut_past_the_warmup)
{
    char *recipe = recipe_steps("8");
    char *out = make_set(recipe, "t8", "2");
    tu_result r = tu_conform("run", "--vectors", out, "--", tu_env("IT_REF_CLI"), NULL);
    cr_assert_eq(r.code, 6, "exit %d, expected 6\n%s%s", r.code, r.out, r.err);
    tu_assert_has(r.out, "level fresh: PASS");
    tu_assert_has(r.out, "fresh recipe seed ");
    tu_assert_has(r.out, " 6 steps passed"); /* steps 0..5 */
    tu_result_free(&r);
    setenv("RECIPE_WRONG_SEEDED", "1", 1);
    setenv("RECIPE_WRONG_FROM", "5", 1);
    r = tu_run_script("recipe_wrong.sh", out, NULL);
    cr_assert_eq(r.code, 1, "exit %d, expected 1 (FAIL)\n%s%s", r.code, r.out, r.err);
    tu_assert_has(r.out, "level train: PASS");
    tu_assert_has(r.out, "level fresh: FAIL");
    tu_assert_lacks(r.out, "PASS (recipe");
    tu_result_free(&r);
    unsetenv("RECIPE_WRONG_SEEDED");
    unsetenv("RECIPE_WRONG_FROM");
    free(out);
    free(recipe);
}

/* Every run's trace header names what was asked (P7, spec §9.2), the
 * fresh-seed run's too: an IUT whose bits are right but whose seeded run
 * says profile=other (recipe_wrong.sh RECIPE_WRONG_HEADER=1 with
 * RECIPE_WRONG_SEEDED=1) passes the golden run and fails the fresh level
 * (its fresh-seed run: min(5, W + 3) = 5 steps).
 * Until 2026-12-04 only the golden run's header was read, and this IUT
 * was PASS (recipe). */
Test(recipe_certify, every_runs_header_names_the_recipe)
{
    char *out = make_set("spec/recipes/tiny.json", "tiny", "3");
    setenv("RECIPE_WRONG_SEEDED", "1", 1);
    setenv("RECIPE_WRONG_HEADER", "1", 1);
    tu_result r = tu_run_script("recipe_wrong.sh", out, NULL);
    unsetenv("RECIPE_WRONG_SEEDED");
    unsetenv("RECIPE_WRONG_HEADER");
    cr_assert_eq(r.code, 1, "exit %d, expected 1 (FAIL)\n%s%s", r.code, r.out, r.err);
    tu_assert_has(r.out, "level train: PASS");
    tu_assert_has(r.out, "level fresh: FAIL");
    tu_assert_has(r.out, "its header says profile=other steps=5, expected profile=tiny steps=5");
    tu_assert_lacks(r.out, "PASS (recipe");
    tu_result_free(&r);
    free(out);
}

/* A recipe whose corpus has another digest must be refused (spec §16.1,
 * P7 1.3.0: exit 2, no file written): the fresh case
 * fresh/recipe/corpus-digest hands the IUT the set's recipe with two bytes
 * of its corpus swapped, and the reference refuses it. Control: an IUT
 * that trains whatever corpus it is given (recipe_wrong.sh
 * RECIPE_DIGEST_UNCHECKED=1) passes the golden run and every other fresh
 * case, and FAILs that one, the reason naming the case and the rule. */
Test(recipe_certify, corpus_of_another_digest_is_refused)
{
    char *out = make_set("spec/recipes/tiny.json", "tinyd", "2");
    tu_result r = tu_conform("run", "--vectors", out, "--", tu_env("IT_REF_CLI"), NULL);
    cr_assert_eq(r.code, 6, "exit %d, expected 6\n%s%s", r.code, r.out, r.err);
    tu_assert_has(r.out, "fresh recipe, corpus recipe/shakespeare100k.txt with bytes ");
    tu_assert_has(r.out, " swapped, refused, exit 2: passed");
    tu_result_free(&r);
    setenv("RECIPE_DIGEST_UNCHECKED", "1", 1);
    r = tu_run_script("recipe_wrong.sh", out, NULL);
    unsetenv("RECIPE_DIGEST_UNCHECKED");
    cr_assert_eq(r.code, 1, "exit %d, expected 1 (FAIL)\n%s%s", r.code, r.out, r.err);
    tu_assert_has(r.out, "level train: PASS");
    tu_assert_has(r.out, "level fresh: FAIL (");
    tu_assert_has(r.out, "    FAIL fresh/recipe/corpus-digest: the IUT trained a recipe whose corpus "
                         "recipe/shakespeare100k.txt does not have the recipe's corpus.sha256 (exit 0); spec 16.1 "
                         "and P7 1.3.0 require a refusal, exit 2");
    tu_assert_has(r.out, "FAIL: first failure: fresh/recipe/corpus-digest: ");
    tu_result_free(&r);
    free(out);
}

/* The op set is the pinned v1.2.0 and no other: an official set of
 * another version (v1.1.0, without the family's groups) is refused before
 * any case runs, naming its manifest. */
Test(recipe_certify, another_op_set_is_refused)
{
    char *out = make_set("spec/recipes/tiny.json", "tiny", "2");
    tu_result r = tu_conform("run", "--vectors", out, "--ops-vectors", "vectors/v1.1.0", "--", tu_env("IT_REF_CLI"),
                             NULL);
    cr_assert_eq(r.code, 2, "exit %d, expected 2\n%s%s", r.code, r.out, r.err);
    tu_assert_has(r.err, "vectors/v1.1.0/MANIFEST.json: manifest digest ");
    tu_assert_has(r.err, "is not the pinned digest of vector set 1.2.0");
    tu_assert_has(r.out, "no case was run");
    tu_result_free(&r);
    free(out);
}

/* run --windows: three fresh windows over the recipe's 20 steps, start
 * states by the linked reference under a drawn seed; the verdict names the
 * recipe and the windows, and verify agrees. Control: an IUT wrong from
 * step 8 on passes the set's 3 steps, and a window late in the run FAILs. */
Test(recipe_certify, fresh_windows_over_the_whole_run)
{
    char *recipe = recipe_steps("20");
    char *out = make_set(recipe, "t20", "3"), *receipt = at("w.json");
    tu_result r = tu_conform("run", "--windows", "--vectors", out, "--receipt", receipt, "--", tu_env("IT_REF_CLI"),
                             NULL);
    cr_assert_eq(r.code, 6, "exit %d, expected 6\n%s%s", r.code, r.out, r.err);
    tu_assert_has(r.out, "profile recipe, 3 fresh windows under seed ");
    int late = 0; /* the last window lies in the run's last third: it ends at 16..20 */
    for (int end = 16; end <= 20; end++) {
        char *w = xasprintf("-> %d under seed ", end);
        late |= strstr(r.out, w) != NULL;
        free(w);
    }
    cr_assert(late, "no window ends in steps 16..20:\n%s", r.out);
    tu_assert_has(r.out, ", windows)\n");
    tu_result_free(&r);
    tu_conform_says(0, 0, ", windows) recomputed", "verify", "--allow-unsigned", "--vectors", out, receipt, NULL);
    setenv("RECIPE_WRONG_FROM", "8", 1);
    r = tu_run_script("recipe_wrong.sh", out, "--windows", "--level", "train", NULL);
    unsetenv("RECIPE_WRONG_FROM");
    cr_assert_eq(r.code, 1, "exit %d, expected 1 (FAIL)\n%s%s", r.code, r.out, r.err);
    tu_assert_has(r.out, "  recipe                   4 steps passed"); /* the set's run: steps 0..3 */
    tu_assert_has(r.out, "FAIL recipe/fresh-window/");
    tu_assert_lacks(r.out, "PASS (recipe");
    tu_result_free(&r);
    free(receipt);
    free(out);
    free(recipe);
}

/* `matrix` takes a recipe's full run with --windows (`PASS (recipe
 * sha256:HEX, windows)`, which it refused as "not a certification" until
 * the example recipe ran across hosts) and a recipe certified by windows
 * (an emulated host's run: a prefix under --steps and the fresh windows
 * over the recipe's whole run) as the recipe's certification by windows: it draws the windows again from
 * the recipe the set pins (its steps and seed, fresh_windows.h), as `run`
 * drew them; before, it knew no windows for a recipe and refused the
 * receipt ("no fresh windows are drawn for it"). Control: the same run
 * through recipe_wrong.sh, wrong from step 8 on, fails a window, and the
 * matrix's row is FAIL (exit 1). */
Test(recipe_certify, matrix_takes_a_recipe_certified_by_windows)
{
    char *recipe = recipe_steps("20");
    char *out = make_set(recipe, "m20", "20"), *receipt = at("mw.json"), *wrong = at("mwrong.json");
    /* the unemulated host's run: in full, and the windows too */
    tu_result r = tu_conform("run", "--windows", "--vectors", out, "--receipt", receipt, "--", tu_env("IT_REF_CLI"), NULL);
    cr_assert_eq(r.code, 6, "exit %d, expected 6\n%s%s", r.code, r.out, r.err);
    tu_assert_has(r.out, ", windows)\n");
    tu_result_free(&r);
    r = tu_conform("matrix", "--allow-unsigned", "--vectors", out, receipt, NULL);
    cr_assert_eq(r.code, 0, "matrix of the full run: exit %d, expected 0\n%s%s", r.code, r.out, r.err);
    tu_assert_has(r.out, ": ok: certified against a recipe, not the official vectors: every step");
    tu_result_free(&r);
    r = tu_conform("run", "--steps", "1", "--windows", "--vectors", out, "--receipt", receipt, "--",
                             tu_env("IT_REF_CLI"), NULL);
    cr_assert_eq(r.code, 3, "exit %d, expected 3 (PARTIAL: --steps)\n%s%s", r.code, r.out, r.err);
    tu_assert_has(r.out, "profile recipe, 3 fresh windows under seed ");
    tu_result_free(&r);
    r = tu_conform("matrix", "--allow-unsigned", "--vectors", out, receipt, NULL);
    cr_assert_eq(r.code, 0, "matrix: exit %d, expected 0\n%s%s", r.code, r.out, r.err);
    tu_assert_has(r.out, "(windows)");
    tu_assert_has(r.out, ": ok: certified by windows against a recipe, not the official vectors");
    tu_assert_lacks(r.out, "no fresh windows are drawn");
    tu_result_free(&r);
    setenv("RECIPE_WRONG_FROM", "8", 1);
    r = tu_run_script("recipe_wrong.sh", out, "--steps", "1", "--windows", "--receipt", wrong, NULL);
    unsetenv("RECIPE_WRONG_FROM");
    cr_assert_eq(r.code, 1, "exit %d, expected 1 (FAIL)\n%s%s", r.code, r.out, r.err);
    tu_result_free(&r);
    r = tu_conform("matrix", "--allow-unsigned", "--vectors", out, wrong, NULL);
    cr_assert_eq(r.code, 1, "matrix of the wrong run: exit %d, expected 1\n%s%s", r.code, r.out, r.err);
    tu_assert_has(r.out, "FAIL");
    tu_assert_lacks(r.out, "(windows)");
    tu_result_free(&r);
    free(wrong);
    free(receipt);
    free(out);
    free(recipe);
}

/* The runner checks a signed set's MANIFEST.json.sig itself: a good one is
 * named with its key's fingerprint (ssh-keygen -l's); one blank added to the
 * manifest (its listing, and so the manifest check, unchanged) is an ERROR
 * naming the file, no case run. Control: an unsigned set says so. */
Test(recipe_certify, signed_set_checked_by_the_runner)
{
    char *cmd = xasprintf("cd '%s' && ssh-keygen -q -t ed25519 -N '' -C rc@example.org -f key", dir);
    tu_sh_ok(cmd);
    char *fpcmd = xasprintf("ssh-keygen -l -f '%s/key.pub' | cut -d' ' -f2", dir);
    tu_result f = tu_sh(fpcmd);
    cr_assert_eq(f.code, 0, "%s", f.err);
    f.out[strcspn(f.out, "\n")] = 0;
    char *key = at("key"), *out = at("signed");
    tu_conform_says(0, 0, "signed (MANIFEST.json.sig)", "vectors", "--recipe", "spec/recipes/tiny.json", "--out", out,
                    "--steps", "2", "--sign-key", key, NULL);
    char *says = xasprintf("vectors: signed: MANIFEST.json.sig verifies over MANIFEST.json, by the key %s", f.out);
    char *receipt = at("signed.json");
    tu_conform_says(3, 0, says, "run", "--level", "train", "--vectors", out, "--receipt", receipt, "--",
                    tu_env("IT_REF_CLI"), NULL);
    /* the receipt names the signer; verify re-checks it against the set */
    cJSON *rj = tu_receipt_json(receipt);
    const cJSON *signer = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(rj, "vectors"),
                                                           "recipe_signer");
    cr_assert(cJSON_IsString(signer) && !strcmp(signer->valuestring, f.out), "vectors.recipe_signer is not %s", f.out);
    cJSON_Delete(rj);
    char *signed_by = xasprintf("recipe set signer: %s", f.out);
    tu_conform_says(0, 0, signed_by, "verify", "--allow-unsigned", "--vectors", out, receipt, NULL);
    tu_edit(out, "MANIFEST.json", "\"recipe\"", "\"recipe\" ");
    /* control: the signature no longer verifies, and neither does the receipt */
    tu_conform_says(1, 0, "MANIFEST.json.sig does not verify", "verify", "--allow-unsigned", "--vectors", out, receipt,
                    NULL);
    tu_conform_says(0, 0, "clean", "lint", out, NULL); /* the manifest alone still verifies */
    tu_result r = tu_conform("run", "--level", "train", "--vectors", out, "--", tu_env("IT_REF_CLI"), NULL);
    cr_assert_eq(r.code, 2, "exit %d, expected 2\n%s%s", r.code, r.out, r.err);
    char *names = xasprintf("ERROR: %s/MANIFEST.json: its signature %s/MANIFEST.json.sig does not verify", out, out);
    tu_assert_has(r.err, names);
    tu_assert_has(r.out, "no case was run");
    tu_result_free(&r);
    char *plain = make_set("spec/recipes/tiny.json", "plain", "2");
    tu_conform_says(3, 0, "vectors: UNSIGNED: no MANIFEST.json.sig", "run", "--level", "train", "--vectors", plain, "--",
                    tu_env("IT_REF_CLI"), NULL);
    free(plain);
    free(names);
    free(says);
    free(signed_by);
    free(receipt);
    free(key);
    free(out);
    free(fpcmd);
    tu_result_free(&f);
    free(cmd);
}
