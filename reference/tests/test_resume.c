/* Resuming (spec §8.3, §8.4), every profile: a run that writes its complete
 * state at step k, and a second run resumed from those files at k, give the
 * same trace lines from k on, byte for byte, as the uninterrupted run. The
 * negative controls show the comparison firing: a state whose moments were
 * lost (AdamW) or whose parameters are another step's (SGD) continues to
 * other digests. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"

typedef enum { MLP13K, ADDMOD113, GPTCHAR } profile_id;

/* Runs the profile into trace file `name` in the test directory. */
static void run(profile_id p, uint32_t steps, const uint32_t *state_steps, size_t n_state, uint32_t from,
                const char *name)
{
    char trace_path[256], err[512];
    snprintf(trace_path, sizeof trace_path, "%s/%s", test_tmpdir, name);
    FILE *trace = fopen(trace_path, "wb");
    cr_assert(trace);
    it_run_options o = {steps, trace, test_tmpdir, NULL, 0, state_steps, n_state, from ? test_tmpdir : NULL, from};
    it_status st;
    if (p == MLP13K) {
        static it_mlp13k_state s;
        it_mlp13k_recipe r = it_mlp13k_default_recipe();
        st = it_mlp13k_run(&r, &o, &s, err, sizeof err);
    } else if (p == ADDMOD113) {
        static it_addmod113_state s;
        it_addmod113_recipe r = {IT_AM_SEED, 2, 0};
        st = it_addmod113_run(&r, &o, &s, err, sizeof err);
    } else {
        static it_gptchar_state s;
        it_gptchar_recipe r = {IT_GC_SEED};
        st = it_gptchar_run(&r, &o, &s, err, sizeof err);
    }
    cr_assert_eq(fclose(trace), 0);
    cr_assert_eq(st, IT_OK, "%s", err);
}

/* The trace lines of steps from+1 .. end (after the header and step `from`'s line). */
static const char *after(const char *trace, uint32_t from)
{
    char key[32];
    snprintf(key, sizeof key, "\nstep=%u ", (unsigned)from + 1);
    const char *p = strstr(trace, key);
    cr_assert(p, "no line for step %u", (unsigned)from + 1);
    return p + 1;
}

static char *slurp_in(const char *name)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", test_tmpdir, name);
    return test_slurp(path, NULL);
}

static void resume_equals_uninterrupted(profile_id p, uint32_t k, uint32_t n)
{
    const uint32_t states[1] = {k};
    run(p, n, states, 1, 0, "full.txt");
    run(p, n, NULL, 0, k, "resumed.txt");
    char *full = slurp_in("full.txt"), *resumed = slurp_in("resumed.txt");
    cr_assert_str_eq(after(resumed, k), after(full, k), "the resumed run differs from the uninterrupted one");
    /* its first line is the state's digest alone: the full run's digest of step k */
    char key[32], want[128];
    snprintf(key, sizeof key, "\nstep=%u ", (unsigned)k);
    const char *line = strstr(full, key), *d = line ? strstr(line, "digest=") : NULL;
    cr_assert(d);
    snprintf(want, sizeof want, "\nstep=%u digest=%.64s\n", (unsigned)k, d + 7);
    cr_assert(strstr(resumed, want), "no line '%s' in the resumed trace", want + 1);
    free(full), free(resumed);
}

/* The state files of step k, with the moments zeroed (AdamW) or the
 * parameters of step k-1 put in the place of step k's (SGD). */
static void spoil_state(profile_id p, uint32_t k, size_t n)
{
    char path[256], other[256];
    if (p == MLP13K) {
        snprintf(path, sizeof path, "%s/step-%06u.bin", test_tmpdir, (unsigned)k);
        snprintf(other, sizeof other, "%s/step-%06u.bin", test_tmpdir, (unsigned)k - 1);
        cr_assert_eq(rename(other, path), 0);
        return;
    }
    static float zeros[(size_t)IT_AM_NPARAMS + IT_GC_NPARAMS]; /* larger than either */
    char err[256];
    cr_assert_eq(it_state_write(test_tmpdir, k, n, NULL, zeros, zeros, err, sizeof err), IT_OK, "%s", err);
}

static void spoiled_state_is_caught(profile_id p, uint32_t k, uint32_t n, size_t nparams)
{
    const uint32_t states[2] = {k - 1, k};
    run(p, n, states, 2, 0, "full.txt");
    spoil_state(p, k, nparams);
    run(p, n, NULL, 0, k, "resumed.txt");
    char *full = slurp_in("full.txt"), *resumed = slurp_in("resumed.txt");
    cr_assert(strcmp(after(resumed, k), after(full, k)) != 0, "a spoiled state resumed to the same digests");
    free(full), free(resumed);
}

TestSuite(resume, .init = test_make_tmpdir, .fini = test_remove_tmpdir);

Test(resume, mlp13k_equals_the_uninterrupted_run, .timeout = 60) { resume_equals_uninterrupted(MLP13K, 4, 9); }
Test(resume, gptchar_equals_the_uninterrupted_run, .timeout = 120) { resume_equals_uninterrupted(GPTCHAR, 3, 6); }
Test(resume, addmod113_equals_the_uninterrupted_run, .timeout = 600)
{
    resume_equals_uninterrupted(ADDMOD113, 2, 3);
}

Test(resume, mlp13k_from_another_steps_parameters_differs, .timeout = 60)
{
    spoiled_state_is_caught(MLP13K, 4, 9, IT_MLP13K_NPARAMS);
}
Test(resume, gptchar_without_its_moments_differs, .timeout = 120)
{
    spoiled_state_is_caught(GPTCHAR, 3, 5, IT_GC_NPARAMS);
}

/* A state file of the wrong size is refused with its name, before any step. */
Test(resume, a_truncated_state_file_is_refused, .timeout = 60)
{
    const uint32_t states[1] = {2};
    run(GPTCHAR, 2, states, 1, 0, "full.txt");
    char path[256], err[512];
    snprintf(path, sizeof path, "%s/adam-v-000002.bin", test_tmpdir);
    FILE *f = fopen(path, "r+b");
    cr_assert(f);
    cr_assert_eq(fclose(f), 0);
    cr_assert_eq(truncate(path, 100), 0);
    static it_gptchar_state s;
    it_gptchar_recipe r = {IT_GC_SEED};
    it_run_options o = {4, NULL, NULL, NULL, 0, NULL, 0, test_tmpdir, 2};
    cr_assert_eq(it_gptchar_run(&r, &o, &s, err, sizeof err), IT_ERR_IO);
    cr_assert(strstr(err, "adam-v-000002.bin") && strstr(err, "100 bytes"), "%s", err);
}
