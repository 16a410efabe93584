/* matrix: the host-matrix table from fixture receipts. All hosts agree (exit
 * 0); one host differs (exit 1, the cell marked); the expected-fail host fails
 * (exit 0, shown as expected-fail with its first differing step) or passes
 * (exit 1: the negative control did not fire); a missing receipt; a host that
 * is not what it claims (a TCG warning for a required feature); a build
 * failure; malformed input names the file and the field (exit 2); --against
 * compares with published receipts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cjson/cJSON.h>

#include "testutil.h"
#include "core/util.h"
#include "report/matrix/matrix.h"
#include "fresh/fresh_windows.h"

TU_DIR_SUITE(matrix, 0, .timeout = 60);

/* The vectors' own digests at steps 0 and 50 (vectors/v1.0.0), and one that
 * is not: receipts must verify against the real set before the matrix uses
 * them. */
#define D0 "05a8aa50bacb79781ff5a30c4d167dacd992201238083eb70e3ed5528ffa3fd6"
#define D50 "20da6b6f7f00ab766403488c27d38304a7a68a58d5eecf1945f22102bc452358"
#define DX "deadbeef536be6aa15491440735ffb38abd87d3a3af735302686773415f828c1"

static void put(const char *name, const char *text) { tu_put(dir, name, text, 0); }

/* Three hosts: two expected to pass (one native, one emulated Haswell that
 * must have fma and avx2), one negative control. */
static void hosts(void)
{
    put("hosts.json",
        TU_HOSTS_HEAD TU_HOST_NAT ",\n"
        " {\"name\": \"hsw\", \"emulator\": \"qemu-x86_64\", \"cpu\": \"Haswell\", \"isa\": \"x86_64\", \"endianness\": \"little\",\n"
        "  \"stands_for\": \"AVX2\", \"build\": \"x86_64\", \"expected\": \"pass\", \"slowdown\": 20,\n"
        "  \"required_features\": [\"fma\", \"avx2\"], \"absent_features\": [\"avx512f\"]},\n" TU_HOST_X87 "\n]}\n");
}

/* A receipt as the runner writes it for a full run of vectors/v1.0.0: every
 * case, every step's digest (the vectors' own, or DX from first_diff on), the
 * fresh cases of seed 1 and the linked reference's fresh-seed run, wrapped
 * in an (unsigned) DSSE envelope. `edit`, when given, rewrites the receipt's
 * text before it is wrapped (a hand-edited receipt). */
static void receipt_edited(const char *file, const char *host, int pass, int first_diff, const char *emu,
                           const char *cpu, const char *isa, const char *features, const char *warning,
                           void (*edit)(cJSON *))
{
    cJSON *r = tu_host_receipt(host, pass, first_diff, DX, emu, cpu, isa, features);
    if (warning)
        cJSON_AddItemToArray(cJSON_GetObjectItem(r, "emulator_warnings"), cJSON_CreateString(warning));
    if (edit)
        edit(r);
    tu_put_receipt(dir, file, r);
    cJSON_Delete(r);
}

static void receipt(const char *file, const char *host, int pass, int first_diff, const char *d50, const char *emu,
                    const char *cpu, const char *isa, const char *features, const char *warning)
{
    (void)d50; /* the step-50 digest follows from first_diff: DX from there on */
    receipt_edited(file, host, pass, first_diff, emu, cpu, isa, features, warning, NULL);
}

static void good_nat(void) { receipt("r/nat.json", "nat", 1, -1, D50, NULL, NULL, "x86_64", "sse sse2 avx2 fma", NULL); }
static void good_hsw(void)
{
    receipt("r/hsw.json", "hsw", 1, -1, D50, "qemu-x86_64", "Haswell", "x86_64", "sse sse2 avx fma avx2",
            "qemu-x86_64: warning: TCG doesn't support requested feature: CPUID.07H:EBX.hle [bit 4]");
}
static void failing_x87(void)
{
    receipt("r/x87.json", "x87", 0, 1, DX, "qemu-i386", "Conroe", "i386", "sse sse2 sse3", NULL);
}

static tu_result matrix(const char *extra)
{
    char *h = at("hosts.json"), *md = at("MATRIX.md"), *a = at("r/nat.json"), *b = at("r/hsw.json"),
         *c = at("r/x87.json");
    tu_result r = extra ? tu_conform("matrix", "--allow-unsigned", "--hosts", h, "--markdown", md, extra, a, b, c, NULL)
                        : tu_conform("matrix", "--allow-unsigned", "--hosts", h, "--markdown", md, a, b, c, NULL);
    free(h), free(md), free(a), free(b), free(c);
    return r;
}

