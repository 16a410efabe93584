/* Verdicts true to spec versions (spec §12.1, spec/iut-protocol.md P7, P10;
 * conformance/README.md "Verdicts"): a run is judged by the lower of the
 * version the IUT's hello claims and the vector set's, as MAJOR.MINOR. The
 * IUT is tests/iuts/spec_1_0_0.sh, a correct implementation of spec 1.0.0
 * (the reference without train_seed=1, without the ops of 1.1.0, refusing
 * addmod113 with exit 2 as 1.0.0 allowed); SPEC_CLAIM/TRAIN_SEED make the
 * same trainer claim 1.1.0, the negative control of every rule here. Also the
 * closing line and summary (issue 17 §2) and verify's default vector set. */
#include <cjson/cJSON.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"
#include "core/util.h"

/* The script IUTs read these; a test sets them for itself. */
static void clear_iut_env(void)
{
    unsetenv("SPEC_CLAIM");
    unsetenv("TRAIN_SEED");
}

TU_DIR_SUITE_HOOK(versions, 0, clear_iut_env, .timeout = 240);

/* The last line of the runner's output (its closing line). */
static const char *closing(const tu_result *r)
{
    size_t n = strlen(r->out);
    cr_assert(n > 1 && r->out[n - 1] == '\n', "no closing line:\n%s", r->out);
    const char *last = r->out + n - 1;
    while (last > r->out && last[-1] != '\n')
        last--;
    return last;
}

static const cJSON *case_of(const cJSON *receipt, const char *id)
{
    const cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItem(receipt, "cases"))
    {
        if (!strcmp(cJSON_GetObjectItem(c, "id")->valuestring, id))
            return c;
    }
    cr_assert_fail("no case %s in the receipt", id);
    return NULL;
}

static const char *field(const cJSON *o, const char *a, const char *b)
{
    const cJSON *x = cJSON_GetObjectItem(cJSON_GetObjectItem(o, a), b);
    cr_assert(cJSON_IsString(x), "%s.%s is not a string", a, b);
    return x->valuestring;
}

/* ---- version-true verdicts -------------------------------------------------- */

/* §12.2/§12.4: vectors/v1.0.0 "still certifies 1.0.0". The fresh-seed run
 * of 1.1.0 is not a requirement of 1.0: recorded as skipped, not required. */
Test(versions, a_spec_1_0_0_iut_passes_vectors_1_0_0)
{
    char *iut = tu_iut("spec_1_0_0.sh"), *rp = at("r.json");
    tu_result r = tu_conform("run", "--iut-exec", iut, "--vectors", tu_env("IT_VECTORS"), "--receipt", rp,
                             NULL);
    cr_assert_eq(r.code, 0, "%s%s", r.out, r.err);
    tu_assert_has(r.out, "\nhello: protocol=1 name=spec-1.0.0 version=0 spec=1.0.0\n"
                         "spec: judged by spec 1.0, the lower of the IUT's 1.0.0 and the vector set's 1.0.0");
    tu_assert_has(r.out, "SKIP fresh/mlp13k/run: fresh-seed training is not a requirement of the spec certified here");
    tu_assert_has(r.out, "\nsummary: PASS: ops PASS, train PASS, fresh PASS; level reached: train;");
    tu_assert_has(r.out, "\nspec: certified: spec 1.0 (the IUT claims 1.0.0, the vector set is 1.0.0)\n");
    tu_assert_has(closing(&r), " skipped (514 exhaustive sweeps: --exhaustive; 1 not required by spec 1.0); "
                               "PASS (full certification)\n");
    tu_result_free(&r);
    cJSON *j = tu_receipt_json(rp);
    cr_assert_str_eq(field(j, "spec", "certified"), "1.0");
    cr_assert_str_eq(field(j, "spec", "iut"), "1.0.0");
    cr_assert_str_eq(field(j, "spec", "vectors"), "1.0.0");
    const cJSON *fr = case_of(j, "fresh/mlp13k/run");
    cr_assert_str_eq(cJSON_GetObjectItem(fr, "verdict")->valuestring, "SKIP");
    cr_assert(cJSON_IsFalse(cJSON_GetObjectItem(fr, "required")));
    cJSON_Delete(j);
    tu_conform_says(0, 0, ": OK: verdict PASS recomputed from ", "verify", "--allow-unsigned", rp, NULL);
    free(rp);
    free(iut);
}

