/* The manifest check (vectors/FORMAT.md §4) and the loader, which is the lint
 * (§2, §3), on a small fixture vector set made by the tests. */
#include <stdio.h>
#include <string.h>

#include "testutil.h"
#include "core/util.h"

TU_DIR_SUITE(vectors, 4);

static tu_result lint(void)
{
    return tu_conform("lint", dir, NULL);
}

Test(vectors, fixture_is_clean)
{
    tu_result r = lint();
    cr_assert_eq(r.code, 0, "%s", r.out);
    tu_assert_has(r.out, "clean");
    tu_result_free(&r);
}

Test(vectors, manifest_names_a_changed_file)
{
    char *src = xstrdup(dir), *dst = xasprintf("%s-copy", dir);
    char *cmd = xasprintf("%s/tamper.sh '%s' '%s' ops/exp.json", tu_env("IT_IUTS"), src, dst);
    tu_result t = tu_sh(cmd);
    cr_assert_eq(t.code, 0, "tamper.sh: %s", t.err);
    tu_result r = tu_conform("run", "--iut-exec", tu_env("IT_REF_CLI"), "--vectors", dst, NULL);
    cr_assert_eq(r.code, 2, "a tampered set is refused with exit 2: %s", r.out);
    tu_assert_has(r.err, "ops/exp.json: SHA-256");
    tu_assert_has(r.err, "the file was changed");
    tu_assert_has(r.out, "no case was run");
    tu_assert_lacks(r.out, "hello:");
    tu_rmtree(dst);
    free(src);
    free(dst);
    free(cmd);
    tu_result_free(&t);
    tu_result_free(&r);
}

Test(vectors, manifest_missing_unlisted_size_digest)
{
    char *f = xasprintf("%s/ops/dot.json", dir);
    remove(f);
    free(f);
    f = xasprintf("%s/ops/extra.txt", dir);
    char err[128];
    write_file(f, "x", 1, err, sizeof err);
    free(f);
    f = xasprintf("%s/receipts/r.json", dir); /* receipts/ is outside the listing */
    write_file(f, "{}", 2, err, sizeof err);
    free(f);
    tu_edit(dir, "MANIFEST.json", "\"manifest_digest\":\t\"", "\"manifest_digest\":\t\"0");
    tu_result r = lint();
    cr_assert_eq(r.code, 2);
    tu_assert_has(r.out, "ops/dot.json: listed in MANIFEST.json but missing");
    tu_assert_has(r.out, "ops/extra.txt: unlisted file");
    tu_assert_lacks(r.out, "receipts/r.json");
    tu_assert_has(r.out, "$.manifest_digest");
    tu_result_free(&r);
}

Test(vectors, manifest_must_be_sorted)
{
    /* swap the first two entries' paths */
    char *m = xasprintf("%s/MANIFEST.json", dir);
    char *text = tu_read(m);
    cr_assert(strstr(text, "\"ops/dot.json\"") && strstr(text, "\"ops/exp.json\""));
    tu_edit(dir, "MANIFEST.json", "\"ops/dot.json\"", "\"ops/zzz.json\"");
    tu_result r = lint();
    cr_assert_eq(r.code, 2);
    tu_assert_has(r.out, "is not after");
    tu_assert_has(r.out, "ops/zzz.json: listed in MANIFEST.json but missing");
    tu_result_free(&r);
    free(text);
    free(m);
}

/* A malformed vector file with a correct manifest: the loader names the
 * file, the JSON path and what was expected. */
static void expect_lint(const char *file, const char *from, const char *to, const char *msg)
{
    tu_edit(dir, file, from, to);
    tu_remanifest(dir);
    tu_result r = lint();
    cr_assert_eq(r.code, 2, "%s", r.out);
    tu_assert_has(r.out, msg);
    tu_result_free(&r);
    /* run refuses the same set with exit 2 before any case */
    r = tu_conform("run", "--iut-exec", tu_env("IT_REF_CLI"), "--vectors", dir, NULL);
    cr_assert_eq(r.code, 2);
    tu_assert_has(r.err, msg);
    tu_result_free(&r);
}

