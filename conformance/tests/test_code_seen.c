/* Issue 27 item 4: a receipt names all the code that ran. Four ways to run
 * code the subject does not name (a library dlopen()ed by the name in a
 * config file, LD_PRELOAD, PYTHONPATH for a Python IUT, a shell string
 * that runs BAD and then execs the reference): the receipt records the
 * mapped files with digests and the loader environment, and verify never
 * says "subject: bound" for them. On the main branch this round started
 * from, verify said "subject: bound" for each and the receipt named no
 * library, module or variable. */
#define _DEFAULT_SOURCE /* realpath */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testutil.h"
#include "core/util.h"

static char *dir;

static void setup(void) { dir = tu_tmpdir(); }

static void teardown(void)
{
    unsetenv("LD_PRELOAD");
    unsetenv("PYTHONPATH");
    tu_rmtree(dir);
    free(dir);
}

TestSuite(code_seen, .init = setup, .fini = teardown, .timeout = 180);

static char *at(const char *name) { return xasprintf("%s/%s", dir, name); }

/* A shared library NAME.so in dir whose text holds TAG (so two differ). */
static char *make_lib(const char *name, const char *tag)
{
    char *src = xasprintf("%s/%s.c", dir, name), *so = xasprintf("%s/%s.so", dir, name);
    char *text = xasprintf("const char *iut_tag(void) { return \"%s\"; }\n", tag);
    char err[256];
    cr_assert(write_file(src, text, strlen(text), err, sizeof err) == 0, "%s", err);
    char *cmd = xasprintf("cc -shared -fPIC -o '%s' '%s'", so, src);
    tu_sh_ok(cmd);
    free(cmd), free(text), free(src);
    return so;
}

/* Runs the IUT (argv after "--") on the train level, then verify;
 * returns verify's output and leaves the receipt in dir/r.json. */
static char *run_and_verify(const char *const *iut, size_t n)
{
    char *rp = at("r.json");
    /* a training run that lives long enough for the samples (proc_seen.h:
     * 2, 7, 17, 37, 77 ms after the verb starts, then every 100 ms) to see
     * what it maps, on any machine: 3 full-batch steps of addmod113 (about
     * 0.1 s each). 40 steps of mlp13k, as before, last about 8 ms on an idle
     * Zen 3, and a clean-clone CI run saw its LD_PRELOAD library missed. */
    const char *args[32] = {"run", "--vectors", tu_env("IT_VECTORS_1_1"), "--level", "train", "--profile",
                            "addmod113", "--steps", "3", "--receipt", rp, "--"};
    size_t k = 12;
    for (size_t i = 0; i < n; i++)
        args[k++] = iut[i];
    args[k] = NULL;
    tu_result r = tu_conform(args[0], args[1], args[2], args[3], args[4], args[5], args[6], args[7], args[8], args[9],
                             args[10], args[11], args[12], args[13], args[14], args[15], args[16], NULL);
    cr_assert_eq(r.code, 3, "%s%s", r.out, r.err); /* PARTIAL: --level train --steps 3 */
    tu_result_free(&r);
    r = tu_conform("verify", "--allow-unsigned", rp, NULL);
    cr_assert_eq(r.code, 0, "%s%s", r.out, r.err);
    char *out = xstrdup(r.out);
    tu_result_free(&r);
    free(rp);
    return out;
}

/* The receipt's iut.code_mapped entry whose path ends with suffix: its
 * sha256 (fresh), or NULL. */
static char *mapped_digest(const char *suffix)
{
    char *rp = at("r.json");
    cJSON *j = tu_receipt_json(rp);
    free(rp);
    const cJSON *cm = cJSON_GetObjectItem(cJSON_GetObjectItem(j, "iut"), "code_mapped"), *x;
    char *found = NULL;
    cJSON_ArrayForEach(x, cm)
    {
        const char *p = cJSON_GetObjectItem(x, "path")->valuestring;
        size_t pl = strlen(p), sl = strlen(suffix);
        if (!found && pl >= sl && !strcmp(p + pl - sl, suffix))
            found = xstrdup(cJSON_GetStringValue(cJSON_GetObjectItem(x, "sha256")));
    }
    cJSON_Delete(j);
    return found;
}

/* The negative control: the reference alone is bound, and its libraries are
 * recorded with digests. */
Test(code_seen, the_reference_alone_is_bound_and_its_libraries_recorded)
{
    const char *iut[] = {tu_env("IT_REF_CLI")};
    char *v = run_and_verify(iut, 1);
    tu_assert_has(v, "subject: bound: the program (argv form, 1 file named by the subject); recorded with digests, "
                     "not bound: ");
    tu_assert_has(v, "libc.so.6");
    tu_assert_lacks(v, "UNBOUND");
    char *libc = mapped_digest("/libc.so.6");
    cr_assert(libc && strlen(libc) == 64, "libc is not in iut.code_mapped");
    free(libc), free(v);
}