/* The same IUT on vectors/v1.1.0: judged by 1.0, its exit 2 on addmod113 is
 * "not implemented" (1.0.0's P7 said only "non-zero"), the groups of 1.1.0
 * it answers error=unsupported are not required: PARTIAL naming them, never
 * FAIL; mlp13k reached train. */
Test(versions, a_spec_1_0_0_iut_is_partial_not_fail_on_vectors_1_1_0)
{
    char *rp = at("r.json");
    tu_result r = tu_run_script("spec_1_0_0.sh", tu_env("IT_VECTORS_1_1"), "--receipt", rp, NULL);
    cr_assert_eq(r.code, 3, "%s%s", r.out, r.err);
    tu_assert_has(r.out, "\nspec: judged by spec 1.0, the lower of the IUT's 1.0.0 and the vector set's 1.1.0");
    tu_assert_has(r.out, "  SKIP addmod113: not implemented: profile addmod113 arrived in spec 1.1.0, the IUT claims "
                         "1.0.0 and ended with exit status 2");
    tu_assert_has(r.out, "  sqrt                     0 passed, 18 skipped (not implemented: the group arrived in spec "
                         "1.1.0, the IUT claims 1.0.0)\n");
    tu_assert_has(r.out, "\nsummary: PARTIAL: ops PASS, train PASS, fresh PASS; level reached: addmod113 none, "
                         "mlp13k train;");
    tu_assert_has(r.out, "\nspec: judged by, not certified: spec 1.0 (the IUT claims 1.0.0, the vector set is 1.1.0)\n");
    tu_assert_has(closing(&r), " skipped (514 exhaustive sweeps: --exhaustive; ");
    tu_assert_has(closing(&r), " not implemented: newer than the IUT's spec 1.0.0; 1 not required by spec 1.0); "
                               "PARTIAL: judged by spec 1.0, not 1.1.0: the IUT claims spec 1.0.0; not implemented: "
                               "profile addmod113; op groups adamw, addmod113, attention, relu, sqrt\n");
    tu_assert_lacks(r.out, "FAIL");
    tu_result_free(&r);
    cJSON *j = tu_receipt_json(rp);
    cr_assert_str_eq(field(j, "spec", "certified"), "1.0");
    cr_assert_str_eq(field(j, "levels_reached", "mlp13k"), "train");
    cr_assert_str_eq(field(j, "levels_reached", "addmod113"), "none");
    const cJSON *run = case_of(j, "addmod113/run");
    cr_assert_str_eq(cJSON_GetObjectItem(run, "verdict")->valuestring, "SKIP");
    cr_assert(cJSON_IsFalse(cJSON_GetObjectItem(run, "required")));
    cJSON_Delete(j);
    tu_conform_says(0, 0, ": OK: verdict PARTIAL recomputed from ", "verify", "--allow-unsigned", rp, NULL);
    free(rp);
}

/* Negative control: the same trainer claiming 1.1.0 must answer an unknown
 * profile with 64 (P7, 1.1.0): its exit 2 is a FAIL, and the closing line
 * names that first failure, not the cases it skipped. */
/* Issue 27 item 8: the header names the first version whose requirements do
 * not apply (1.1 for an IUT of 1.0, whatever the set's version: on v1.2.0 it
 * said "from 1.2 on"), and the closing line says "judged by", as the
 * summary's spec line does (it said "spec 1.0 certified" of a PARTIAL). */
Test(versions, the_version_wording_agrees_on_vectors_1_2_0)
{
    tu_result r = tu_run_script("spec_1_0_0.sh", "vectors/v1.2.0", "--level", "ops", "--filter", "dot", NULL);
    cr_assert_eq(r.code, 3, "%s%s", r.out, r.err);
    tu_assert_has(r.out, "what the set tests from 1.1 on is not required of this IUT");
    tu_assert_lacks(r.out, "from 1.2 on");
    tu_assert_has(r.out, "\nspec: judged by, not certified: spec 1.0 ");
    tu_assert_has(closing(&r), "PARTIAL: ");
    tu_assert_has(closing(&r), "judged by spec 1.0, not 1.2.0: the IUT claims spec 1.0.0");
    tu_assert_lacks(closing(&r), "certified, not");
    tu_result_free(&r);
}

