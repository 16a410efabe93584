/* The receipt (design brief, "Receipts") and JUnit XML of a run. */
#include <cjson/cJSON.h>
#include <string.h>

#include "host/hostinfo.h"
#include "report/junit.h"
#include "report/receipt.h"
#include "testutil.h"
#include "core/util.h"
#include "core/version.h"

TU_DIR_SUITE(receipt, 3, .timeout = 60);

static cJSON *get(cJSON *o, const char *path)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *k = strtok(buf, "."); k && o; k = strtok(NULL, "."))
        o = cJSON_GetObjectItemCaseSensitive(o, k);
    cr_assert(o, "receipt has no %s", path);
    return o;
}

Test(receipt, records_what_the_brief_lists)
{
    char *rp = xasprintf("%s/receipts/receipt.json", dir), *jp = xasprintf("%s/receipts/junit.xml", dir);
    const char *ref = tu_env("IT_REF_CLI");
    tu_result r = tu_conform("run", "--iut-exec", ref, "--vectors", dir, "--receipt", rp, "--junit", jp, "--seed", "7",
                             NULL);
    /* the fixture is not a pinned set: the best it can give is UNOFFICIAL */
    cr_assert_eq(r.code, 4, "%s%s", r.out, r.err);
    char *text = tu_read(rp);
    cJSON *j = tu_receipt_json(rp);
    cr_assert_str_eq(get(j, "schema")->valuestring, "isotrain-receipt-v1");
    cr_assert_str_eq(get(j, "suite.version")->valuestring, CONFORM_VERSION);
    cr_assert(strlen(get(j, "suite.git_revision")->valuestring) > 0);
    cr_assert_str_eq(get(j, "suite.reference_kernels")->valuestring, "portable");
    /* bound to the manifest digest */
    char *man = xasprintf("%s/MANIFEST.json", dir);
    char *mt = tu_read(man);
    cJSON *m = cJSON_Parse(mt);
    cr_assert_str_eq(get(j, "vectors.manifest_digest")->valuestring, get(m, "manifest_digest")->valuestring);
    cr_assert_str_eq(get(j, "vectors.vector_version")->valuestring, "1.0.0");
    /* the IUT */
    cr_assert_str_eq(get(j, "iut.command")->valuestring, ref);
    tu_assert_has(get(j, "iut.hello")->valuestring, "protocol=1 name=isotrain-reference");
    cr_assert_str_eq(get(j, "iut.name")->valuestring, "isotrain-reference");
    char hex[65], err[128];
    cr_assert_eq(sha256_file(ref, hex, NULL, err, sizeof err), 0);
    cr_assert_str_eq(get(j, "iut.binary.sha256")->valuestring, hex);
    cr_assert_str_eq(get(j, "iut.binary.sha256_after")->valuestring, hex);
    cr_assert(cJSON_IsString(get(j, "iut.self_report.values.isa")), "info's key=value lines are recorded");
    /* the host */
    cr_assert(strlen(get(j, "host.isa")->valuestring) > 0);
    cr_assert(strlen(get(j, "host.cpu_flags")->valuestring) > 0);
    tu_assert_has(get(j, "host.os")->valuestring, "Linux");
    tu_assert_has(get(j, "host.libc")->valuestring, "glibc");
    cr_assert(cJSON_IsNull(get(j, "emulator")));
    /* cases, levels, verdict, timings */
    cJSON *cases = get(j, "cases");
    /* hello, 6 op cases, the ops session, run + 4 steps, then the fresh
     * cases: exp 20, dot 16, linear 16 (FRESH_MIN_PER_GROUP or more each),
     * their ops session, the fresh-seed run (run + 21 steps) and, since
     * the reference advertises train_resume=1, the run resumed from its own
     * state of step 10 (issue 27 item 6) */
    size_t n_fresh = 0;
    cJSON *c;
    cJSON_ArrayForEach(c, cases) n_fresh += !strcmp(cJSON_GetObjectItem(c, "level")->valuestring, "fresh");
    cr_assert_eq((size_t)cJSON_GetArraySize(cases), 1 + 6 + 1 + 1 + 4 + 1 + n_fresh);
    cr_assert_eq(n_fresh, 52 + 22 + 1, "fresh cases: %zu", n_fresh);
    cr_assert_str_eq(get(j, "verdict")->valuestring, "UNOFFICIAL");
    cr_assert_eq(get(j, "exit_code")->valuedouble, 4);
    cr_assert(cJSON_IsFalse(get(j, "vectors.official")));
    cr_assert(cJSON_IsFalse(get(j, "scope.full_certification")));
    /* --seed 7: a reproduction too (the verdict says the weightier UNOFFICIAL) */
    tu_assert_has(cJSON_GetArrayItem(get(j, "scope.reasons"), 0)->valuestring, "a reproduction of run seed 7");
    tu_assert_has(cJSON_GetArrayItem(get(j, "scope.reasons"), 1)->valuestring, "UNOFFICIAL vector set");
    cr_assert_str_eq(get(j, "options.seed")->valuestring, "7");
    cr_assert_str_eq(get(j, "levels.fresh.verdict")->valuestring, "PASS");
    cr_assert_eq(get(j, "levels.fresh.training.steps")->valuedouble, 20);
    cr_assert_str_eq(get(j, "level_reached")->valuestring, "train");
    cr_assert_str_eq(get(j, "levels.ops.verdict")->valuestring, "PASS");
    cr_assert_str_eq(get(j, "levels.train.verdict")->valuestring, "PASS");
    cr_assert(get(j, "timings.total")->valuedouble > 0);
    cr_assert_eq(get(j, "counts.passed")->valuedouble, 13 + (double)n_fresh);
    cr_assert_eq(get(j, "counts.skipped")->valuedouble, 1);
    /* JUnit: one suite per group/level, one case per case, and the verdict */
    char *x = tu_read(jp);
    tu_assert_has(x, "<testsuite name=\"isotrain-verdict\"");
    tu_assert_has(x, "<property name=\"verdict\" value=\"UNOFFICIAL\"/>");
    tu_assert_has(x, "<property name=\"vectors\" value=\"UNOFFICIAL\"/>");
    tu_assert_has(x, "<testsuite name=\"ops/exp\" tests=\"4\" failures=\"0\" errors=\"0\" skipped=\"1\"");
    tu_assert_has(x, "<testsuite name=\"train/mlp13k\" tests=\"5\"");
    tu_assert_has(x, "<testcase classname=\"train/mlp13k\" name=\"mlp13k/3\"");
    tu_assert_has(x, "<skipped message=\"sweep chunk or exhaustive sweep: runs with --exhaustive\"/>");
    cJSON_Delete(j);
    cJSON_Delete(m);
    free(x);
    free(mt);
    free(man);
    free(text);
    free(rp);
    free(jp);
    tu_result_free(&r);
}

