/* compare and repeat: identical traces and runs say so (exit 0); one changed
 * digest names the first differing step. */
#include <string.h>

#include "testutil.h"
#include "core/util.h"

TU_DIR_SUITE(compare, 0, .timeout = 60);

static char *make_trace(const char *name, unsigned steps)
{
    char *path = at(name);
    char *cmd = xasprintf("'%s' train --profile mlp13k --steps %u --trace '%s'", tu_env("IT_REF_CLI"), steps, path);
    tu_sh_ok(cmd);
    free(cmd);
    return path;
}

Test(compare, identical_traces)
{
    char *a = make_trace("a.trace", 20), *b = make_trace("b.trace", 20);
    tu_conform_says(0, 0, "identical: all 21 steps", "compare", a, b, NULL);
    free(a);
    free(b);
}

Test(compare, one_changed_digest)
{
    char *a = make_trace("a.trace", 20), *b = make_trace("b.trace", 20);
    /* change the digest of step 13 only: the losses stay identical */
    char *text = tu_read(b), *orig = tu_read(a);
    char *at = strstr(text, "\nstep=13 ");
    cr_assert(at);
    at = strstr(at, "digest=") + 7;
    *at = *at == '0' ? '1' : '0';
    char err[128];
    cr_assert_eq(write_file(b, text, strlen(text), err, sizeof err), 0);
    tu_result r = tu_conform("compare", a, b, NULL);
    cr_assert_eq(r.code, 1, "%s%s", r.out, r.err);
    tu_assert_has(r.out, "first differing step: 13 (loss bits identical, parameter digests differ)");
    tu_assert_has(r.out, "loss bits identical through step 20 while parameters differ from step 13");
    tu_assert_has(r.out, "loss gap from step 13:");
    tu_result_free(&r);
    free(text);
    free(orig);
    free(a);
    free(b);
}

Test(compare, different_losses_and_lengths)
{
    char *a = make_trace("a.trace", 20), *b = make_trace("b.trace", 12);
    tu_conform_says(1, 0, "first differing step: 13: B ends at step 12, A goes on to step 20", "compare", a, b, NULL);
    free(a);
    free(b);
}

Test(compare, bad_input_names_file_and_line)
{
    char *a = make_trace("a.trace", 5);
    char *b = xasprintf("%s/bad.trace", dir);
    char err[128];
    const char *t = "# isotrain-trace v1 profile=mlp13k steps=5\nstep=0 digest=zz\n";
    write_file(b, t, strlen(t), err, sizeof err);
    tu_conform_says(2, 1, "bad.trace:2: digest is not 64 hex digits", "compare", a, b, NULL);
    free(a);
    free(b);
}

Test(compare, repeat_identical_runs)
{
    char *iut = tu_iut("reference.sh");
    tu_conform_says(0, 0, "all 3 runs are bit-identical at every step 0..25", "repeat", "--runs", "3", "--iut", iut,
                    "--profile", "mlp13k", "--steps", "25", NULL);
    free(iut);
}

Test(compare, repeat_names_the_first_differing_run_and_step)
{
    /* run 2 (and only run 2) flips a bit of step 9's checkpoint */
    char *state = xasprintf("%s/count", dir);
    char *iut = xasprintf("n=$(cat '%s' 2>/dev/null || echo 0); n=$((n+1)); echo $n > '%s'; "
                          "%s/flaky.sh $n",
                          state, state, tu_env("IT_IUTS"));
    tu_conform_says(1, 0, "run 2 differs from run 1 first at step 9 (checkpoint bytes)", "repeat", "--runs", "3",
                    "--iut", iut, "--profile", "mlp13k", "--steps", "15", NULL);
    free(iut);
    free(state);
}

Test(compare, repeat_reports_a_failed_run)
{
    char *iut = tu_iut("exit_nonzero.sh");
    tu_result r = tu_conform("repeat", "--runs", "2", "--iut", iut, "--profile", "mlp13k", "--steps", "5", NULL);
    cr_assert_eq(r.code, 1);
    tu_assert_has(r.out, "FAILED: exit status 3");
    tu_result_free(&r);
    free(iut);
}

/* With both runs' checkpoints, compare names the first differing tensor and
 * element: the flip mutant changes w2[5][7] by one ULP at step 137. A
 * checkpoint that no longer matches its trace digest, and a missing one,
 * are said as such. */
Test(compare, checkpoints_name_the_tensor_and_element)
{
    char *a = xasprintf("%s/a", dir), *b = xasprintf("%s/b", dir);
    char *cmd = xasprintf("'%s' train --profile mlp13k --steps 138 --trace '%s.t' --checkpoint-dir '%s' --checkpoint-steps all && "
                          "'%s' train --profile mlp13k --steps 138 --trace '%s.t' --checkpoint-dir '%s' --checkpoint-steps all",
                          tu_env("IT_REF_CLI"), a, a, tu_env("IT_MUTANT_FLIP"), b, b);
    tu_result r = tu_sh(cmd);
    cr_assert_eq(r.code, 0, "%s", r.err);
    tu_result_free(&r);
    char *ta = xasprintf("%s.t", a), *tb = xasprintf("%s.t", b);
    r = tu_conform("compare", ta, tb, "--checkpoints-a", a, "--checkpoints-b", b, NULL);
    cr_assert_eq(r.code, 1, "%s%s", r.out, r.err);
    tu_assert_has(r.out, "first differing tensor at step 137: w2, element (5, 7) [flat index 4807]: "
                         "A 0x3cab4ce6 (0.0209106915), B 0x3cab4ce7 (0.0209106933), 1 ULP");
    tu_assert_has(r.out, "differing elements at step 137: 1 of 13088 (embed: 0, w1: 0, b1: 0, w2: 1, b2: 0); max 1 ULP");
    tu_result_free(&r);
    /* B's checkpoint of step 137 replaced by A's: the bytes now agree, the traces do not */
    char *cp = xasprintf("cp '%s/step-000137.bin' '%s/step-000137.bin'", a, b);
    r = tu_sh(cp);
    tu_result_free(&r);
    r = tu_conform("compare", ta, tb, "--checkpoints-a", a, "--checkpoints-b", b, NULL);
    tu_assert_has(r.out, "checkpoints of step 137: identical bytes (the traces' digests say otherwise");
    tu_result_free(&r);
    tu_conform_says(2, 1, "--checkpoints-a and --checkpoints-b go together", "compare", ta, tb, "--checkpoints-a", a,
                    NULL);
    free(cp), free(cmd), free(a), free(b), free(ta), free(tb);
}