Test(matrix, all_agree_and_the_negative_control_fails)
{
    hosts();
    good_nat();
    good_hsw();
    failing_x87();
    tu_result r = matrix(NULL);
    cr_assert_eq(r.code, 0, "%s\n%s", r.out, r.err);
    tu_assert_has(r.out, "step 0");
    tu_assert_has(r.out, "step 50");
    tu_assert_has(r.out, "05a8aa50");
    tu_assert_has(r.out, "yes (2)");
    tu_assert_has(r.out, "x87: ok: failed as expected: first differing step 1");
    tu_assert_has(r.out, "deadbeef*");
    tu_assert_has(r.out, "expected-fail (step 1)");
    tu_assert_has(r.out, "matrix: OK: 3 of 3 hosts as expected (2 passed, 1 expected failure failed as expected)");
    /* the TCG warning for a feature the host does not need is recorded, not fatal */
    tu_assert_has(r.out, "hsw: emulator warning (recorded): qemu-x86_64: warning: TCG doesn't support requested feature: CPUID.07H:EBX.hle");
    char *md = at("MATRIX.md");
    char *m = tu_read(md);
    tu_assert_has(m, "## isotrain host matrix: OK");
    /* issue 27 item 8: each row names the vector set its receipt ran against */
    tu_assert_has(m, "| host | runs as | kernels | vectors | expected | result | signed by | subject | step 0 | step 50 | step 100 | step 150 | step 200 | time |");
    tu_assert_has(m, "| x87 | `qemu-i386 -cpu Conroe` | - | 1.0.0 | expected-fail | ➖ expected-fail (step 1) | UNSIGNED | bound |");
    tu_assert_has(r.out, "kernels   vectors  expected");
    tu_assert_has(m, "**yes** (2)");
    tu_assert_has(m, "TCG lacks hle");
    free(m);
    free(md);
    tu_result_free(&r);
}

Test(matrix, one_host_differs)
{
    hosts();
    good_nat();
    receipt("r/hsw.json", "hsw", 0, 50, DX, "qemu-x86_64", "Haswell", "x86_64", "sse sse2 avx fma avx2", NULL);
    failing_x87();
    tu_result r = matrix(NULL);
    cr_assert_eq(r.code, 1, "%s\n%s", r.out, r.err);
    tu_assert_has(r.out, "hsw: FAIL: verdict FAIL (ops PASS, train FAIL); first differing step 50");
    tu_assert_has(r.out, "NO");
    tu_assert_has(r.out, "matrix: FAIL: 2 of 3 hosts as expected");
    tu_assert_has(r.out, "do NOT all agree");
    tu_result_free(&r);
}

Test(matrix, expected_fail_that_passes_fails_the_matrix)
{
    hosts();
    good_nat();
    good_hsw();
    receipt("r/x87.json", "x87", 1, -1, D50, "qemu-i386", "Conroe", "i386", "sse sse2 sse3", NULL);
    tu_result r = matrix(NULL);
    cr_assert_eq(r.code, 1, "%s\n%s", r.out, r.err);
    tu_assert_has(r.out, "the negative control passed");
    tu_assert_has(r.out, "FAIL (control)");
    tu_assert_has(r.out, "x87: FAIL (negative control passed)");
    tu_assert_has(r.out, "matrix: FAIL: 2 of 3 hosts as expected");
    tu_result_free(&r);
}

Test(matrix, missing_receipt)
{
    hosts();
    good_nat();
    failing_x87();
    char *h = at("hosts.json"), *a = at("r/nat.json"), *c = at("r/x87.json");
    tu_result r = tu_conform("matrix", "--allow-unsigned", "--hosts", h, a, c, NULL);
    cr_assert_eq(r.code, 1, "%s\n%s", r.out, r.err);
    tu_assert_has(r.out, "no receipt");
    tu_assert_has(r.out, "hsw: no receipt: no receipt names this host");
    free(h), free(a), free(c);
    tu_result_free(&r);
}

Test(matrix, a_receipt_file_that_does_not_exist)
{
    hosts();
    char *h = at("hosts.json"), *a = at("r/none.json");
    tu_result r = tu_conform("matrix", "--allow-unsigned", "--hosts", h, a, NULL);
    cr_assert_eq(r.code, 2, "%s\n%s", r.out, r.err);
    tu_assert_has(r.err, "r/none.json");
    free(h), free(a);
    tu_result_free(&r);
}

static void ck50_not_hex(cJSON *r)
{
    cJSON *ck = cJSON_GetArrayItem(
        cJSON_GetObjectItem(
            cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(r, "levels"), "train"),
                                                   "profiles"),
                               0),
            "checkpoints"),
        1);
    cJSON_ReplaceItemInObject(ck, "sha256", cJSON_CreateString("XYZ" D50));
}

Test(matrix, malformed_receipt_names_file_and_field)
{
    hosts();
    good_nat();
    good_hsw();
    failing_x87();
    /* a checkpoint digest that is not hex, the receipt otherwise intact */
    receipt_edited("r/hsw.json", "hsw", 1, -1, "qemu-x86_64", "Haswell", "x86_64", "sse sse2 avx fma avx2", NULL,
                   ck50_not_hex);
    char *p = at("r/hsw.json");
    tu_result r = matrix(NULL);
    cr_assert_eq(r.code, 2, "%s\n%s", r.out, r.err);
    tu_assert_has(r.err, "r/hsw.json");
    tu_assert_has(r.err, "levels.train.profiles[0].checkpoints[1]");
    tu_result_free(&r);

    /* not JSON at all */
    put("r/hsw.json", "{\"schema\": \"isotrain-receipt-v1\",");
    r = matrix(NULL);
    cr_assert_eq(r.code, 2, "%s\n%s", r.out, r.err);
    tu_assert_has(r.err, "r/hsw.json: not valid JSON");
    tu_result_free(&r);

    /* a bare receipt (no envelope) is refused */
    put("r/hsw.json", "{\"schema\": \"isotrain-receipt-v1\", \"matrix_host\": \"hsw\", \"verdict\": \"PASS\"}");
    r = matrix(NULL);
    cr_assert_eq(r.code, 2, "%s\n%s", r.out, r.err);
    tu_assert_has(r.err, "r/hsw.json: refused: a bare receipt, not a DSSE envelope");
    tu_result_free(&r);
    free(p);
}

