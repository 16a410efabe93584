/* The two mutants of the reference (mk/conformance.mk `mutants`) against the
 * real vector set: the runner must catch each and say where. */
#include <cjson/cJSON.h>
#include <string.h>
#include <sys/stat.h>

#include "testutil.h"
#include "core/util.h"
#include "vectorset/vectors_load.h"

static void need_vectors(void)
{
    char *m = xasprintf("%s/MANIFEST.json", tu_env("IT_VECTORS"));
    struct stat st;
    int ok = stat(m, &st) == 0;
    free(m);
    if (!ok)
        cr_skip_test("no vector set at %s yet (make vectors)", tu_env("IT_VECTORS"));
}

static cJSON *receipt(const char *path)
{
    return tu_receipt_json(path);
}

static cJSON *localization(cJSON *j)
{
    cJSON *p = cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "levels"), "train"),
                                                      "profiles"),
                                  0);
    cr_assert(p);
    cJSON *l = cJSON_GetObjectItem(p, "localization");
    cr_assert(l, "no localization in the receipt");
    return l;
}

Test(mutants, flipped_bit_after_step_137, .timeout = 120)
{
    need_vectors();
    char *dir = tu_tmpdir();
    char *rp = xasprintf("%s/receipt.json", dir);
    tu_result r = tu_conform("run", "--iut-exec", tu_env("IT_MUTANT_FLIP"), "--vectors", tu_env("IT_VECTORS"), "--level",
                             "train", "--receipt", rp, NULL);
    cr_assert_eq(r.code, 1, "%s%s", r.out, r.err);
    tu_assert_has(r.out, "first step whose parameters differ: 137");
    /* the flip never shows in a loss of this run: identical through 200 */
    tu_assert_has(r.out, "loss bits identical through step 200 while parameters differ from step 137");
    tu_assert_has(r.out, "first differing tensor: w2, element (5, 7) [flat index 4807]");
    tu_assert_has(r.out, ", 1 ULP\n");
    tu_assert_has(r.out, "differing elements at step 137: 1 of 13088 (w2: 1); max 1 ULP");
    tu_assert_has(r.out, "ULP histogram: 1 ULP: 1, 2-3: 0, 4-15: 0, 16-255: 0, >=256: 0, sign/NaN: 0");
    tu_assert_has(r.out, "first differing op: none. Every op of step 137");
    tu_assert_has(r.out, "The defect is outside the ops");
    tu_assert_has(r.out, "mlp13k                   137 steps passed");
    cJSON *j = receipt(rp);
    cJSON *l = localization(j);
    cr_assert_eq(cJSON_GetObjectItem(l, "first_step")->valuedouble, 137);
    cr_assert_str_eq(cJSON_GetObjectItem(l, "tensor")->valuestring, "w2");
    cr_assert_eq(cJSON_GetObjectItem(l, "row")->valuedouble, 5);
    cr_assert_eq(cJSON_GetObjectItem(l, "col")->valuedouble, 7);
    cr_assert_eq(cJSON_GetObjectItem(l, "ulp")->valuedouble, 1);
    cr_assert(cJSON_GetObjectItem(l, "loss_identical_through")->valuedouble >= 137);
    cJSON_Delete(j);
    tu_result_free(&r);
    tu_rmtree(dir);
    free(rp);
    free(dir);
}

Test(mutants, fma_in_the_linear_layer, .timeout = 120)
{
    need_vectors();
    char *dir = tu_tmpdir();
    char *rp = xasprintf("%s/receipt.json", dir);
    tu_result r = tu_conform("run", "--iut-exec", tu_env("IT_MUTANT_FMA"), "--vectors", tu_env("IT_VECTORS"), "--receipt",
                             rp, NULL);
    cr_assert_eq(r.code, 1, "%s%s", r.out, r.err);
    tu_assert_has(r.out, "level ops: FAIL");
    tu_assert_has(r.out, "level train: FAIL");
    tu_assert_has(r.out, "first differing op: linear_forward (spec §5.2) at position 0 of step 1");
    /* every FmaSensitive case of the dot and linear groups fails */
    problems pr;
    problems_init(&pr);
    vector_set vs;
    cr_assert_eq(vectors_load(tu_env("IT_VECTORS"), NULL, &vs, &pr), 0);
    cJSON *j = receipt(rp);
    cJSON *cases = cJSON_GetObjectItem(j, "cases");
    size_t fma_cases = 0;
    for (size_t g = 0; g < vs.n_groups; g++) {
        if (strcmp(vs.groups[g].group, "dot") != 0 && strncmp(vs.groups[g].group, "linear", 6) != 0)
            continue;
        for (size_t i = 0; i < vs.groups[g].n_cases; i++) {
            const op_case *c = &vs.groups[g].cases[i];
            /* the mutant fuses it_dot, which dot and linear_forward use;
             * linear_backward's accumulation is not it_dot */
            if (!op_case_has_flag(c, "FmaSensitive") ||
                (strcmp(c->op->name, "dot") != 0 && strcmp(c->op->name, "linear_forward") != 0))
                continue;
            fma_cases++;
            const cJSON *k;
            const char *verdict = NULL;
            cJSON_ArrayForEach(k, cases)
            {
                if (!strcmp(cJSON_GetObjectItem(k, "id")->valuestring, c->id))
                    verdict = cJSON_GetObjectItem(k, "verdict")->valuestring;
            }
            cr_assert(verdict && !strcmp(verdict, "FAIL"), "FmaSensitive case %s: %s", c->id, verdict ? verdict : "absent");
        }
    }
    cr_assert(fma_cases > 0, "the vectors have no FmaSensitive dot/linear case");
    cJSON *l = localization(j);
    cr_assert_eq(cJSON_GetObjectItem(l, "first_step")->valuedouble, 1);
    cr_assert_str_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(l, "first_op"), "op")->valuestring, "linear_forward");
    cJSON_Delete(j);
    vectors_free(&vs);
    problems_free(&pr);
    tu_result_free(&r);
    tu_rmtree(dir);
    free(rp);
    free(dir);
}

Test(mutants, reference_passes_the_vectors, .timeout = 120)
{
    need_vectors();
    tu_result r = tu_conform("run", "--iut-exec", tu_env("IT_REF_CLI"), "--vectors", tu_env("IT_VECTORS"), NULL);
    cr_assert_eq(r.code, 0, "%s%s", r.out, r.err);
    tu_assert_has(r.out, "summary: PASS");
    tu_assert_has(r.out, "vectors: OFFICIAL");
    tu_assert_has(r.out, "scope: full certification of spec 1.0 against the official vector set 1.0.0, fresh cases included");
    tu_assert_has(r.out, "; PASS (full certification)\n");
    tu_result_free(&r);
}

Test(mutants, no_ops_verb_says_why_no_op_is_named, .timeout = 120)
{
    need_vectors();
    tu_result r = tu_run_script("flip_no_ops.sh", tu_env("IT_VECTORS"), "--level", "train", NULL);
    cr_assert_eq(r.code, 1, "%s%s", r.out, r.err);
    tu_assert_has(r.out, "first differing tensor: w2, element (5, 7)");
    tu_assert_has(r.out, "first differing op: op-level localization not possible: the IUT does not implement the ops verb (exit status 64, P1)");
    tu_result_free(&r);
}
