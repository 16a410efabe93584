/* The CLI as a separate process: run-to-run and -O0/-O2 identity, the
 * checkpoint files, and clear errors with their exit codes. The binaries are
 * named by IT_CLI and IT_CLI_O0 (the Makefile sets them). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "testutil.h"

/* Runs cmd through the shell; returns its exit status, output in *out. */
static int run(const char *cmd, char *out, size_t cap)
{
    char full[2048];
    snprintf(full, sizeof full, "%s 2>&1", cmd);
    FILE *p = popen(full, "r");
    cr_assert(p, "popen %s", cmd);
    size_t n = fread(out, 1, cap - 1, p);
    out[n] = '\0';
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

static char *train(const char *bin, const char *name, size_t *len)
{
    char cmd[1024], path[256], out[4096];
    snprintf(path, sizeof path, "%s/%s.trace", test_tmpdir, name);
    snprintf(cmd, sizeof cmd, "%s train --profile mlp13k --trace %s", bin, path);
    cr_assert_eq(run(cmd, out, sizeof out), 0, "%s: %s", cmd, out);
    return test_slurp(path, len);
}

Test(cli, two_processes_give_identical_traces, .init = test_make_tmpdir, .fini = test_remove_tmpdir)
{
    size_t la, lb;
    char *a = train(test_env("IT_CLI"), "a", &la), *b = train(test_env("IT_CLI"), "b", &lb);
    cr_assert(la == lb && memcmp(a, b, la) == 0);
    cr_assert(strstr(a, "\nstep=200 "), "the trace has no step 200");
    free(a);
    free(b);
}

Test(cli, O0_and_O2_builds_give_identical_traces, .init = test_make_tmpdir, .fini = test_remove_tmpdir)
{
    size_t la, lb;
    char *a = train(test_env("IT_CLI"), "O2", &la), *b = train(test_env("IT_CLI_O0"), "O0", &lb);
    const char *last_a = strstr(a, "\nstep=200 "), *last_b = strstr(b, "\nstep=200 ");
    cr_assert(last_a && last_b);
    cr_assert(la == lb && memcmp(a, b, la) == 0, "step-200 lines:\n%.150s\n%.150s", last_a + 1, last_b + 1);
    free(a);
    free(b);
}

Test(cli, checkpoint_files_hash_to_the_traced_digests, .init = test_make_tmpdir, .fini = test_remove_tmpdir)
{
    char cmd[1024], out[4096], path[256];
    snprintf(cmd, sizeof cmd, "%s train --profile mlp13k --steps 3 --trace %s/t --checkpoint-dir %s --checkpoint-steps 0,3",
             test_env("IT_CLI"), test_tmpdir, test_tmpdir);
    cr_assert_eq(run(cmd, out, sizeof out), 0, "%s", out);
    size_t tlen;
    snprintf(path, sizeof path, "%s/t", test_tmpdir);
    char *trace = test_slurp(path, &tlen);
    const unsigned steps[2] = {0, 3};
    for (int i = 0; i < 2; i++) {
        size_t len;
        snprintf(path, sizeof path, "%s/step-%06u.bin", test_tmpdir, steps[i]);
        char *bytes = test_slurp(path, &len);
        cr_assert_eq(len, 4 * (size_t)IT_MLP13K_NPARAMS);
        unsigned char d[32];
        char hex[65], needle[128];
        it_sha256(bytes, len, d);
        it_hex(d, 32, hex);
        snprintf(needle, sizeof needle, "digest=%s\n", hex);
        cr_assert(strstr(trace, needle), "step %u: file hashes to %s, not in the trace", steps[i], hex);
        free(bytes);
    }
    snprintf(path, sizeof path, "%s/step-000001.bin", test_tmpdir);
    cr_assert(fopen(path, "rb") == NULL, "a checkpoint nobody asked for was written");
    free(trace);
}

static void expect_error(const char *args, int want_status, const char *want_text)
{
    char cmd[1024], out[4096];
    snprintf(cmd, sizeof cmd, "%s %s", test_env("IT_CLI"), args);
    int st = run(cmd, out, sizeof out);
    cr_assert_eq(st, want_status, "`%s` exited %d:\n%s", cmd, st, out);
    cr_assert(strstr(out, want_text), "`%s` said:\n%s\n(expected it to mention '%s')", cmd, out, want_text);
}

Test(cli, bad_input_gets_a_clear_error)
{
    expect_error("", 2, "usage:");
    expect_error("frobnicate", 64, "unsupported verb 'frobnicate'"); /* iut-protocol P1 */
    expect_error("train", 2, "--profile is required");
    expect_error("train --profile mlp99", 64, "unsupported profile 'mlp99'"); /* iut-protocol P7 */
    expect_error("train --profile mlp13k --steps ten", 2, "--steps expects a decimal integer 0..4294967295 (P4 int: "
                 "no sign, no leading zeros), got 'ten'");
    expect_error("train --profile mlp13k --steps -3", 2, "got '-3'");
    expect_error("train --profile mlp13k --bogus 1", 2, "unknown option '--bogus'");
    expect_error("train --profile mlp13k --steps", 2, "needs a value");
    expect_error("train --profile mlp13k --checkpoint-steps 1,x", 2, "got '1,x': element 1");
    expect_error("train --profile mlp13k --checkpoint-steps 1", 2, "--checkpoint-steps needs --checkpoint-dir");
    expect_error("train --profile mlp13k --steps 3 --checkpoint-dir /tmp --checkpoint-steps 0,4", 2,
                 "checkpoint step 4 is beyond --steps 3");
    expect_error("train --profile mlp13k --steps 1 --trace /nonexistent/dir/t", 4, "cannot create trace /nonexistent/dir/t");
    expect_error("train --profile mlp13k --steps 1 --trace /dev/null --checkpoint-dir /dev/null/dir "
                 "--checkpoint-steps 1",
                 4, "cannot create checkpoint directory /dev/null/dir");
    expect_error("train --profile mlp13k --seed", 2, "needs a value");
}

Test(cli, info_reports_the_host_and_the_probe)
{
    char cmd[512], out[4096];
    snprintf(cmd, sizeof cmd, "%s info", test_env("IT_CLI"));
    cr_assert_eq(run(cmd, out, sizeof out), 0, "%s", out);
    cr_assert(strstr(out, "isa=") && strstr(out, "cpu_features=") && strstr(out, "fpenv=ok ftz=0 daz=0"), "%s", out);
    cr_assert(strstr(out, "-ffp-contract=off"), "build flags not reported:\n%s", out);
}

Test(cli, info_force_ftz_shows_the_probe_firing)
{
    expect_error("info --force-ftz", 3, "fpenv=flush ftz=1");
}

/* addmod113 (spec §13.8): two processes, -O0 and -O2, the portable set and
 * the best one, 1 and 2 threads: one trace. Two steps keep -O0 affordable;
 * the step-0 line carries the §13.7 evaluation fields. */
static char *train_am(const char *bin, const char *name, const char *opts, size_t *len)
{
    char cmd[1024], path[256], out[4096];
    snprintf(path, sizeof path, "%s/%s.trace", test_tmpdir, name);
    snprintf(cmd, sizeof cmd, "%s %s train --profile addmod113 --steps 2 --trace %s", bin, opts, path);
    cr_assert_eq(run(cmd, out, sizeof out), 0, "%s: %s", cmd, out);
    return test_slurp(path, len);
}

Test(cli, addmod113_traces_agree_across_processes_builds_kernels_and_threads, .init = test_make_tmpdir,
     .fini = test_remove_tmpdir, .timeout = 600)
{
    size_t la, lb, lc, ld;
    char *a = train_am(test_env("IT_CLI"), "a", "", &la);
    char *b = train_am(test_env("IT_CLI"), "b", "", &lb);
    char *c = train_am(test_env("IT_CLI_O0"), "O0", "", &lc);
    char *d = train_am(test_env("IT_CLI"), "p2", "--kernels portable", &ld);
    cr_assert(strstr(a, "step=0 digest=") && strstr(a, " test_correct="), "no evaluation fields:\n%s", a);
    cr_assert(strstr(a, "\nstep=2 "), "the trace has no step 2");
    cr_assert(la == lb && memcmp(a, b, la) == 0, "two processes differ");
    cr_assert(la == lc && memcmp(a, c, la) == 0, "-O0 differs:\n%s\n%s", a, c);
    cr_assert(la == ld && memcmp(a, d, la) == 0, "portable kernels differ:\n%s\n%s", a, d);
    free(b);
    size_t le;
    char cmd[1024], path[256], out[4096];
    snprintf(path, sizeof path, "%s/t2.trace", test_tmpdir);
    snprintf(cmd, sizeof cmd, "%s train --profile addmod113 --steps 2 --threads 2 --trace %s", test_env("IT_CLI"),
             path);
    cr_assert_eq(run(cmd, out, sizeof out), 0, "%s: %s", cmd, out);
    char *e = test_slurp(path, &le);
    cr_assert(la == le && memcmp(a, e, la) == 0, "2 threads differ");
    free(a), free(c), free(d), free(e);
}