Test(matrix, malformed_hosts_file)
{
    put("hosts.json", "{\"hosts\": [{\"name\": \"a\", \"emulator\": null, \"cpu\": null, \"isa\": \"x86_64\", "
                      "\"endianness\": \"little\", \"stands_for\": \"x\", \"build\": \"x86_64\", \"expected\": \"maybe\", "
                      "\"required_features\": [], \"absent_features\": []}]}");
    good_nat();
    char *h = at("hosts.json"), *a = at("r/nat.json");
    tu_result r = tu_conform("matrix", "--allow-unsigned", "--hosts", h, a, NULL);
    cr_assert_eq(r.code, 2, "%s\n%s", r.out, r.err);
    tu_assert_has(r.err, "hosts.json: hosts[0].expected: expected \"pass\" or \"expected-fail\", got \"maybe\"");
    free(h), free(a);
    tu_result_free(&r);
}

Test(matrix, host_that_lacks_a_required_feature)
{
    hosts();
    good_nat();
    /* QEMU could not give the Haswell host its FMA: fail loudly */
    receipt("r/hsw.json", "hsw", 1, -1, D50, "qemu-x86_64", "Haswell", "x86_64", "sse sse2 avx avx2",
            "qemu-x86_64: warning: TCG doesn't support requested feature: CPUID.01H:ECX.fma [bit 12]");
    failing_x87();
    tu_result r = matrix(NULL);
    cr_assert_eq(r.code, 1, "%s\n%s", r.out, r.err);
    tu_assert_has(r.out, "HOST MISMATCH");
    tu_assert_has(r.out, "required feature fma is not reported");
    tu_assert_has(r.out, "QEMU cannot provide required feature fma");
    tu_result_free(&r);

    /* the wrong -cpu, and a feature that must be absent */
    receipt("r/hsw.json", "hsw", 1, -1, D50, "qemu-x86_64", "max", "x86_64", "sse sse2 avx fma avx2 avx512f", NULL);
    r = matrix(NULL);
    cr_assert_eq(r.code, 1, "%s\n%s", r.out, r.err);
    tu_assert_has(r.out, "-cpu max, the hosts file says Haswell");
    tu_assert_has(r.out, "feature avx512f must be absent but is reported");
    tu_result_free(&r);
}

Test(matrix, build_failure_is_not_green)
{
    hosts();
    good_nat();
    good_hsw();
    put("r/x87.json", "{\"schema\": \"isotrain-matrix-build-failure-v1\", \"matrix_host\": \"x87\", \"build\": "
                      "\"i386-x87\", \"log\": \"build/matrix/build-i386-x87.log\"}");
    tu_result r = matrix(NULL);
    cr_assert_eq(r.code, 1, "%s\n%s", r.out, r.err);
    tu_assert_has(r.out, "build failed");
    tu_assert_has(r.out, "so the negative control never ran");
    tu_result_free(&r);
}

Test(matrix, hwcap_features)
{
    put("hosts.json",
        "{\"hosts\": [{\"name\": \"a64\", \"emulator\": \"qemu-aarch64\", \"cpu\": \"cortex-a72\", \"isa\": \"aarch64\",\n"
        " \"endianness\": \"little\", \"stands_for\": \"x\", \"build\": \"aarch64\", \"expected\": \"pass\",\n"
        " \"required_features\": [\"fp@hwcap:0\", \"asimd@hwcap:1\"], \"absent_features\": [\"sve@hwcap:22\"]}]}");
    receipt("r/a64.json", "a64", 1, -1, D50, "qemu-aarch64", "cortex-a72", "aarch64", "hwcap=0x8fb hwcap2=0x0", NULL);
    char *h = at("hosts.json"), *a = at("r/a64.json");
    tu_result r;
    tu_conform_exits(0, "matrix", "--allow-unsigned", "--hosts", h, a, NULL);
    receipt("r/a64.json", "a64", 1, -1, D50, "qemu-aarch64", "cortex-a72", "aarch64", "hwcap=0x4008fa hwcap2=0x0", NULL);
    r = tu_conform("matrix", "--allow-unsigned", "--hosts", h, a, NULL);
    cr_assert_eq(r.code, 1, "%s\n%s", r.out, r.err);
    tu_assert_has(r.out, "required feature fp@hwcap:0 is not reported");
    tu_assert_has(r.out, "feature sve@hwcap:22 must be absent but is reported");
    free(h), free(a);
    tu_result_free(&r);
}