/* One edit of one file of the fixture, and what the lint must say of it
 * (the row's name says which rule it breaks). */
typedef struct {
    const char *name, *file, *from, *to, *says;
} lint_case;

static const lint_case lint_cases[] = {
    {"lint_tc_id_order", "ops/exp.json",
     "\"tc_id\":\t2",
     "\"tc_id\":\t7",
     "ops/exp.json: $.tests[1].tc_id: expected 2"},
    {"lint_bad_hex", "ops/exp.json",
     "\"x\":\t\"00000000\"",
     "\"x\":\t\"0000000G\"",
     "ops/exp.json: $.tests[0].inputs.x: expected f32[n]"},
    {"lint_uppercase_hex", "ops/exp.json",
     "\"y\":\t\"3f800000\"",
     "\"y\":\t\"3F800000\"",
     "$.tests[0].outputs.y: expected f32[n]"},
    {"lint_wrong_length", "ops/linear.json",
     "\"in\":\t\"3\"",
     "\"in\":\t\"2\"",
     "ops/linear.json: $.tests[0].inputs.w: expected 4 elements (out*in), got 6"},
    {"lint_unknown_op", "ops/dot.json",
     "\"op\":\t\"dot\"",
     "\"op\":\t\"dott\"",
     "$.tests[0].op: expected an op of"},
    {"lint_flag_without_note", "ops/dot.json",
     "\"OrderSensitive\"]",
     "\"Unexplained\"]",
     "every flag used has an entry there"},
    {"lint_number_of_tests", "ops/dot.json",
     "\"number_of_tests\":\t1",
     "\"number_of_tests\":\t2",
     "$.number_of_tests: expected 1 (the length of tests)"},
    {"lint_missing_output_key", "ops/dot.json",
     "\"outputs\":\t{\n\t\t\t\t\"y\"",
     "\"outputs\":\t{\n\t\t\t\t\"z\"",
     "missing key \"y\""},
    {"lint_group_is_stem", "ops/dot.json",
     "\"group\":\t\"dot\"",
     "\"group\":\t\"dots\"",
     "$.group: expected \"dot\""},
    {"lint_invalid_json_position", "ops/dot.json",
     "\"schema\":",
     "\"schema\"",
     "ops/dot.json: line 2"},
    {"lint_train_trace_and_checkpoint", "train/mlp13k.json",
     "\"step\":\t3",
     "\"step\":\t9",
     "$.trace[3].step: expected 3"},
    {"lint_field_order", "ops/dot.json",
     "\"spec_version\":\t\"1.0.0\",\n\t\"vector_version\":\t\"1.0.0\"",
     "\"vector_version\":\t\"1.0.0\",\n\t\"spec_version\":\t\"1.0.0\"",
     "field order is as FORMAT.md lists"},
};

enum { N_LINT_CASES = sizeof lint_cases / sizeof *lint_cases };

TU_TABLE_ROWS(vectors, lint_names_file_path_and_expectation, N_LINT_CASES)

ParameterizedTest(const size_t *row, vectors, lint_names_file_path_and_expectation)
{
    const lint_case *c = &lint_cases[*row];
    cr_log_info("%s: %s", c->name, c->file);
    expect_lint(c->file, c->from, c->to, c->says);
}

Test(vectors, lint_checkpoint_digest)
{
    char *f = xasprintf("%s/train/mlp13k/step-000004.bin", dir);
    char *d = tu_read(f);
    d[0] ^= 1;
    char err[128];
    cr_assert_eq(write_file(f, d, 4 * 13088, err, sizeof err), 0);
    tu_remanifest(dir);
    tu_result r = lint();
    cr_assert_eq(r.code, 2);
    tu_assert_has(r.out, "train/mlp13k.json: $.checkpoints[1].file");
    tu_assert_has(r.out, "hashes to");
    tu_result_free(&r);
    free(d);
    free(f);
}
