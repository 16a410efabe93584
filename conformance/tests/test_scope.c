/* The verdict table (spec/iut-protocol.md P10, conformance/README.md
 * "Verdicts") row by row, on the function `run` and `verify` share. */
#include <string.h>

#include "testutil.h"
#include "protocol/optable.h"
#include "verdict/requirements.h"
#include "verdict/scope.h"

static scope_facts full(void)
{
    scope_facts f;
    memset(&f, 0, sizeof f);
    f.hello_ok = 1;
    f.level = "all";
    f.steps = -1;
    f.set_steps = 200;
    f.official = 1;
    f.manifest_digest = "d";
    f.protocol.passed = 1;
    f.ops.passed = 225;
    f.train.passed = 202;
    f.fresh.passed = 83;
    return f;
}

static void expect(const scope_facts *f, const char *word, int code, const char *reason)
{
    run_verdict v;
    scope_verdict(f, &v);
    cr_assert_str_eq(v.word, word);
    cr_assert_eq(v.exit_code, code);
    if (reason) {
        int found = 0;
        for (size_t i = 0; i < v.n_reasons; i++)
            found |= strstr(v.reasons[i], reason) != NULL;
        cr_assert(found, "no reason containing \"%s\" for %s", reason, word);
    } else
        cr_assert_eq(v.n_reasons, 0);
    run_verdict_free(&v);
}

Test(scope, the_verdict_table)
{
    scope_facts f = full();
    expect(&f, "PASS", 0, NULL);
    f.official = 0;
    expect(&f, "UNOFFICIAL", 4, "UNOFFICIAL vector set");
    f = full();
    f.level = "ops";
    expect(&f, "PARTIAL", 3, "--level ops");
    f = full();
    f.n_filters = 1;
    expect(&f, "PARTIAL", 3, "--filter");
    f = full();
    f.profile = "mlp13k";
    f.profile_excludes = 1;
    expect(&f, "PARTIAL", 3, "--profile mlp13k");
    f = full();
    f.steps = 50;
    expect(&f, "PARTIAL", 3, "--steps 50");
    f = full();
    f.steps = 200;
    expect(&f, "PASS", 0, NULL);
    f = full();
    f.fresh.skipped = f.fresh.skipped_required = 1;
    f.first_skip_id[2] = "fresh/mlp13k/run";
    f.first_skip_reason[2] = "fresh-seed training not supported (spec 1.1.0 P7)";
    expect(&f, "PARTIAL", 3, "fresh-seed training not supported (spec 1.1.0 P7)");
    f = full();
    f.train.passed = 0;
    expect(&f, "PARTIAL", 3, "level train: no case ran");
    f.official = 0;
    expect(&f, "PARTIAL", 3, "UNOFFICIAL vector set");
    f = full();
    f.fresh.failed = 1;
    expect(&f, "FAIL", 1, NULL);
    f = full();
    f.n_filters = 2;
    f.ops.errors = 1;
    expect(&f, "FAIL", 1, "--filter");
    f = full();
    f.hello_ok = 0;
    expect(&f, "FAIL", 1, NULL);
}

/* verdict/requirements.c: versions compare as MAJOR.MINOR (spec §12.1), the
 * certified one is the lower (P10, 1.1.1), requirements arrive with their
 * version, and op groups serve the profiles whose recipes use their ops. */
