/* testutil.h — helpers for the runner's Criterion tests: temporary
 * directories, running the runner binary, and a small fixture vector set
 * generated from the linked reference (so the tests do not depend on the
 * size of vectors/v1.0.0). */
#ifndef CONFORM_TESTUTIL_H
#define CONFORM_TESTUTIL_H

#include <criterion/criterion.h>
#include <criterion/parameterized.h> /* after criterion.h, which it needs first */
#include <stddef.h>
#include <stdlib.h>

/* An environment variable the Makefile sets (IT_CONFORM, IT_REF_CLI, ...);
 * fails the test if missing. */
const char *tu_env(const char *name);

/* A fresh temporary directory (removed by tu_cleanup). */
char *tu_tmpdir(void);
void tu_rmtree(const char *dir);

typedef struct {
    int code;      /* exit status, -1 if killed by a signal */
    int signal;    /* the signal, if any */
    char *out;     /* all of stdout */
    char *err;     /* the last 4 KiB of stderr */
    double seconds;
} tu_result;

/* Runs IT_CONFORM with the arguments (NULL-terminated) and a 120 s limit. */
tu_result tu_conform(const char *arg0, ...);
/* Runs `run --iut-exec <the script IUT> --vectors <vectors>` and the
 * further arguments (NULL-terminated), as tu_conform. */
tu_result tu_run_script(const char *script, const char *vectors, ...);
/* Runs IT_CONFORM so and asserts its exit code. */
void tu_conform_exits(int code, const char *arg0, ...);
/* Runs IT_CONFORM so, asserts its exit code and that its stdout (stderr
 * with on_err) holds `says`. */
void tu_conform_says(int code, int on_err, const char *says, const char *arg0, ...);
/* Runs a shell command line, capturing as above. */
tu_result tu_sh(const char *cmdline);
void tu_result_free(tu_result *r);
/* Runs a shell command line that must succeed (asserts exit 0). */
void tu_sh_ok(const char *cmdline);
/* The same, and the first line of its stdout (allocated). */
char *tu_sh_line(const char *cmdline);
/* The command of a script IUT in conformance/tests/iuts. */
char *tu_iut(const char *script);

/* Writes a small, valid vector set into dir: ops/exp.json (with a Quick and a
 * Chunk sweep), ops/dot.json, ops/linear.json, train/mlp13k.json with
 * `steps` steps and its checkpoints, MANIFEST.json. */
void tu_fixture(const char *dir, unsigned steps);
/* The same fixture with every file and the manifest at another spec and
 * vector version (e.g. "1.1.0": a set whose spec asks for the fresh-seed
 * run); later tu_fixture/tu_remanifest calls of the test keep it. */
void tu_fixture_version(const char *dir, unsigned steps, const char *version);
/* Rewrites MANIFEST.json for the files now in dir. */
void tu_remanifest(const char *dir);
/* Replaces the first occurrence of `from` by `to` in dir/file (asserts it
 * was found). */
void tu_edit(const char *dir, const char *file, const char *from, const char *to);
/* The isotrain receipt inside a receipt file (a DSSE envelope whose
 * in-toto Statement carries it as predicate.isotrainReceipt); asserts. The
 * caller cJSON_Delete()s it. */
struct cJSON;
struct cJSON *tu_receipt_json(const char *path);
/* A receipt as `run --level all --seed 1 --host HOST` writes it for
 * vectors/v1.0.0 ($IT_VECTORS): every case, every step's digest (the
 * vectors' own; with first_diff >= 0, `dx` and FAIL from that step on), the
 * fresh cases of seed 1 and the linked reference's fresh-seed run. It
 * verifies (isotrain-conform verify) as it is. */
struct cJSON *tu_full_receipt(const char *host, int pass, int first_diff, const char *dx);
/* Sets the receipt's subject as the argv form records it: the program (an
 * executable of isa), or under emu (with -cpu cpu) the emulator as the
 * executable and the program as its guest; the executables seen. */
void tu_receipt_subject(struct cJSON *r, const char *emu, const char *cpu, const char *isa);
/* tu_full_receipt as a host describes itself: its self-report's isa,
 * endianness (little), CPU model and features, and the subject
 * (tu_receipt_subject). */
struct cJSON *tu_host_receipt(const char *host, int pass, int first_diff, const char *dx, const char *emu,
                              const char *cpu, const char *isa, const char *features);
