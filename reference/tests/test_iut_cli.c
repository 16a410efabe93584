/* The reference CLI as an IUT (spec/iut-protocol.md P1, P2, P7): hello, exit
 * 64 for a verb it lacks, train --checkpoint-steps all, and the failure line
 * of a failed run. The binary is named by IT_CLI. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "testutil.h"

/* Runs cmd; stdout in out, stderr in err (either may be NULL); returns the
 * exit status. */
static int run(const char *args, char *out, size_t out_cap, char *err, size_t err_cap)
{
    char cmd[2048], path[128];
    snprintf(cmd, sizeof cmd, "%s %s > %s/stdout 2> %s/stderr", test_env("IT_CLI"), args, test_tmpdir, test_tmpdir);
    int st = system(cmd);
    const char *names[2] = {"stdout", "stderr"};
    char *bufs[2] = {out, err};
    size_t caps[2] = {out_cap, err_cap};
    for (int i = 0; i < 2; i++) {
        if (!bufs[i])
            continue;
        snprintf(path, sizeof path, "%s/%s", test_tmpdir, names[i]);
        FILE *f = fopen(path, "rb");
        cr_assert(f);
        size_t n = fread(bufs[i], 1, caps[i] - 1, f);
        bufs[i][n] = '\0';
        fclose(f);
    }
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

Test(iut, hello_prints_the_p2_line, .init = test_make_tmpdir, .fini = test_remove_tmpdir)
{
    char out[512], err[512], want[256];
    cr_assert_eq(run("hello", out, sizeof out, err, sizeof err), 0, "%s", err);
    /* literal versions, not IT_*: a test that derives them from the same
     * constants could not see a wrong one. train_seed=1 is P2's capability
     * flag for `train --seed` (P7). */
    snprintf(want, sizeof want,
             "protocol=1 name=isotrain-reference version=1.2.0 spec=1.3.0 train_seed=1 train_resume=1 train_recipe=1 "
             "isa=%s kernels=%s\n",
             it_host_isa(), it_kernels_name());
    cr_assert_str_eq(out, want);
    cr_assert_eq(run("hello extra", NULL, 0, err, sizeof err), 2, "hello takes no arguments");
}

Test(iut, an_unknown_verb_exits_64, .init = test_make_tmpdir, .fini = test_remove_tmpdir)
{
    char out[512], err[512];
    cr_assert_eq(run("compare a b", out, sizeof out, err, sizeof err), 64);
    cr_assert(strstr(err, "unsupported verb"), "%s", err);
    cr_assert_str_empty(out);
}

static int is_checkpoint(const char *name) { return strncmp(name, "step-", 5) == 0; }

Test(iut, checkpoint_steps_all_writes_every_step, .init = test_make_tmpdir, .fini = test_remove_tmpdir)
{
    char args[512], err[1024];
    /* 'all' before --steps: it means 0..N whatever the option order */
    snprintf(args, sizeof args, "train --profile mlp13k --checkpoint-steps all --steps 3 --trace %s/t "
             "--checkpoint-dir %s", test_tmpdir, test_tmpdir);
    cr_assert_eq(run(args, NULL, 0, err, sizeof err), 0, "%s", err);
    DIR *d = opendir(test_tmpdir);
    cr_assert(d);
    int n = 0;
    for (struct dirent *e; (e = readdir(d));)
        n += is_checkpoint(e->d_name);
    closedir(d);
    cr_assert_eq(n, 4, "--steps 3 with all: steps 0, 1, 2, 3");
    char path[256], trace[8192];
    snprintf(path, sizeof path, "%s/t", test_tmpdir);
    FILE *f = fopen(path, "rb");
    cr_assert(f);
    trace[fread(trace, 1, sizeof trace - 1, f)] = '\0';
    fclose(f);
    for (unsigned s = 0; s <= 3; s++) {
        static unsigned char bytes[4 * IT_MLP13K_NPARAMS];
        snprintf(path, sizeof path, "%s/step-%06u.bin", test_tmpdir, s);
        f = fopen(path, "rb");
        cr_assert(f, "no checkpoint for step %u", s);
        cr_assert_eq(fread(bytes, 1, sizeof bytes + 1, f), sizeof bytes);
        fclose(f);
        unsigned char dg[32];
        char hex[65], needle[160];
        it_sha256(bytes, sizeof bytes, dg);
        it_hex(dg, 32, hex);
        snprintf(needle, sizeof needle, "step=%u %s", s, s == 0 ? "digest=" : "loss=");
        cr_assert(strstr(trace, needle), "trace has no line for step %u", s);
        snprintf(needle, sizeof needle, "digest=%s\n", hex);
        cr_assert(strstr(trace, needle), "step %u: the file's digest is not in the trace", s);
    }
}

Test(iut, a_failed_run_names_its_failure_and_step, .init = test_make_tmpdir, .fini = test_remove_tmpdir)
{
    /* The only failure the CLI can be made to hit is the FTZ/DAZ probe
     * (--force-ftz, a negative control): it fails before step 0. The
     * non-finite loss/parameter failures of spec §10 cannot be provoked
     * from the command line with the profile's fixed recipe. */
    char args[512], err[1024];
    snprintf(args, sizeof args, "train --profile mlp13k --steps 2 --force-ftz --trace %s/t", test_tmpdir);
    int st = run(args, NULL, 0, err, sizeof err);
    cr_assert_eq(st, 3, "exit %d: %s", st, err);
    cr_assert(strstr(err, "failure=fpenv-flush step=0\n"), "stderr:\n%s", err);
}

/* ---- train --seed (P7, spec 1.1.0) ------------------------------------------- */

static char *trace_of(const char *extra, const char *name)
{
    char args[512], err[1024], path[256];
    snprintf(path, sizeof path, "%s/%s", test_tmpdir, name);
    snprintf(args, sizeof args, "train --profile mlp13k %s --trace %s", extra, path);
    int st = run(args, NULL, 0, err, sizeof err);
    cr_assert_eq(st, 0, "`%s` exited %d: %s", args, st, err);
    return test_slurp(path, NULL);
}

Test(iut, seed_of_the_profile_gives_the_default_trace_byte_for_byte, .init = test_make_tmpdir,
     .fini = test_remove_tmpdir)
{
    /* 7598539542230034798 = 0x69736f747261696e, spec §11.1 */
    char *plain = trace_of("", "plain"), *seeded = trace_of("--seed 7598539542230034798", "seeded");
    cr_assert(strstr(plain, "\nstep=200 "), "the default run has no step 200");
    cr_assert_str_eq(seeded, plain);
    free(plain);
    free(seeded);
}

/* The step-0 line of a run under seed s, computed here with the library. */
static void step0_line(uint64_t s, char *line, size_t cap)
{
    static it_mlp13k_state st;
    it_mlp13k_recipe r = it_mlp13k_default_recipe();
    r.seed = s;
    it_mlp13k_start(&r, &st);
    it_trace_line(&st, line, cap);
}

Test(iut, another_seed_gives_another_run_the_library_agrees_with, .init = test_make_tmpdir,
     .fini = test_remove_tmpdir)
{
    char *plain = trace_of("--steps 2", "plain"), *one = trace_of("--steps 2 --seed 1", "one"),
         *top = trace_of("--steps 1 --seed 18446744073709551615", "top"), *zero = trace_of("--steps 1 --seed 0", "zero");
    char want[256];
    step0_line(1, want, sizeof want);
    cr_assert(strstr(one, want), "seed 1: the step-0 line is not the library's %s:\n%s", want, one);
    cr_assert_null(strstr(plain, want), "seed 1 gave the default step-0 digest");
    step0_line(UINT64_MAX, want, sizeof want);
    cr_assert(strstr(top, want), "seed 2^64-1: the step-0 line is not the library's %s", want);
    step0_line(0, want, sizeof want);
    cr_assert(strstr(zero, want), "seed 0: the step-0 line is not the library's %s", want);
    /* sampling moves too: step 1 of seed 1, from the library */
    static it_mlp13k_state st;
    it_mlp13k_recipe r = it_mlp13k_default_recipe();
    r.seed = 1;
    it_mlp13k_start(&r, &st);
    cr_assert_eq(it_mlp13k_step(&r, &st), IT_OK);
    it_trace_line(&st, want, sizeof want);
    cr_assert(strstr(one, want), "seed 1: step 1 is not the library's %s:\n%s", want, one);
    /* sampling follows the seed too: seed 1's first batch is not the default's */
    it_mlp13k_recipe mixed = it_mlp13k_default_recipe();
    unsigned char x1[IT_MLP13K_BATCH], y1[IT_MLP13K_BATCH], x0[IT_MLP13K_BATCH], y0[IT_MLP13K_BATCH];
    it_mlp13k_batch(&r, 1, x1, y1);
    it_mlp13k_batch(&mixed, 1, x0, y0);
    cr_assert(memcmp(x1, x0, sizeof x1) != 0, "seed 1 and the default seed draw the same batch");
    free(plain);
    free(one);
    free(top);
    free(zero);
}

Test(iut, a_seed_outside_p4_int_syntax_is_a_usage_error, .init = test_make_tmpdir, .fini = test_remove_tmpdir)
{
    const char *bad[] = {"-1", "+1", "01", "00", "0x10", "1e3", "", "18446744073709551616", "99999999999999999999999"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char args[256], err[1024];
        snprintf(args, sizeof args, "train --profile mlp13k --steps 1 --trace %s/t --seed '%s'", test_tmpdir, bad[i]);
        int st = run(args, NULL, 0, err, sizeof err);
        cr_assert_eq(st, 2, "--seed '%s' exited %d: %s", bad[i], st, err);
        cr_assert(strstr(err, "--seed expects a decimal integer 0..18446744073709551615"), "--seed '%s': %s", bad[i],
                  err);
    }
}

/* ---- P7 (1.1.0): --checkpoint-dir is created; unknown profiles ------------- */

Test(iut, checkpoint_dir_is_created_with_its_parents_under_the_umask, .init = test_make_tmpdir,
     .fini = test_remove_tmpdir)
{
    char args[512], err[1024], path[256];
    snprintf(args, sizeof args,
             "train --profile mlp13k --steps 1 --trace %s/t --checkpoint-dir %s/a/b/c --checkpoint-steps 0,1; "
             "umask 027; %s train --profile mlp13k --steps 0 --trace %s/t2 --checkpoint-dir %s/m/n/ "
             "--checkpoint-steps 0",
             test_tmpdir, test_tmpdir, test_env("IT_CLI"), test_tmpdir, test_tmpdir);
    cr_assert_eq(run(args, NULL, 0, err, sizeof err), 0, "%s", err);
    struct stat st;
    snprintf(path, sizeof path, "%s/a/b/c/step-000001.bin", test_tmpdir);
    cr_assert(stat(path, &st) == 0 && st.st_size == 4 * IT_MLP13K_NPARAMS, "no checkpoint in the created directory");
    snprintf(path, sizeof path, "%s/m/n/step-000000.bin", test_tmpdir);
    cr_assert(stat(path, &st) == 0, "a trailing slash must not matter");
    const char *made[2] = {"m", "m/n"};
    for (int i = 0; i < 2; i++) {
        snprintf(path, sizeof path, "%s/%s", test_tmpdir, made[i]);
        cr_assert(stat(path, &st) == 0 && S_ISDIR(st.st_mode));
        cr_assert_eq(st.st_mode & 07777, 0750, "%s: mode %o, expected 0777 & ~027", made[i],
                     (unsigned)(st.st_mode & 07777));
    }
    /* an existing directory is used as it is */
    snprintf(args, sizeof args, "train --profile mlp13k --steps 0 --trace %s/t --checkpoint-dir %s/a/b/c",
             test_tmpdir, test_tmpdir);
    cr_assert_eq(run(args, NULL, 0, err, sizeof err), 0, "%s", err);
}

/* `isotrain <args>` exits `status` naming `why_err`, and has written no
 * trace file <tmpdir>/t: a run is refused before its first line (for `what`) */
static void refused_before_the_trace(const char *args, int status, const char *why_err, const char *what)
{
    char err[1024], path[256];
    int st = run(args, NULL, 0, err, sizeof err);
    cr_assert_eq(st, status, "exit %d: %s", st, err);
    cr_assert(strstr(err, why_err), "%s", err);
    struct stat sb;
    snprintf(path, sizeof path, "%s/t", test_tmpdir);
    cr_assert(stat(path, &sb) != 0, "a trace was written for %s", what);
}

Test(iut, a_checkpoint_dir_that_is_not_a_directory_is_an_io_error, .init = test_make_tmpdir,
     .fini = test_remove_tmpdir)
{
    char args[512], err[1024], path[256];
    snprintf(path, sizeof path, "%s/file", test_tmpdir);
    FILE *f = fopen(path, "w");
    cr_assert(f && fclose(f) == 0);
    snprintf(args, sizeof args, "train --profile mlp13k --steps 1 --trace %s/t --checkpoint-dir %s", test_tmpdir,
             path);
    refused_before_the_trace(args, 4, "exists and is not a directory", "a run that could not start");
    /* a file in the way of a parent */
    snprintf(args, sizeof args, "train --profile mlp13k --steps 1 --trace %s/t --checkpoint-dir %s/file/sub",
             test_tmpdir, test_tmpdir);
    int st = run(args, NULL, 0, err, sizeof err);
    cr_assert_eq(st, 4, "exit %d: %s", st, err);
    cr_assert(strstr(err, "cannot create checkpoint directory"), "%s", err);
}

Test(iut, an_unknown_profile_exits_64_like_an_unknown_verb, .init = test_make_tmpdir, .fini = test_remove_tmpdir)
{
    char args[512];
    snprintf(args, sizeof args, "train --profile gpt2-124m --steps 1 --trace %s/t", test_tmpdir);
    refused_before_the_trace(args, 64, "unsupported profile 'gpt2-124m'", "a profile the IUT does not have");
}

/* A kernel set that is unknown, or of another instruction set, is refused
 * (exit 2) by the flag and by the environment: never a silent fallback. */
Test(iut, a_kernel_set_that_cannot_run_is_refused, .init = test_make_tmpdir, .fini = test_remove_tmpdir)
{
    char out[512], err[512];
    cr_assert_eq(run("--kernels no-such-set hello", out, sizeof out, err, sizeof err), 2);
    cr_assert(strstr(err, "unknown kernel set 'no-such-set'"), "%s", err);
#if defined(__x86_64__)
    const char *other = "neon";
#else
    const char *other = "avx2";
#endif
    char args[128];
    snprintf(args, sizeof args, "--kernels %s hello", other);
    cr_assert_eq(run(args, out, sizeof out, err, sizeof err), 2);
    cr_assert(strstr(err, "not available"), "%s", err);
    cr_assert_eq(run("--kernels portable hello", out, sizeof out, err, sizeof err), 0, "%s", err);
    cr_assert(strstr(out, " kernels=portable\n"), "%s", out);
    setenv("ISOTRAIN_KERNELS", "no-such-set", 1);
    int rc = run("hello", out, sizeof out, err, sizeof err);
    unsetenv("ISOTRAIN_KERNELS");
    cr_assert_eq(rc, 2, "%s", err);
}

/* ---- P7 (1.1.1 errata): option syntax, repeats, N, the order of checks ----- */

static int exists(const char *rel)
{
    char path[512];
    struct stat sb;
    snprintf(path, sizeof path, "%s/%s", test_tmpdir, rel);
    return stat(path, &sb) == 0;
}

static int lines_of(const char *rel)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", test_tmpdir, rel);
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    int n = 0, c;
    while ((c = fgetc(f)) != EOF)
        n += c == '\n';
    fclose(f);
    return n;
}