Test(scope, requirements_by_version_and_by_profile)
{
    spec_mm a, b;
    cr_assert(spec_mm_parse("1.1.1", &a) == 0 && a.major == 1 && a.minor == 1);
    cr_assert(spec_mm_parse("1.1.0", &b) == 0);
    cr_assert_eq(spec_mm_cmp(a, b), 0, "a patch adds no requirement");
    cr_assert(spec_mm_parse("1.1", &a) != 0 && spec_mm_parse("1.1.1x", &a) != 0 && spec_mm_parse(NULL, &a) != 0);

    op_case sq = {.op = op_find("sqrt", 4)}, ex = {.op = op_find("exp", 3)}, th = {.op = op_find("tanh", 4)};
    op_group groups[3] = {{.group = "sqrt", .spec_version = "1.1.0", .cases = &sq, .n_cases = 1},
                          {.group = "exp", .spec_version = "1.0.0", .cases = &ex, .n_cases = 1},
                          {.group = "tanh", .spec_version = "1.0.0", .cases = &th, .n_cases = 1}};
    vector_set vs = {.spec_version = "1.1.0", .groups = groups, .n_groups = 3};
    cr_assert(!req_group_serves(&groups[0], "mlp13k") && req_group_serves(&groups[0], "addmod113"));
    cr_assert(req_group_serves(&groups[1], "mlp13k") && req_group_serves(&groups[1], "addmod113"));
    cr_assert(req_group_serves(&groups[2], "mlp13k") && !req_group_serves(&groups[2], "addmod113"));
    /* a profile the table does not name yet: every group stays required */
    cr_assert(req_group_serves(&groups[0], "gpt_char") && req_group_serves(&groups[2], "gpt_char"));

    req_ctx q;
    req_init(&q, &vs, "1.0.0", NULL, 0);
    cr_assert_str_eq(q.certified_text, "1.0");
    cr_assert(!req_certified_has(&q, REQ_FRESH_SEED_RUN) && !req_iut_has(&q, REQ_EXIT_64_PROFILE));
    cr_assert(req_beyond_iut(&q, "1.1.0") && !req_beyond_iut(&q, "1.0.0"));
    case_result c = {.level = "ops", .suite = "ops/sqrt", .id = "sqrt/1", .v = V_SKIP};
    cr_assert_eq(req_case_kind(&q, &c), RQ_BEYOND_IUT);
    case_result f = {.level = "fresh", .suite = "fresh/train/mlp13k", .id = "fresh/mlp13k/run", .v = V_SKIP};
    cr_assert_eq(req_case_kind(&q, &f), RQ_NOT_CERTIFIED);
    req_init(&q, &vs, "1.1.1", "mlp13k", 0);
    cr_assert_str_eq(q.certified_text, "1.1");
    cr_assert(req_certified_has(&q, REQ_FRESH_SEED_RUN) && !req_beyond_iut(&q, "1.1.0"));
    cr_assert_eq(req_case_kind(&q, &c), RQ_PROFILE_SCOPE);
    cr_assert_eq(req_case_kind(&q, &f), RQ_REQUIRED);
    req_init(&q, &vs, "2.0.0", NULL, 0);
    cr_assert(q.major_apart);
    cr_assert_str_eq(q.certified_text, "1.1", "the lower of the two, as MAJOR.MINOR");
    req_init(&q, &vs, NULL, NULL, 0); /* hello failed */
    cr_assert(!q.iut_known && !req_beyond_iut(&q, "1.1.0"));
    cr_assert_str_eq(q.certified_text, "1.1");
}

/* The spec version narrows the verdict (P10, 1.1.1); a FAIL carries its
 * first failed case for the closing line. */
Test(scope, an_older_claim_is_partial_and_a_fail_names_its_first_failure)
{
    vector_set vs = {.spec_version = "1.1.0"};
    req_ctx q;
    req_init(&q, &vs, "1.0.0", NULL, 0);
    scope_facts f = full();
    f.req = &q;
    expect(&f, "PARTIAL", 3, "judged by spec 1.0, not 1.1.0: the IUT claims spec 1.0.0");
    req_init(&q, &vs, "1.1.1", NULL, 0);
    expect(&f, "PASS", 0, NULL);
    req_init(&q, &vs, "2.0.0", NULL, 0);
    expect(&f, "PARTIAL", 3, "another MAJOR version");

    results r;
    results_init(&r);
    results_add(&r, "protocol", "protocol", "hello", V_PASS, NULL, 1, 0);
    results_add(&r, "ops", "ops/exp", "exp/1", V_SKIP, "unsupported", 1, 0);
    results_add(&r, "train", "train/addmod113", "addmod113/run", V_FAIL, "the IUT exited non-zero: exit status 2", 1, 0);
    results_add(&r, "train", "train/addmod113", "addmod113/0", V_ERROR, "not reached", 1, 0);
    f = full();
    scope_facts_from_results(&f, &r);
    run_verdict v;
    scope_verdict(&f, &v);
    cr_assert_str_eq(v.word, "FAIL");
    cr_assert_str_eq(v.first_failure, "addmod113/run: the IUT exited non-zero: exit status 2");
    run_verdict_free(&v);
    results_free(&r);
}