Test(matrix, against_published_receipts)
{
    hosts();
    good_nat();
    good_hsw();
    failing_x87();
    /* publish: the same three receipts */
    char *pub = at("pub");
    char *cmd = xasprintf("mkdir -p '%s' && cp '%s'/r/*.json '%s'/", pub, dir, pub);
    tu_sh_ok(cmd);
    free(cmd);
    char *arg = xasprintf("--against=%s", pub);
    tu_result r = matrix(arg);
    cr_assert_eq(r.code, 0, "%s\n%s", r.out, r.err);
    tu_assert_has(r.out, "agrees (verdicts, first differing steps and checkpoint digests of all 3 hosts)");
    tu_result_free(&r);

    /* a fresh run whose hsw digest at step 50 moved (and so fails) */
    receipt("r/hsw.json", "hsw", 0, 50, DX, "qemu-x86_64", "Haswell", "x86_64", "sse sse2 avx fma avx2", NULL);
    r = matrix(arg);
    cr_assert_eq(r.code, 1, "%s\n%s", r.out, r.err);
    tu_assert_has(r.out, "hsw: verdict published PASS, now FAIL");
    tu_assert_has(r.out, "hsw: step 50: published " D50 ", now " DX);
    tu_assert_has(r.out, "DIFFERENT from the published receipts");
    tu_result_free(&r);

    /* the published set alone: its own table */
    char *h = at("hosts.json");
    tu_conform_says(0, 0, "matrix: OK", "matrix", "--allow-unsigned", "--hosts", h, arg, NULL);
    free(h);
    free(arg);
    free(pub);
}

Test(matrix, list_for_scripts)
{
    hosts();
    char *h = at("hosts.json");
    tu_result r = tu_conform("matrix", "--allow-unsigned", "--hosts", h, "--list", NULL);
    cr_assert_eq(r.code, 0, "%s\n%s", r.out, r.err);
    tu_assert_has(r.out, "nat\tx86_64\tpass\t1\tbuild/cross/x86_64/isotrain\n");
    tu_assert_has(r.out, "hsw\tx86_64\tpass\t20\tqemu-x86_64 -cpu Haswell build/cross/x86_64/isotrain\n");
    tu_assert_has(r.out, "x87\ti386-x87\texpected-fail\t20\tqemu-i386 -cpu Conroe build/cross/i386-x87/isotrain\n");
    free(h);
    tu_result_free(&r);
}

/* End to end: `run --host` records the host, the checkpoints and the
 * emulator's warnings, and `matrix` fails loudly when QEMU says it cannot
 * provide a feature the host is meant to have. */
Test(matrix, run_receipt_feeds_the_matrix, .timeout = 120)
{
    /* the argv form of a script that says what QEMU would, then runs the reference */
    char *iut = at("warns.sh");
    char *script = xasprintf("#!/bin/sh\nprintf \"qemu-x86_64: warning: TCG doesn't support requested feature: CPUID.01H:ECX.fma [bit 12]\\n\" >&2\nexec '%s' \"$@\"\n",
                             tu_env("IT_REF_CLI"));
    put("warns.sh", script);
    free(script);
    cr_assert(chmod(iut, 0755) == 0);
    char *rec = at("r/nat.json");
    make_parent_dirs(rec);
    tu_result r;
    tu_conform_says(0, 0,
                    "iut stderr (recorded in the receipt): qemu-x86_64: warning: TCG doesn't support requested feature",
                    "run", "--iut-exec", iut, "--vectors", tu_env("IT_VECTORS"), "--host", "nat", "--receipt", rec,
                    NULL);
    cJSON *j = tu_receipt_json(rec);
    char *t = cJSON_Print(j);
    cJSON_Delete(j);
    tu_assert_has(t, "\"matrix_host\":\t\"nat\"");
    tu_assert_has(t, "\"checkpoints\":");
    tu_assert_has(t, "\"matches_vectors\":\ttrue");
    tu_assert_has(t, "\"emulator_warnings\":\t[\"qemu-x86_64: warning: TCG doesn't support requested feature: CPUID.01H:ECX.fma [bit 12]\"]");
    free(t);
    /* a native host that requires fma: the warning names it */
    put("hosts.json",
        "{\"hosts\": [{\"name\": \"nat\", \"emulator\": null, \"cpu\": null, \"isa\": \"x86_64\", \"endianness\": \"little\",\n"
        " \"stands_for\": \"x\", \"build\": \"x86_64\", \"expected\": \"pass\",\n"
        " \"required_features\": [\"fma\"], \"absent_features\": []}]}");
    char *h = at("hosts.json");
    r = tu_conform("matrix", "--allow-unsigned", "--hosts", h, rec, NULL);
    cr_assert_eq(r.code, 1, "%s\n%s", r.out, r.err);
    tu_assert_has(r.out, "QEMU cannot provide required feature fma");
    tu_assert_has(r.out, "step 200");
    tu_result_free(&r);
    free(h);
    free(rec);
    free(iut);
}

/* A receipt is untrusted input: a step number beyond any integer type must be
 * refused by name, never converted (UBSan: out-of-range double to int). */
static void huge_first_diff(cJSON *r)
{
    cJSON *p = cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(r, "levels"), "train"),
                                                      "profiles"), 0);
    cJSON_ReplaceItemInObject(p, "first_differing_step", cJSON_CreateNumber(118446744073709551616.0));
}

static void fractional_step(cJSON *r)
{
    cJSON *p = cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(r, "levels"), "train"),
                                                      "profiles"), 0);
    cJSON *ck = cJSON_GetArrayItem(cJSON_GetObjectItem(p, "checkpoints"), 1);
    cJSON_ReplaceItemInObject(ck, "step", cJSON_CreateNumber(50.5));
}