/* N and every element of LIST are P4 ints, LIST a P4 int array or `all`;
 * any other spelling is a usage error (exit 2), as for --seed. */
Test(iut, p7_numbers_are_p4_ints_and_the_list_a_p4_array, .init = test_make_tmpdir, .fini = test_remove_tmpdir)
{
    const char *bad_steps[] = {"+2", "02", " 2", "2 ", "", "-1", "0x10", "4294967296"};
    for (size_t i = 0; i < sizeof bad_steps / sizeof bad_steps[0]; i++) {
        char args[256], err[1024];
        snprintf(args, sizeof args, "train --profile mlp13k --steps '%s' --trace %s/t", bad_steps[i], test_tmpdir);
        int st = run(args, NULL, 0, err, sizeof err);
        cr_assert_eq(st, 2, "--steps '%s' exited %d: %s", bad_steps[i], st, err);
        cr_assert(strstr(err, "--steps expects a decimal integer 0..4294967295"), "%s", err);
        cr_assert(!exists("t"), "--steps '%s': a trace was written", bad_steps[i]);
    }
    const char *bad_lists[] = {"", ",", "1,", ",1", "1,,2", "01", "1, 2", "a", "4294967296"};
    for (size_t i = 0; i < sizeof bad_lists / sizeof bad_lists[0]; i++) {
        char args[256], err[1024];
        snprintf(args, sizeof args, "train --profile mlp13k --steps 2 --trace %s/t --checkpoint-dir %s/d "
                 "--checkpoint-steps '%s'", test_tmpdir, test_tmpdir, bad_lists[i]);
        int st = run(args, NULL, 0, err, sizeof err);
        cr_assert_eq(st, 2, "--checkpoint-steps '%s' exited %d: %s", bad_lists[i], st, err);
        cr_assert(strstr(err, "--checkpoint-steps expects 'all' or step numbers"), "%s", err);
        cr_assert(!exists("d"), "--checkpoint-steps '%s': the directory was made", bad_lists[i]);
    }
    /* in any order, a step listed twice written once; a list of any length
     * (70 > the 64 the reference took before 1.1.1) */
    char args[1024], err[1024];
    snprintf(args, sizeof args, "train --profile mlp13k --steps 2 --trace %s/t --checkpoint-dir %s/d "
             "--checkpoint-steps 2,0,2", test_tmpdir, test_tmpdir);
    cr_assert_eq(run(args, NULL, 0, err, sizeof err), 0, "%s", err);
    cr_assert(exists("d/step-000000.bin") && exists("d/step-000002.bin") && !exists("d/step-000001.bin"));
    int n = snprintf(args, sizeof args, "train --profile mlp13k --steps 69 --trace %s/t --checkpoint-dir %s/e "
                     "--checkpoint-steps 0", test_tmpdir, test_tmpdir);
    for (int s = 1; s < 70; s++)
        n += snprintf(args + n, sizeof args - (size_t)n, ",%d", s);
    cr_assert_eq(run(args, NULL, 0, err, sizeof err), 0, "%s", err);
    cr_assert(exists("e/step-000069.bin"));
}