/* hosts.json (isotrain-hosts-v1) rows the tests share: the native x86_64
 * host, and the negative control of an x87 build (expected to fail). */
#define TU_HOSTS_HEAD "{\"schema\": \"isotrain-hosts-v1\", \"hosts\": [\n"
#define TU_HOST_NAT                                                                                                   \
    " {\"name\": \"nat\", \"emulator\": null, \"cpu\": null, \"isa\": \"x86_64\", \"endianness\": \"little\",\n"     \
    "  \"stands_for\": \"native\", \"build\": \"x86_64\", \"expected\": \"pass\", \"slowdown\": 1,\n"                \
    "  \"required_features\": [\"sse2\"], \"absent_features\": []}"
#define TU_HOST_X87                                                                                                   \
    " {\"name\": \"x87\", \"emulator\": \"qemu-i386\", \"cpu\": \"Conroe\", \"isa\": \"i386\", \"endianness\": \"little\",\n" \
    "  \"stands_for\": \"negative control\", \"build\": \"i386-x87\", \"expected\": \"expected-fail\", \"slowdown\": 20,\n" \
    "  \"required_features\": [\"sse2\"], \"absent_features\": []}"
/* Writes text to dir/name, its parent directories made, then sets mode
 * when it is not 0 (asserts). */
void tu_put(const char *dir, const char *name, const char *text, int mode);
/* Wraps receipt text in an unsigned DSSE envelope (trust/dsse.h) at path. */
void tu_write_envelope(const char *path, const char *receipt_text);
/* The same for a receipt as JSON (left to the caller). */
void tu_write_receipt(const char *path, const struct cJSON *receipt);
/* The same at dir/name, its parent directories made. */
void tu_put_receipt(const char *dir, const char *name, const struct cJSON *receipt);
/* The pid a script IUT wrote into dir/name (its $IT_ESCAPE_DIR), or -1. */
long tu_read_pid(const char *dir, const char *name);
/* Reads a whole file (asserts). */
char *tu_read(const char *path);

/* dir/name, allocated (asserts). */
char *tu_at(const char *dir, const char *name);

/* The suite fixture most tests share: each test gets a fresh temporary
 * directory `dir` (removed after it), holding tu_fixture(dir, steps) when
 * steps > 0; then `hook` (a function of the file, or NULL) runs; at(name) is
 * dir/name. The rest are the suite's Criterion options (.timeout = ...). */
#define TU_DIR_SUITE_HOOK(suite, steps, hook, ...)                                                  \
    static char *dir;                                                                               \
    static void tu_suite_init_(void)                                                                \
    {                                                                                               \
        void (*const tu_hook_)(void) = (hook);                                                      \
        dir = tu_tmpdir();                                                                          \
        if ((steps) > 0)                                                                            \
            tu_fixture(dir, (steps));                                                               \
        if (tu_hook_)                                                                               \
            tu_hook_();                                                                             \
    }                                                                                               \
    static void tu_suite_fini_(void)                                                                \
    {                                                                                               \
        tu_rmtree(dir);                                                                             \
        free(dir);                                                                                  \
    }                                                                                               \
    __attribute__((unused)) static char *at(const char *name) { return tu_at(dir, name); }          \
    TestSuite(suite, .init = tu_suite_init_, .fini = tu_suite_fini_, ##__VA_ARGS__)
#define TU_DIR_SUITE(suite, steps, ...) TU_DIR_SUITE_HOOK(suite, steps, NULL, ##__VA_ARGS__)

/* The parameters of a table-driven test (a ParameterizedTest over `const
 * size_t *row`): the indices 0..n-1 of its table's rows, not the rows, for
 * a test runs in a process of its own, where the rows' string pointers
 * would not hold. */
struct criterion_test_params tu_row_indices(size_t n);
#define TU_TABLE_ROWS(suite, test, n)                                                               \
    ParameterizedTestParameters(suite, test) { return tu_row_indices(n); }

/* Asserts that haystack contains needle, showing both otherwise. */
#define tu_assert_has(hay, needle)                                                                  \
    cr_assert(strstr((hay), (needle)) != NULL, "expected to find\n  %s\nin:\n%s", (needle), (hay))
#define tu_assert_lacks(hay, needle)                                                                \
    cr_assert(strstr((hay), (needle)) == NULL, "expected NOT to find\n  %s\nin:\n%s", (needle), (hay))

#endif