Test(versions, claiming_1_1_0_the_same_exit_2_is_a_fail_named_on_the_closing_line)
{
    setenv("SPEC_CLAIM", "1.1.0", 1);
    tu_result r = tu_run_script("spec_1_0_0.sh", tu_env("IT_VECTORS_1_1"), NULL);
    cr_assert_eq(r.code, 1, "%s%s", r.out, r.err);
    const char *last = closing(&r);
    tu_assert_has(last, "; FAIL: first failure: addmod113/run: the IUT exited non-zero: exit status 2");
    tu_assert_lacks(last, "required cases skipped");
    /* the scope lines still say what was skipped */
    tu_assert_has(r.out, "\nscope: not a full certification: level ops: 52 required cases skipped (first: adamw/1: ");
    tu_result_free(&r);
}

/* A spec-1.1 IUT on vectors/v1.2.0: gptchar is a profile it cannot know.
 * The fresh level judges its refusal as the train level does, a SKIP not
 * required of 1.1 (before, the fresh-seed run's exit 64 and its missing
 * checkpoints were 7 FAILs). The control: the refusal of a profile the IUT
 * does claim is a required case skipped (mlp13k), never a pass. */
Test(versions, a_spec_1_1_iut_on_v1_2_0_skips_gptchars_fresh_seed_run)
{
    char *iut = tu_iut("spec_1_1.sh");
    tu_result r = tu_conform("run", "--iut-exec", iut, "--vectors", "vectors/v1.2.0", "--fresh-only", NULL);
    cr_assert_eq(r.code, 3, "%s%s", r.out, r.err);
    tu_assert_has(r.out, "\n  SKIP fresh/gptchar/run: not implemented: profile gptchar arrived in spec 1.2.0, the IUT "
                         "claims 1.1.1 and ended its fresh-seed run with exit status 64\n");
    tu_assert_lacks(r.out, "FAIL fresh/gptchar");
    tu_assert_has(r.out, "\nlevel fresh: PASS (");
    tu_result_free(&r);
    /* the golden run's refusal says the same */
    tu_conform_says(3, 0,
                    "\n  SKIP gptchar: not implemented: profile gptchar arrived in spec 1.2.0, the IUT claims "
                    "1.1.1 and ended with exit status 64 (P7)\n",
                    "run", "--iut-exec", iut, "--vectors", "vectors/v1.2.0", "--level", "train", "--profile", "gptchar",
                    NULL);
    setenv("REFUSE_PROFILE", "mlp13k", 1);
    r = tu_conform("run", "--iut-exec", iut, "--vectors", "vectors/v1.2.0", "--fresh-only", NULL);
    unsetenv("REFUSE_PROFILE");
    cr_assert_eq(r.code, 3, "%s%s", r.out, r.err);
    tu_assert_has(r.out, "\n  SKIP fresh/mlp13k/run: the IUT does not implement the train verb or this profile "
                         "(exit status 64, P1, P7)\n");
    tu_assert_has(r.out, "\nlevel fresh: NOT REACHED (");
    tu_assert_has(r.out, "\nscope: not a full certification: level fresh: 22 required cases skipped (first: "
                         "fresh/mlp13k/run: ");
    tu_result_free(&r);
    free(iut);
}

/* --profile P requires P's op groups (verdict/requirements.c op_users): the
 * groups only addmod113 uses are out of scope for mlp13k, not "required and
 * skipped"; and the other way round for addmod113, where this IUT lacks
 * them (the control: the scoping follows the profile, it is not a blanket
 * pardon). */
