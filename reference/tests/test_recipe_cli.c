/* `isotrain train --recipe FILE` (spec/iut-protocol.md P7, 1.3.0): the
 * tiny recipe gives one trace and one set of checkpoint files on every
 * kernel set and on 1 and 2 threads; the recipe that spells §14's values
 * gives gptchar's trace byte for byte; a file that is not a recipe, or
 * --recipe with --profile, is a usage error (2) naming the file and field.
 * The binary is named by IT_CLI. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testutil.h"

/* runs `env IT_CLI args`, stdout into out (a file under test_tmpdir) and
 * stderr into err; the exit status */
static int cli(const char *env, const char *args, const char *out)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "%s %s %s > %s/%s 2> %s/stderr", env, test_env("IT_CLI"), args, test_tmpdir, out,
             test_tmpdir);
    int st = system(cmd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

static char *file(const char *name)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", test_tmpdir, name);
    return test_slurp(path, NULL);
}

Test(recipe_cli, tiny_is_one_run_on_every_kernel_set_and_thread_count, .init = test_make_tmpdir,
     .fini = test_remove_tmpdir, .timeout = 120)
{
    const char *sets[16];
    size_t n = it_kernels_available(sets, 16);
    char *first = NULL, *first_ck = NULL;
    for (size_t i = 0; i < n; i++)
        for (int threads = 1; threads <= 2; threads++) {
            char env[128], args[512];
            snprintf(env, sizeof env, "ISOTRAIN_KERNELS=%s ISOTRAIN_THREADS=%d", sets[i], threads);
            snprintf(args, sizeof args, "train --recipe spec/recipes/tiny.json --checkpoint-dir %s/ck", test_tmpdir);
            cr_assert_eq(cli(env, args, "trace"), 0, "%s: %s", env, file("stderr"));
            char *trace = file("trace"), *ck = file("ck/step-000005.bin");
            if (!first) {
                first = trace, first_ck = ck;
                continue;
            }
            cr_assert_str_eq(trace, first, "%s gives another trace", env);
            cr_assert(memcmp(ck, first_ck, 4 * 7944) == 0, "%s gives another step-5 checkpoint", env);
            free(trace);
            free(ck);
        }
    /* §16.5's vectors: the header, the step-1 loss and the last digest */
    cr_assert(strncmp(first, "# isotrain-trace v1 profile=tiny steps=5\n", 41) == 0, "%s", first);
    cr_assert(strstr(first, "step=1 loss=0x40836d2b "), "%s", first);
    cr_assert(strstr(first, "step=5 loss=0x407fb879 loss_dec=3.99563432 "
                            "digest=b34581bd32a663de17718e60db5c87c3b7adf030584fb1f756ecbac6266658a3\n"),
              "%s", first);
    free(first);
    free(first_ck);
}

/* §16.6 through the CLI: the recipe of §14's values is gptchar, trace
 * for trace (its name is gptchar's too) */
Test(recipe_cli, gptchar_recipe_gives_gptchars_trace, .init = test_make_tmpdir, .fini = test_remove_tmpdir,
     .timeout = 120)
{
    cr_assert_eq(cli("", "train --recipe spec/recipes/gptchar.json --steps 3", "a"), 0, "%s", file("stderr"));
    cr_assert_eq(cli("", "train --profile gptchar --steps 3", "b"), 0, "%s", file("stderr"));
    char *a = file("a"), *b = file("b");
    cr_assert_str_eq(a, b);
    cr_assert(strstr(a, "step=3 loss=0x4083021a loss_dec=4.09400654 "
                        "digest=54458a5ddd79362c46a3240588b03c86efb5f8112b259a6fddad1457e8285f46\n"),
              "%s", a);
    free(a);
    free(b);
}

Test(recipe_cli, a_bad_recipe_is_a_usage_error_naming_file_and_field, .init = test_make_tmpdir,
     .fini = test_remove_tmpdir)
{
    char path[256], args[512];
    snprintf(path, sizeof path, "%s/bad.json", test_tmpdir);
    /* tiny.json with heads 5, which does not divide d_model 24, and its
     * corpus named from where the copy is */
    char *good = test_slurp("spec/recipes/tiny.json", NULL), cwd[1024];
    char *at = strstr(good, "\"heads\": 4"), *corpus = strstr(good, "shakespeare100k.txt");
    cr_assert(at && corpus && getcwd(cwd, sizeof cwd));
    at[9] = '5';
    FILE *f = fopen(path, "wb");
    cr_assert(f);
    fprintf(f, "%.*s%s/spec/recipes/%s", (int)(corpus - good), good, cwd, corpus);
    fclose(f);
    free(good);
    snprintf(args, sizeof args, "train --recipe %s --checkpoint-dir %s/ck", path, test_tmpdir);
    cr_assert_eq(cli("", args, "out"), 2);
    char *err = file("stderr");
    cr_assert(strstr(err, path) && strstr(err, "heads: 5 does not divide d_model 24"), "%s", err);
    free(err);
    char *out = file("out");
    cr_assert_str_empty(out, "nothing is trained");
    free(out);
    /* the control: the same file with heads 4 trains */
    cr_assert_eq(cli("", "train --recipe spec/recipes/tiny.json --steps 1", "out"), 0);
    cr_assert_eq(cli("", "train --recipe spec/recipes/tiny.json --profile gptchar", "out"), 2);
    err = file("stderr");
    cr_assert(strstr(err, "--profile and --recipe exclude each other"), "%s", err);
    free(err);
}