Test(matrix, out_of_range_numbers_are_refused)
{
    hosts();
    good_nat();
    good_hsw();
    receipt_edited("r/x87.json", "x87", 0, 1, "qemu-i386", "Conroe", "i386", "sse sse2 sse3", NULL, huge_first_diff);
    tu_result r = matrix(NULL);
    cr_assert_eq(r.code, 2, "exit %d\n%s\n%s", r.code, r.out, r.err);
    tu_assert_has(r.err, "r/x87.json");
    tu_assert_has(r.err, "first_differing_step");
    tu_result_free(&r);
    receipt_edited("r/x87.json", "x87", 0, 1, "qemu-i386", "Conroe", "i386", "sse sse2 sse3", NULL, fractional_step);
    r = matrix(NULL);
    cr_assert_eq(r.code, 2, "exit %d\n%s\n%s", r.code, r.out, r.err);
    tu_assert_has(r.err, "r/x87.json");
    tu_assert_has(r.err, "step");
    tu_result_free(&r);
}

/* A slowdown multiplies every deadline: an unbounded one disables them. */
Test(matrix, unbounded_slowdown_is_refused)
{
    hosts();
    tu_edit(dir, "hosts.json", "\"slowdown\": 20,", "\"slowdown\": 1e308,");
    good_nat();
    good_hsw();
    failing_x87();
    tu_result r = matrix(NULL);
    cr_assert_eq(r.code, 2, "exit %d\n%s\n%s", r.code, r.out, r.err);
    tu_assert_has(r.err, "hosts[1].slowdown: expected a number from 1 to 1000");
    tu_result_free(&r);
}

/* A Wine host: no -cpu (Wine emulates the OS, not the CPU), and the OS the
 * IUT reports from inside must be the hosts file's. A qemu-* host without
 * -cpu is refused (QEMU's default CPU is 'max'). */
static const char *wine_os;

/* A full receipt of a Windows build run by Wine: no -cpu, and the os its
 * info reported. */
static void as_wine(cJSON *r)
{
    cJSON *e = cJSON_GetObjectItem(r, "emulator");
    cJSON_ReplaceItemInObject(e, "cpu", cJSON_CreateNull());
    cJSON *vals = cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(r, "iut"), "self_report"), "values");
    cJSON_AddStringToObject(vals, "os", wine_os);
}

static void wine_receipt(const char *os)
{
    wine_os = os;
    receipt_edited("r/win.json", "win", 1, -1, "wine", "-", "x86_64", "sse sse2", NULL, as_wine);
}

Test(matrix, wine_host_has_no_cpu_and_its_os_is_checked)
{
    put("hosts.json",
        "{\"hosts\": [{\"name\": \"win\", \"emulator\": \"wine\", \"cpu\": null, \"os\": \"windows\", \"isa\": \"x86_64\",\n"
        " \"endianness\": \"little\", \"stands_for\": \"x\", \"build\": \"win64\", \"expected\": \"pass\",\n"
        " \"required_features\": [\"sse2\"], \"absent_features\": []}]}");
    char *h = at("hosts.json"), *a = at("r/win.json");
    tu_result r = tu_conform("matrix", "--allow-unsigned", "--hosts", h, "--list", NULL);
    cr_assert_eq(r.code, 0, "%s", r.err);
    tu_assert_has(r.out, "\twine build/cross/win64/isotrain.exe\n");
    tu_result_free(&r);
    wine_receipt("windows");
    tu_conform_says(0, 0, "wine (host CPU)", "matrix", "--allow-unsigned", "--hosts", h, a, NULL);
    wine_receipt("linux");
    tu_conform_says(1, 0, "info reports os=linux, the hosts file says windows", "matrix", "--allow-unsigned", "--hosts",
                    h, a, NULL);

    put("hosts.json",
        "{\"hosts\": [{\"name\": \"q\", \"emulator\": \"qemu-x86_64\", \"cpu\": null, \"isa\": \"x86_64\",\n"
        " \"endianness\": \"little\", \"stands_for\": \"x\", \"build\": \"x86_64\", \"expected\": \"pass\",\n"
        " \"required_features\": [], \"absent_features\": []}]}");
    tu_conform_says(2, 1, "cpu is given exactly when the emulator is qemu-*", "matrix", "--allow-unsigned", "--hosts",
                    h, "--list", NULL);
    free(h), free(a);
}

static void no_matrix_host(cJSON *r)
{
    cJSON_ReplaceItemInObject(r, "matrix_host", cJSON_CreateNull());
}

/* Receipts from machines the hosts file does not list (someone's own
 * computers): each is a row of its own, expected to pass, described by its
 * receipt; they fold into one table with the listed hosts, or alone without
 * --hosts. A receipt without matrix_host is named by its file. A failing
 * machine fails the table; a build-failure record for an unlisted host is
 * bad input. */