/* N = 0 is the header and step 0; N beyond the profile's steps continues
 * the recipe (spec §11.5 draws batch t for any t): 202 steps of mlp13k. */
Test(iut, p7_steps_may_be_0_or_beyond_the_profiles, .init = test_make_tmpdir, .fini = test_remove_tmpdir)
{
    char args[512], err[1024];
    snprintf(args, sizeof args, "train --profile mlp13k --steps 0 --trace %s/t0", test_tmpdir);
    cr_assert_eq(run(args, NULL, 0, err, sizeof err), 0, "%s", err);
    cr_assert_eq(lines_of("t0"), 2, "header and step 0");
    snprintf(args, sizeof args, "train --profile mlp13k --steps 202 --trace %s/t --checkpoint-dir %s/d "
             "--checkpoint-steps 200,202", test_tmpdir, test_tmpdir);
    cr_assert_eq(run(args, NULL, 0, err, sizeof err), 0, "%s", err);
    cr_assert_eq(lines_of("t"), 204, "header and steps 0..202");
    /* the first 200 steps are the profile's run: step 200's digest (§11.8) */
    char path[512];
    snprintf(path, sizeof path, "%s/d/step-000200.bin", test_tmpdir);
    static unsigned char bytes[4 * IT_MLP13K_NPARAMS + 1];
    FILE *f = fopen(path, "rb");
    cr_assert(f);
    cr_assert_eq(fread(bytes, 1, sizeof bytes, f), 4 * IT_MLP13K_NPARAMS);
    fclose(f);
    unsigned char d[32];
    char hex[65];
    it_sha256(bytes, 4 * IT_MLP13K_NPARAMS, d);
    it_hex(d, 32, hex);
    cr_assert_str_eq(hex, "7f987a5d5afb14bc9fb412c18e6ee08ae13ca66720ffdd22e218b3d5c1754687");
    cr_assert(exists("d/step-000202.bin"));
}