Test(versions, a_profile_scoped_run_requires_that_profiles_op_groups)
{
    setenv("SPEC_CLAIM", "1.1.0", 1);
    setenv("TRAIN_SEED", "1", 1);
    char *iut = tu_iut("spec_1_0_0.sh");
    tu_result r = tu_conform("run", "--iut-exec", iut, "--vectors", tu_env("IT_VECTORS_1_1"), "--profile",
                             "mlp13k", NULL);
    cr_assert_eq(r.code, 3, "%s%s", r.out, r.err);
    tu_assert_has(r.out, "  sqrt                     18 skipped (out of scope: --profile mlp13k)\n");
    tu_assert_has(r.out, "level ops: PASS (");
    tu_assert_has(r.out, "level fresh: PASS (");
    /* the one reason left is the profile */
    tu_assert_has(closing(&r), " skipped (514 exhaustive sweeps: --exhaustive; 52 out of scope: --profile mlp13k); "
                               "PARTIAL: --profile mlp13k: not every profile of the vector set ran\n");
    tu_result_free(&r);
    r = tu_conform("run", "--iut-exec", iut, "--vectors", tu_env("IT_VECTORS_1_1"), "--profile",
                   "addmod113", "--level", "ops", NULL);
    cr_assert_eq(r.code, 3, "%s%s", r.out, r.err);
    tu_assert_has(r.out, "  tanh                     26 skipped (out of scope: --profile addmod113)\n");
    tu_assert_has(r.out, "level ops: NOT REACHED (");
    tu_assert_has(closing(&r), "; level ops: 52 required cases skipped (first: adamw/1: the IUT does not support op "
                               "adamw (error=unsupported, P5))");
    tu_result_free(&r);
    free(iut);
}

/* verify recomputes the certified version and every skipped case's
 * `required` flag; neither is taken from the receipt. */
static void set_required(cJSON *r, const char *id, int req)
{
    cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItem(r, "cases"))
    {
        if (!strcmp(cJSON_GetObjectItem(c, "id")->valuestring, id))
            cJSON_ReplaceItemInObject(c, "required", cJSON_CreateBool(req));
    }
}

static void rewrite(const char *path, cJSON *r)
{
    tu_write_receipt(path, r);
}

Test(versions, verify_recomputes_the_version_and_the_required_flags)
{
    char *iut = tu_iut("spec_1_0_0.sh"), *rp = at("r.json"), *bad = at("bad.json");
    tu_conform_exits(0, "run", "--iut-exec", iut, "--vectors", tu_env("IT_VECTORS"), "--receipt", rp, NULL);
    cJSON *j = tu_receipt_json(rp);
    /* a receipt that says 1.1 was certified */
    cJSON_ReplaceItemInObject(cJSON_GetObjectItem(j, "spec"), "certified", cJSON_CreateString("1.1"));
    rewrite(bad, j);
    tu_conform_says(1, 0, ": spec.certified: \"1.1\", but the IUT's 1.0.0 and the vector set's 1.0.0 give 1.0",
                    "verify", "--allow-unsigned", bad, NULL);
    cJSON_Delete(j);
    /* a skipped case whose flag was flipped (true: the run should have been
     * PARTIAL, as a 1.1 IUT would be) */
    j = tu_receipt_json(rp);
    set_required(j, "fresh/mlp13k/run", 1);
    rewrite(bad, j);
    tu_conform_says(1, 0,
                    ": cases (fresh/mlp13k/run): required is true, but the spec version and options make it false",
                    "verify", "--allow-unsigned", bad, NULL);
    cJSON_Delete(j);
    /* an IUT's claim edited to 1.1.0: the hello line no longer says it */
    j = tu_receipt_json(rp);
    cJSON_ReplaceItemInObject(cJSON_GetObjectItem(j, "iut"), "spec", cJSON_CreateString("1.1.0"));
    rewrite(bad, j);
    tu_conform_says(1, 0, ": iut.spec: \"1.1.0\" is not the spec= of iut.hello", "verify", "--allow-unsigned", bad,
                    NULL);
    cJSON_Delete(j);
    free(bad);
    free(rp);
    free(iut);
}

/* ---- closing lines (issue 17 §2) --------------------------------------------- */

/* verify without --vectors finds the receipt's set as run finds its default:
 * vectors/vX.Y.Z in the current directory, else the installed copy (never a
 * bare relative path that only works in a checkout). */