Test(matrix, receipts_from_machines_not_in_the_hosts_file)
{
    hosts();
    good_nat();
    good_hsw();
    failing_x87();
    receipt("r/alice.json", "alice-laptop", 1, -1, D50, NULL, NULL, "aarch64", "hwcap=0x8fb", NULL);
    receipt("r/bob.json", "bob-desktop", 1, -1, D50, NULL, NULL, "x86_64", "sse sse2", NULL);
    char *h = at("hosts.json"), *n = at("r/nat.json"), *w = at("r/hsw.json"), *x = at("r/x87.json"),
         *al = at("r/alice.json"), *bo = at("r/bob.json"), *md = at("M.md");
    tu_result r = tu_conform("matrix", "--allow-unsigned", "--hosts", h, "--markdown", md, n, w, x, al, bo, NULL);
    cr_assert_eq(r.code, 0, "%s\n%s", r.out, r.err);
    tu_assert_has(r.out, "alice-laptop");
    tu_assert_has(r.out, "machine: aarch64");
    tu_assert_has(r.out, "5 of 5 hosts as expected (4 passed");
    tu_result_free(&r);
    char *m = tu_read(md);
    tu_assert_has(m, "a machine not in the hosts file, described by its receipt");
    free(m);

    /* without a hosts file: the machines alone; one named by its file */
    receipt_edited("r/bob.json", "bob-desktop", 1, -1, NULL, NULL, "x86_64", "sse sse2", NULL, no_matrix_host);
    r = tu_conform("matrix", "--allow-unsigned", al, bo, NULL);
    cr_assert_eq(r.code, 0, "%s\n%s", r.out, r.err);
    tu_assert_has(r.out, "bob ");
    tu_assert_has(r.out, "2 of 2 hosts as expected (2 passed");
    tu_result_free(&r);

    /* a machine that does not agree fails the table */
    receipt("r/carol.json", "carol", 0, 50, DX, NULL, NULL, "x86_64", "sse sse2", NULL);
    char *ca = at("r/carol.json");
    tu_conform_says(1, 0, "carol: FAIL: verdict FAIL", "matrix", "--allow-unsigned", al, bo, ca, NULL);

    /* two receipts for one machine: bad input */
    tu_conform_says(2, 1, "already has a receipt", "matrix", "--allow-unsigned", al, al, NULL);
    free(h), free(n), free(w), free(x), free(al), free(bo), free(md), free(ca);
}

/* The kernel set each host ran (its hello line's kernels=, P2) is a column
 * of the table, so a matrix shows which SIMD code produced each digest. */
static void hello_with_avx2(cJSON *r)
{
    cJSON *iut = cJSON_GetObjectItem(r, "iut");
    cJSON_DeleteItemFromObject(iut, "hello");
    cJSON_AddStringToObject(iut, "hello", "protocol=1 name=x version=1 spec=1.1.0 train_seed=1 kernels=avx2");
}

Test(matrix, the_kernel_set_is_a_column)
{
    hosts();
    good_nat();
    receipt_edited("r/hsw.json", "hsw", 1, -1, "qemu-x86_64", "Haswell", "x86_64", "sse sse2 avx fma avx2", NULL,
                   hello_with_avx2);
    failing_x87();
    tu_result r = matrix(NULL);
    cr_assert_eq(r.code, 0, "%s\n%s", r.out, r.err);
    tu_assert_has(r.out, "kernels");
    tu_assert_has(r.out, "qemu-x86_64 -cpu Haswell  avx2 ");
    char *m = tu_read(at("MATRIX.md"));
    tu_assert_has(m, "| hsw | `qemu-x86_64 -cpu Haswell` | avx2 | 1.0.0 | pass |");
    free(m);
    tu_result_free(&r);
}

/* ---- certification by windows (issue 20): the rule, and a real receipt ---- */

/* A receipt as a --windows --steps 2 run of mlp13k writes it: PARTIAL by
 * --steps alone; two golden windows (cases 4, 5) and the three fresh windows
 * run seed 12345 draws (cases 6-8, fresh/fresh_windows.h), every one PASS. */
static void add_fresh_windows(cJSON *r, const char *profile, uint32_t steps)
{
    fresh_window_plan p;
    cr_assert_eq(fresh_windows_plan(12345, profile, steps, &p), 0);
    for (int w = 0; w < FRESH_WINDOWS; w++) {
        char id[96];
        snprintf(id, sizeof id, "%s/fresh-window/%u-%u", profile, (unsigned)p.from[w], (unsigned)p.to[w]);
        cJSON *c = cJSON_CreateObject();
        cJSON_AddStringToObject(c, "id", id);
        cJSON_AddStringToObject(c, "level", "train");
        cJSON_AddStringToObject(c, "verdict", "PASS");
        cJSON_AddBoolToObject(c, "required", 1);
        cJSON_AddItemToArray(cJSON_GetObjectItem(r, "cases"), c);
    }
}