/* An option given twice: a runner never does (P7 1.1.1: each option once);
 * the reference refuses it as usage, like any other malformed line, so no
 * front end has to choose which one wins. */
Test(iut, p7_an_option_given_twice_is_a_usage_error, .init = test_make_tmpdir, .fini = test_remove_tmpdir)
{
    char args[512], err[1024];
    snprintf(args, sizeof args, "train --profile mlp13k --steps 3 --steps 1 --trace %s/t", test_tmpdir);
    cr_assert_eq(run(args, NULL, 0, err, sizeof err), 2, "%s", err);
    cr_assert(strstr(err, "option '--steps' given twice"), "%s", err);
    cr_assert(!exists("t"), "a refused run wrote its trace");
}

/* The order of the checks, and so the status when several fail (P7 1.1.1):
 * option syntax (2), then the profile (64, before anything is created), then
 * the other usage checks (2), then DIR and FILE (4), then the §2.2 probe (3). */
Test(iut, p7_checks_come_in_one_order, .init = test_make_tmpdir, .fini = test_remove_tmpdir)
{
    char args[512], err[1024], file[256];
    snprintf(file, sizeof file, "%s/file", test_tmpdir);
    FILE *f = fopen(file, "w");
    cr_assert(f && fclose(f) == 0);
    /* syntax before the profile */
    snprintf(args, sizeof args, "train --profile nope --steps x --trace %s/t", test_tmpdir);
    cr_assert_eq(run(args, NULL, 0, err, sizeof err), 2, "%s", err);
    snprintf(args, sizeof args, "train --profile nope --bogus 1 --trace %s/t", test_tmpdir);
    cr_assert_eq(run(args, NULL, 0, err, sizeof err), 2, "%s", err);
    /* the profile before the other usage checks, and before DIR is made */
    snprintf(args, sizeof args, "train --profile nope --steps 3 --checkpoint-steps 9 --checkpoint-dir %s/d --trace %s/t",
             test_tmpdir, test_tmpdir);
    cr_assert_eq(run(args, NULL, 0, err, sizeof err), 64, "%s", err);
    cr_assert(!exists("d") && !exists("t"));
    /* a missing --profile is usage */
    snprintf(args, sizeof args, "train --steps 3 --trace %s/t", test_tmpdir);
    cr_assert_eq(run(args, NULL, 0, err, sizeof err), 2, "%s", err);
    /* usage before I/O: a step beyond N, with DIR a file */
    snprintf(args, sizeof args, "train --profile mlp13k --steps 3 --checkpoint-steps 9 --checkpoint-dir %s --trace %s/t",
             file, test_tmpdir);
    cr_assert_eq(run(args, NULL, 0, err, sizeof err), 2, "%s", err);
    /* I/O before the probe */
    snprintf(args, sizeof args, "train --profile mlp13k --steps 1 --force-ftz --checkpoint-dir %s --trace %s/t", file,
             test_tmpdir);
    cr_assert_eq(run(args, NULL, 0, err, sizeof err), 4, "%s", err);
    snprintf(args, sizeof args, "train --profile mlp13k --steps 1 --force-ftz --trace %s/no/such/dir/t", test_tmpdir);
    cr_assert_eq(run(args, NULL, 0, err, sizeof err), 4, "%s", err);
    /* the probe last */
    snprintf(args, sizeof args, "train --profile mlp13k --steps 1 --force-ftz --trace %s/t", test_tmpdir);
    cr_assert_eq(run(args, NULL, 0, err, sizeof err), 3, "%s", err);
}