Test(versions, verify_without_vectors_falls_back_to_the_installed_set)
{
    char *rp = at("r.json"), *elsewhere = at("elsewhere");
    tu_result r;
    tu_conform_exits(3, "run", "--iut-exec", tu_env("IT_REF_CLI"), "--vectors", tu_env("IT_VECTORS"), "--level", "ops",
                     "--filter", "dot", "--receipt", rp, NULL);
    char cwd[PATH_MAX], conform[2 * PATH_MAX];
    cr_assert(getcwd(cwd, sizeof cwd));
    const char *c = tu_env("IT_CONFORM");
    snprintf(conform, sizeof conform, "%s%s%s", c[0] == '/' ? "" : cwd, c[0] == '/' ? "" : "/", c);
    /* in a checkout: the tree's set */
    tu_conform_exits(0, "verify", "--allow-unsigned", rp, NULL);
    /* elsewhere: where --version says the installed sets are */
    char *cmd = xasprintf("mkdir -p '%s' && cd '%s' && '%s' --version && '%s' verify --allow-unsigned '%s'", elsewhere, elsewhere,
                          conform, conform, rp);
    r = tu_sh(cmd);
    const char *dv = strstr(r.out, "default vectors: ");
    cr_assert(dv, "%s", r.out);
    char installed[PATH_MAX];
    snprintf(installed, sizeof installed, "%.*s", (int)strcspn(dv + 17, "\n"), dv + 17);
    cr_assert(installed[0] == '/', "the installed default is not an absolute path: %s", installed);
    /* the receipt is of vectors 1.0.0: the installed sets' directory, that set */
    char *slash = strrchr(installed, '/');
    cr_assert(slash, "%s", installed);
    snprintf(slash + 1, sizeof installed - (size_t)(slash + 1 - installed), "v1.0.0");
    if (r.code != 0)
        tu_assert_has(r.out, installed);
    tu_assert_lacks(r.out, "the vector set vectors/v1.0.0 does not verify");
    tu_result_free(&r);
    free(cmd);
    free(elsewhere);
    free(rp);
}

/* Issue 27 item 8: the code claims the spec text's version. The reference's
 * IT_SPEC_VERSION (its hello's spec=), the runner's CONFORM_SPEC_VERSION
 * (its header's "judging by spec"), spec/README.md and the protocol's status
 * line all say what spec/isotrain-spec.md's first lines say; on main they
 * said 1.2.0 beside a 1.2.1 text.
 *
 * For a while 1.3.0's text (the GPT family, §16) was one additive version
 * ahead of the code, which claimed 1.2.1 until the runner certified recipes
 * (issue 32); both now claim 1.3.0. The code may lag the text only
 * that way: its version is an entry of §12.4's changelog and every entry
 * after it, up to the text's, is additive (no bit moved, nothing of the
 * claimed version changed). An erratum after the claim is never such a gap. */
#include "isotrain.h"
#include "core/version.h"

static char *slurp(const char *path)
{
    char *data, err[256];
    size_t len;
    cr_assert_eq(read_file(path, 1 << 22, &data, &len, err, sizeof err), 0, "%s", err);
    return data;
}

/* The changelog entry "- **V** (" of spec, or NULL. */
static const char *entry(const char *spec, const char *v)
{
    char *head = xasprintf("\n- **%s** (", v);
    const char *e = strstr(spec, head);
    free(head);
    return e;
}

/* NULL when code claiming `claimed` may go with a text of version `text`
 * (the rule above), else why not (static). */
static const char *claim_gap(const char *spec, const char *claimed, const char *text)
{
    static char why[256];
    if (!strcmp(claimed, text))
        return NULL;
    const char *c = entry(spec, claimed), *t = entry(spec, text);
    if (!c || !t) {
        snprintf(why, sizeof why, "%s is no entry of the changelog (spec §12.4)", c ? text : claimed);
        return why;
    }
    if (t <= c) {
        snprintf(why, sizeof why, "%s is not older than the text's %s", claimed, text);
        return why;
    }
    for (const char *e = strstr(c + 1, "\n- **"); e && e <= t; e = strstr(e + 1, "\n- **")) {
        const char *paren = strstr(e, "** (");
        if (!paren || strncmp(paren + 4, "additive", 8) != 0) {
            snprintf(why, sizeof why, "the entry %.12s after %s is not additive: code claiming %s misses it", e + 5,
                     claimed, claimed);
            return why;
        }
    }
    return NULL;
}