static cJSON *windows_receipt(void)
{
    cJSON *r = cJSON_Parse(
        "{\"verdict\": \"PARTIAL\","
        " \"vectors\": {\"profiles\": [{\"profile\": \"mlp13k\", \"steps\": 200}]},"
        " \"options\": {\"level\": \"all\", \"profile\": null, \"filters\": [], \"fresh_only\": false, \"steps\": 2,"
        "   \"seed\": \"12345\"},"
        " \"scope\": {\"full_certification\": false, \"reasons\": [\"--steps 2: training stopped before step 9\","
        "   \"level train: 7 required cases skipped (first: p/3: not run (--steps))\"]},"
        " \"levels\": {\"ops\": {\"verdict\": \"PASS\"}, \"train\": {\"verdict\": \"NOT REACHED\"},"
        "   \"fresh\": {\"verdict\": \"PASS\"}},"
        " \"cases\": ["
        "  {\"id\": \"dot/1\", \"level\": \"ops\", \"verdict\": \"PASS\", \"required\": true},"
        "  {\"id\": \"p/2\", \"level\": \"train\", \"verdict\": \"PASS\", \"required\": true},"
        "  {\"id\": \"p/3\", \"level\": \"train\", \"verdict\": \"SKIP\", \"reason\": \"not run (--steps)\", \"required\": true},"
        "  {\"id\": \"exp/sweep\", \"level\": \"ops\", \"verdict\": \"SKIP\", \"reason\": \"--exhaustive\", \"required\": false},"
        "  {\"id\": \"p/window/0-1\", \"level\": \"train\", \"verdict\": \"PASS\", \"required\": true},"
        "  {\"id\": \"p/window/8-9\", \"level\": \"train\", \"verdict\": \"PASS\", \"required\": true}]}");
    cr_assert(r);
    add_fresh_windows(r, "mlp13k", 200);
    return r;
}

/* r as the matrix reads it: the typed record (a copy of r filled once). */
static const char *not_by_windows(const cJSON *r, int *prefix_only)
{
    static char why[256];
    receipt_record rec;
    problems pr;
    problems_init(&pr);
    cr_assert(receipt_record_take(&rec, "windows receipt", cJSON_Duplicate(r, 1), &pr) == 0, "%s", pr.n ? pr.items[0] : "");
    const char *w = mx_not_by_windows(&rec.top, NULL);
    snprintf(why, sizeof why, "%s", w ? w : "");
    if (prefix_only)
        *prefix_only = mx_prefix_only(&rec.top);
    receipt_record_free(&rec);
    problems_free(&pr);
    return why;
}

static int prefix_only(const cJSON *r)
{
    int p;
    not_by_windows(r, &p);
    return p;
}

static const char *rule_on(void (*edit)(cJSON *))
{
    static char why[256];
    cJSON *r = windows_receipt();
    cr_assert(r);
    if (edit)
        edit(r);
    snprintf(why, sizeof why, "%s", not_by_windows(r, NULL));
    cJSON_Delete(r);
    return why;
}

static cJSON *case_at(cJSON *r, int i) { return cJSON_GetArrayItem(cJSON_GetObjectItem(r, "cases"), i); }
static void set_str(cJSON *o, const char *k, const char *v) { cJSON_ReplaceItemInObject(o, k, cJSON_CreateString(v)); }
static void window_fails(cJSON *r) { set_str(case_at(r, 5), "verdict", "FAIL"); }
static void window_skipped(cJSON *r) { set_str(case_at(r, 5), "verdict", "SKIP"); }
static void golden_only(cJSON *r)
{
    for (int i = 8; i >= 6; i--)
        cJSON_DeleteItemFromArray(cJSON_GetObjectItem(r, "cases"), i);
}
static void no_window(cJSON *r)
{
    golden_only(r);
    cJSON_DeleteItemFromArray(cJSON_GetObjectItem(r, "cases"), 5);
    cJSON_DeleteItemFromArray(cJSON_GetObjectItem(r, "cases"), 4);
}
static void one_fresh_missing(cJSON *r) { cJSON_DeleteItemFromArray(cJSON_GetObjectItem(r, "cases"), 7); }
static void fresh_elsewhere(cJSON *r) { set_str(case_at(r, 6), "id", "mlp13k/fresh-window/1-4"); }
static void another_seed(cJSON *r) { set_str(cJSON_GetObjectItem(r, "options"), "seed", "12346"); }
static void profile_uncovered(cJSON *r)
{
    cJSON *pf = cJSON_CreateObject();
    cJSON_AddStringToObject(pf, "profile", "gptchar");
    cJSON_AddNumberToObject(pf, "steps", 500);
    cJSON_AddItemToArray(cJSON_GetObjectItem(cJSON_GetObjectItem(r, "vectors"), "profiles"), pf);
}
static void filtered(cJSON *r)
{
    cJSON_AddItemToArray(cJSON_GetObjectItem(cJSON_GetObjectItem(r, "options"), "filters"), cJSON_CreateString("dot"));
}
static void one_profile(cJSON *r) { set_str(cJSON_GetObjectItem(r, "options"), "profile", "p"); }
static void ops_level(cJSON *r) { set_str(cJSON_GetObjectItem(r, "options"), "level", "ops"); }
static void other_reason(cJSON *r)
{
    cJSON_AddItemToArray(cJSON_GetObjectItem(cJSON_GetObjectItem(r, "scope"), "reasons"),
                         cJSON_CreateString("subject unbound (shell form)"));
}
static void skipped_otherwise(cJSON *r) { set_str(case_at(r, 2), "reason", "not implemented"); }
static void fresh_failed(cJSON *r) { set_str(cJSON_GetObjectItem(cJSON_GetObjectItem(r, "levels"), "fresh"), "verdict", "FAIL"); }
static void a_pass(cJSON *r) { set_str(r, "verdict", "PASS"); }