Test(code_seen, ld_preload_is_recorded_and_unbound)
{
    char *so = make_lib("pre", "preloaded");
    /* the runner inherits it too: a sanitized runner must accept a library
     * loaded before its ASan runtime */
    const char *asan = getenv("ASAN_OPTIONS");
    char *opts = xasprintf("%s%sverify_asan_link_order=0", asan ? asan : "", asan && *asan ? ":" : "");
    setenv("ASAN_OPTIONS", opts, 1);
    free(opts);
    setenv("LD_PRELOAD", so, 1);
    const char *iut[] = {tu_env("IT_REF_CLI")};
    char *v = run_and_verify(iut, 1);
    unsetenv("LD_PRELOAD");
    char *words = xasprintf("UNBOUND: loader environment LD_PRELOAD=%s", so);
    tu_assert_has(v, words);
    tu_assert_has(v, "subject: NOT FULLY BOUND");
    tu_assert_lacks(v, "subject: bound");
    char *d = mapped_digest("/pre.so");
    cr_assert(d && strlen(d) == 64, "the preloaded library is not in iut.code_mapped:\n%s", v);
    free(d), free(words), free(v), free(so);
}

/* A loader that dlopen()s the library its config file names, then execs
 * the reference: the library is in the receipt with its digest, so
 * pointing the config elsewhere changes the receipt. */
Test(code_seen, a_library_dlopened_by_config_is_in_the_receipt)
{
    char *a = make_lib("liba", "a"), *b = make_lib("libb", "b"), *conf = at("loader.conf");
    char *src = at("loader.c"), *bin = at("loader");
    char *text = xasprintf("#include <dlfcn.h>\n#include <stdio.h>\n#include <string.h>\n#include <unistd.h>\n"
                           "int main(int c, char **v) { char p[512] = \"\"; FILE *f = fopen(\"%s\", \"r\");\n"
                           "  if (!f || !fgets(p, sizeof p, f)) return 70; p[strcspn(p, \"\\n\")] = 0;\n"
                           "  if (!dlopen(p, RTLD_NOW)) return 71; usleep(300000);\n"
                           "  v[0] = \"%s\"; execv(v[0], v); return 72; }\n",
                           conf, tu_env("IT_REF_CLI"));
    char err[256];
    cr_assert(write_file(src, text, strlen(text), err, sizeof err) == 0, "%s", err);
    char *cmd = xasprintf("cc -o '%s' '%s' -ldl && printf '%%s\\n' '%s' > '%s'", bin, src, a, conf);
    tu_sh_ok(cmd);
    const char *iut[] = {bin};
    char *v = run_and_verify(iut, 1);
    tu_assert_has(v, "recorded with digests, not bound: "); /* and liba.so among them */
    tu_assert_has(v, "liba.so");
    char *da = mapped_digest("/liba.so");
    cr_assert(da, "liba.so is not in iut.code_mapped:\n%s", v);
    free(cmd), free(v);
    /* the other library: the same subject, another receipt */
    cmd = xasprintf("printf '%%s\\n' '%s' > '%s'", b, conf);
    tu_sh_ok(cmd);
    v = run_and_verify(iut, 1);
    char *db = mapped_digest("/libb.so"), *stale = mapped_digest("/liba.so");
    cr_assert(db && !stale, "libb.so should be mapped, liba.so not:\n%s", v);
    cr_assert_str_neq(da, db);
    free(da), free(db), free(cmd), free(v), free(text), free(src), free(bin), free(conf), free(a), free(b);
}

Test(code_seen, pythonpath_and_the_interpreter_are_unbound)
{
    if (access("/usr/bin/python3", X_OK) != 0)
        cr_skip_test("no /usr/bin/python3");
    char *py = at("iut.py"), *mod = at("mods");
    char *text = xasprintf("import os, sys\nos.execv(%s, [%s] + sys.argv[1:])\n", "os.environ['IT_REF_CLI']",
                           "os.environ['IT_REF_CLI']");
    char err[256];
    cr_assert(write_file(py, text, strlen(text), err, sizeof err) == 0, "%s", err);
    setenv("PYTHONPATH", mod, 1);
    char *ref = realpath(tu_env("IT_REF_CLI"), NULL);
    setenv("IT_REF_CLI", ref, 1);
    const char *iut[] = {"/usr/bin/python3", py};
    char *v = run_and_verify(iut, 2);
    char *words = xasprintf("loader environment PYTHONPATH=%s", mod);
    tu_assert_has(v, words);
    tu_assert_has(v, "interpreted code: /usr/bin/python3");
    tu_assert_lacks(v, "subject: bound");
    free(words), free(v), free(text), free(py), free(mod), free(ref);
}

Test(code_seen, a_shell_string_that_execs_the_reference_is_unbound)
{
    char *bad = at("bad");
    char err[256];
    cr_assert(write_file(bad, "#!/bin/sh\nexit 0\n", 17, err, sizeof err) == 0, "%s", err);
    cr_assert(chmod(bad, 0755) == 0);
    char *line = xasprintf("'%s' > /dev/null; sleep 0.2; exec '%s' \"$@\"", bad, tu_env("IT_REF_CLI"));
    const char *iut[] = {"/bin/sh", "-c", line, "sh"};
    char *v = run_and_verify(iut, 4);
    tu_assert_has(v, "subject: NOT FULLY BOUND");
    tu_assert_has(v, "interpreted code: ");
    tu_assert_lacks(v, "subject: bound");
    free(v), free(line), free(bad);
}
