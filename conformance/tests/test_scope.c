/* The verdict table (spec/iut-protocol.md P10, conformance/README.md
 * "Verdicts") row by row, on the function `run` and `verify` share. */
#include <string.h>

#include "testutil.h"
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