Test(receipt, failures_are_escaped_in_junit)
{
    char *jp = xasprintf("%s/receipts/junit.xml", dir), *rp = xasprintf("%s/receipts/receipt.json", dir);
    char *iut = tu_iut("garbage.sh");
    tu_result r = tu_conform("run", "--iut-exec", iut, "--vectors", dir, "--junit", jp, "--receipt", rp, NULL);
    cr_assert_eq(r.code, 1);
    char *x = tu_read(jp);
    tu_assert_has(x, "<failure message=\"malformed response line (P3): token 1 &apos;this&apos; has no &apos;=&apos;: &quot;this is not a response&quot;\">");
    tu_assert_lacks(x, "\001");
    char *text = tu_read(rp);
    cJSON *j = tu_receipt_json(rp);
    cr_assert_str_eq(get(j, "verdict")->valuestring, "FAIL");
    cr_assert_str_eq(get(j, "level_reached")->valuestring, "none");
    cJSON_Delete(j);
    free(text);
    free(x);
    free(iut);
    free(jp);
    free(rp);
    tu_result_free(&r);
}

Test(receipt, xml_escape)
{
    sbuf b;
    sbuf_init(&b);
    xml_escape(&b, "a<b>&\"c'\001");
    cr_assert_str_eq(b.p, "a&lt;b&gt;&amp;&quot;c&apos;\\x01");
    sbuf_free(&b);
}

/* XML 1.0 forbids U+FFFE and U+FFFF even as character references, and a
 * byte that is not UTF-8 makes the whole document ill-formed. */
Test(receipt, xml_escape_forbidden_code_points)
{
    sbuf b;
    sbuf_init(&b);
    xml_escape(&b, "x\xef\xbf\xbey\xef\xbf\xbfz\xff\xed\xa0\x80\xc3\xa9\xf0\x9f\x98\x80");
    cr_assert_str_eq(b.p, "x\\u{FFFE}y\\u{FFFF}z\\xff\\xed\\xa0\\x80\xc3\xa9\xf0\x9f\x98\x80");
    sbuf_free(&b);
}

Test(receipt, emulator_prefix_and_binary)
{
    iut_binary b;
    iut_binary_inspect("FOO=1 qemu-aarch64 -cpu cortex-a57 -L /usr/aarch64-linux-gnu /bin/sh -c x", &b);
    cr_assert_str_eq(b.emulator, "qemu-aarch64");
    cr_assert_str_eq(b.emulator_cpu, "cortex-a57");
    cr_assert_str_eq(b.binary, "/bin/sh");
    char hex[65], err[128];
    cr_assert_eq(sha256_file("/bin/sh", hex, NULL, err, sizeof err), 0);
    cr_assert_str_eq(b.sha256, hex);
    iut_binary_free(&b);
    iut_binary_inspect("sh 'some script.sh'", &b);
    cr_assert_str_eq(b.binary, "sh");
    cr_assert(b.path && strstr(b.path, "/sh"), "sh resolves through PATH");
    cr_assert(!b.emulator);
    iut_binary_free(&b);
}