Test(matrix, the_rule_of_a_certification_by_windows)
{
    cr_assert_str_eq(rule_on(NULL), "", "the good receipt is refused: %s", rule_on(NULL));
    /* each narrowing beyond --steps, and each failure, is refused by name */
    static const struct { void (*edit)(cJSON *); const char *why; } bad[] = {
        {window_fails, "a case failed"},
        {window_skipped, "a window did not pass"},
        {no_window, "no fresh window ran"},
        /* issue 27 items 1-2: windows from shipped golden states certify
         * nothing; every profile of the set needs the fresh windows its run
         * seed draws, at the drawn steps */
        {golden_only, "no fresh window ran (--windows): windows from golden states certify nothing"},
        {one_fresh_missing, "the fresh window"},
        {fresh_elsewhere, "is not in the receipt"},
        {another_seed, "is not in the receipt"},
        {profile_uncovered, "profile gptchar: the fresh window"},
        {filtered, "narrowed by more than --steps (options)"},
        {one_profile, "narrowed by more than --steps (options)"},
        {ops_level, "narrowed by more than --steps (options)"},
        {other_reason, "narrowed by more than --steps (scope reasons)"},
        {skipped_otherwise, "skipped for another reason than --steps"},
        {fresh_failed, "a level other than train did not pass"},
        {a_pass, "not a PARTIAL"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        tu_assert_has(rule_on(bad[i].edit), bad[i].why);
    /* without any window (a set that ships none) the same receipt is
     * certified to its prefix only; with anything else wrong, not even that */
    cJSON *r = windows_receipt();
    cr_assert(!prefix_only(r), "a receipt with windows is not a prefix-only one");
    golden_only(r);
    cr_assert(prefix_only(r), "golden windows alone: a prefix-only receipt (issue 27 item 2)");
    no_window(r);
    cr_assert(prefix_only(r), "no window: a prefix-only receipt");
    filtered(r);
    cr_assert(!prefix_only(r), "a filtered run is not certified to a prefix either");
    cJSON_Delete(r);
}

/* A real run of the reference on vectors/v1.2.0 with --windows --steps 2
 * (made once by mk/conformance.mk: IT_WINDOWS_RECEIPT): the matrix takes it
 * as a certification by windows, one table per profile with its windows,
 * and so does the page. */
Test(matrix, a_windows_receipt_is_a_certification_by_windows)
{
    const char *rp = tu_env("IT_WINDOWS_RECEIPT");
    tu_result r = tu_conform("matrix", "--allow-unsigned", rp, NULL);
    cr_assert_eq(r.code, 0, "%s\n%s", r.out, r.err);
    tu_assert_has(r.out, "profile addmod113:");
    tu_assert_has(r.out, "profile gptchar:");
    tu_assert_has(r.out, "profile mlp13k:");
    tu_assert_has(r.out, "PASS (windows)");
    tu_assert_has(r.out, "w 150-151");
    tu_assert_has(r.out, "w 497-500");
    tu_assert_has(r.out, "certified by windows");
    tu_assert_has(r.out, "matrix: OK");
    tu_result_free(&r);
    /* the markdown names the windows too */
    char *md = at("W.md");
    tu_conform_exits(0, "matrix", "--allow-unsigned", "--markdown", md, rp, NULL);
    char *text = tu_read(md);
    tu_assert_has(text, "### Profile gptchar");
    tu_assert_has(text, "window 250-253");
    tu_assert_has(text, "✅ pass (windows)");
    free(text);
    free(md);
    /* the page: a window column per window, the host's window list */
    char *page = at("w.html");
    tu_conform_exits(0, "report", "--allow-unsigned", "-o", page, rp, NULL);
    text = tu_read(page);
    tu_assert_has(text, "window 299\xe2\x80\x93" "300");
    tu_assert_has(text, "<h4>Windows</h4>");
    tu_assert_lacks(text, "Profile addmod113/windows");
    free(text);
    free(page);
}

/* Issue 27 item 1: a machine not in the hosts file is expected to pass, so a
 * receipt certified to a prefix only is not as expected there (its host
 * record read prefix_steps 0, "the hosts file expects a prefix", and such a
 * receipt counted as as expected). */
Test(matrix, a_machine_certified_to_a_prefix_only_is_not_as_expected)
{
    mreceipt r;
    memset(&r, 0, sizeof r);
    r.host = "m";
    r.path = "m.json";
    r.verdict = "PARTIAL";
    r.lv_ops = "PASS";
    r.lv_train = "NOT REACHED";
    r.prefix_only = 1;
    r.first_diff = -1;
    mhost h;
    mx_machine_host(&r, &h);
    mrow w;
    memset(&w, 0, sizeof w);
    w.h = &h;
    w.r = &r;
    sbuf_init(&w.why);
    sbuf_init(&w.host_bad);
    mx_judge(&w);
    cr_assert_eq(w.st, ST_PREFIX);
    cr_assert(!mx_row_ok(&w), "a prefix-only receipt of a machine counted as as expected");
    sbuf_free(&w.why);
    sbuf_free(&w.host_bad);
    free(h.name), free(h.isa), free(h.endianness), free(h.build), free(h.expected), free(h.stands_for);
}