Test(versions, the_code_claims_the_spec_texts_version)
{
    char *spec = slurp("spec/isotrain-spec.md"), *readme = slurp("spec/README.md"),
         *proto = slurp("spec/iut-protocol.md");
    const char *v = strstr(spec, "\nVersion ");
    cr_assert(v, "spec/isotrain-spec.md names no version");
    char text[16];
    cr_assert_eq(sscanf(v, "\nVersion %15[0-9.]", text), 1);
    size_t n = strlen(text);
    if (n && text[n - 1] == '.')
        text[n - 1] = '\0';
    const char *why = claim_gap(spec, IT_SPEC_VERSION, text);
    cr_assert_null(why, "the reference claims %s, the spec text is %s: %s", IT_SPEC_VERSION, text, why);
    why = claim_gap(spec, CONFORM_SPEC_VERSION, text);
    cr_assert_null(why, "the runner judges by %s, the spec text is %s: %s", CONFORM_SPEC_VERSION, text, why);
    cr_assert_str_eq(IT_SPEC_VERSION, CONFORM_SPEC_VERSION, "the reference and the runner claim different versions");
    /* negative controls: the rule is no blanket pardon */
    cr_assert_null(claim_gap(spec, text, text));
    cr_assert_not_null(claim_gap(spec, "1.2.0", text), "1.2.1's errata lie between 1.2.0 and %s", text);
    cr_assert_not_null(claim_gap(spec, "1.2.9", text), "no such version");
    cr_assert_null(claim_gap(spec, "1.1.1", "1.2.0"), "1.2.0 is additive to 1.1.1");
    cr_assert_not_null(claim_gap(spec, "1.1.1", "1.3.0"), "1.2.1's errata lie between 1.1.1 and 1.3.0");
    cr_assert_not_null(claim_gap(spec, "1.3.0", "1.2.1"), "a claim newer than the text");
    /* the prose that describes the text names the text's version */
    char *want = xasprintf("(version %s)", text);
    tu_assert_has(readme, want);
    free(want);
    want = xasprintf("part of isotrain spec %s.", text);
    tu_assert_has(proto, want);
    free(want);
    free(spec);
    free(readme);
    free(proto);
    /* and the runner says what it judges by */
    tu_result r = tu_conform("--version", NULL);
    want = xasprintf("\nspec: %s\n", CONFORM_SPEC_VERSION);
    tu_assert_has(r.out, want);
    free(want);
    tu_result_free(&r);
}

/* FORMAT.md §5: every set committed under vectors/ is pinned — official.c
 * holds its recomputed manifest digest under its vector version and §5's
 * table has its row — and the runner's default is the newest of them. A set
 * published without its pin would run as UNOFFICIAL in every user's hands;
 * this fails first. */
#include <dirent.h>

#include "core/problems.h"
#include "vectorset/manifest.h"
#include "vectorset/official.h"

Test(versions, every_committed_set_is_pinned_and_the_default_is_the_newest)
{
    char *format = slurp("vectors/FORMAT.md"), newest[32] = "";
    DIR *d = opendir("vectors");
    cr_assert(d, "no vectors/ here");
    size_t n = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (e->d_name[0] != 'v' || strlen(e->d_name) >= sizeof newest)
            continue;
        char *dir = xasprintf("vectors/%s", e->d_name);
        manifest_info m;
        problems pr;
        problems_init(&pr);
        cr_assert_eq(manifest_verify(dir, &m, &pr), 0, "%s does not verify: %s", dir, pr.n ? pr.items[0] : "");
        const official_set *off = official_by_version(m.vector_version);
        cr_assert(off, "%s: vector version %s is not pinned in official.c", dir, m.vector_version);
        cr_assert_str_eq(off->manifest_digest, m.digest, "%s: official.c pins another digest", dir);
        cr_assert_eq(official_find(m.digest), off);
        char *row = xasprintf("| %s | %s | `%s` |", off->vector_version, off->spec_version, m.digest);
        tu_assert_has(format, row);
        m.digest[0] = m.digest[0] == '0' ? '1' : '0'; /* negative control: one nibble away is no pin */
        cr_assert_null(official_find(m.digest), "%s: a digest one nibble away is pinned too", dir);
        if (strcmp(e->d_name, newest) > 0)
            memcpy(newest, e->d_name, strlen(e->d_name) + 1); /* shorter than newest: checked above */
        n++;
        free(row);
        manifest_free(&m);
        problems_free(&pr);
        free(dir);
    }
    closedir(d);
    cr_assert_geq(n, 4, "expected vectors/v1.0.0 to v1.3.0, found %zu sets", n);
    cr_assert_str_eq(CONFORM_DEFAULT_VECTOR_SET, newest, "the runner's default is not the newest committed set");
    free(format);
}
