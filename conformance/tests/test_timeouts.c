/* The words of a time-out (spec/iut-protocol.md P8: "Past a deadline the
 * IUT is killed and the case is an ERROR"): hello, an ops case and a
 * training run that pass their deadline are ERROR cases, whose reasons name
 * the deadline and the option that raises it; the run as a whole FAILs
 * (exit 1, P10: a case failed or errored). Each has a control that stays
 * inside its deadline and shows no such word. */
#include <string.h>

#include <cjson/cJSON.h>

#include "testutil.h"
#include "core/util.h"

enum { STEPS = 4 };
TU_DIR_SUITE(timeouts, STEPS, .timeout = 90);

/* Receipts and script IUTs go beside the vector set, never in it (its
 * manifest lists every file). */
static char *aux;
static char *side(const char *name)
{
    if (!aux)
        aux = tu_tmpdir();
    return tu_at(aux, name);
}

/* A script IUT at side(name) (allocated). */
static char *script(const char *name, const char *text)
{
    char *p = side(name);
    tu_put(aux, name, text, 0755);
    return p;
}

/* The verdict of case id in the receipt at path (allocated), or NULL. */
static char *case_verdict(const char *path, const char *id)
{
    cJSON *r = tu_receipt_json(path), *c;
    char *v = NULL;
    cJSON_ArrayForEach(c, cJSON_GetObjectItem(r, "cases"))
    {
        const char *cid = cJSON_GetStringValue(cJSON_GetObjectItem(c, "id"));
        if (cid && !strcmp(cid, id) && !v)
            v = xstrdup(cJSON_GetStringValue(cJSON_GetObjectItem(c, "verdict")));
    }
    cJSON_Delete(r);
    return v;
}

static void assert_case(const char *receipt, const char *id, const char *want)
{
    char *v = case_verdict(receipt, id);
    cr_assert(v && !strcmp(v, want), "case %s: %s, expected %s", id, v ? v : "(missing)", want);
    free(v);
}

/* A training run that never ends: its run case is an ERROR naming the time-out
 * and --timeout-run/--slowdown, every step not reached is an ERROR, the run
 * FAILs. */
Test(timeouts, a_hung_training_run_is_an_error_naming_the_option)
{
    char *iut = tu_iut("hang.sh"), *rec = side("hang.json");
    tu_result r = tu_conform("run", "--iut-exec", iut, "--vectors", dir, "--level", "train", "--timeout-run", "1.5",
                             "--receipt", rec, NULL);
    cr_assert_eq(r.code, 1, "expected FAIL:\n%s\n%s", r.out, r.err);
    tu_assert_has(r.out, "    ERROR mlp13k/run: TIME-OUT: the training run hung: no exit within 1.5 s (time-out, P8); "
                         "the IUT was killed.");
    tu_assert_has(r.out, "needs a longer one: --timeout-run S or --slowdown F");
    tu_assert_lacks(r.out, "FAIL mlp13k/run");
    assert_case(rec, "mlp13k/run", "ERROR");
    assert_case(rec, "mlp13k/0", "ERROR");
    tu_result_free(&r);
    free(iut);
    free(rec);
}

/* Control: the reference under the same options passes its run case, and no
 * time-out is said. */
Test(timeouts, a_training_run_within_its_deadline_says_no_time_out)
{
    char *rec = side("ref.json");
    tu_result r = tu_conform("run", "--iut-exec", tu_env("IT_REF_CLI"), "--vectors", dir, "--level", "train",
                             "--timeout-run", "30", "--receipt", rec, NULL);
    cr_assert_eq(r.code, 3, "expected PARTIAL (--level train):\n%s\n%s", r.out, r.err);
    tu_assert_lacks(r.out, "TIME-OUT");
    tu_assert_lacks(r.out, "ERROR");
    assert_case(rec, "mlp13k/run", "PASS");
    tu_result_free(&r);
    free(rec);
}

/* An ops case without an answer: ERROR naming --timeout-case and --slowdown. */
Test(timeouts, an_unanswered_op_case_is_an_error_naming_the_option)
{
    char *iut = tu_iut("hang.sh");
    tu_result r = tu_conform("run", "--iut-exec", iut, "--vectors", dir, "--level", "ops", "--timeout-case", "1",
                             "--timeout-run", "20", NULL);
    cr_assert_eq(r.code, 1, "expected FAIL:\n%s\n%s", r.out, r.err);
    tu_assert_has(r.out, ": no response within 1.0 s (time-out, P8); the IUT was killed (a slow IUT needs a longer "
                         "one: --timeout-case S or --slowdown F)");
    tu_result_free(&r);
    free(iut);
}

/* The ops session's own deadline (--timeout-run) is named when it is the one
 * that passed: the answers come a second late, within --timeout-case but
 * after the session's 0.5 s (dot alone: no sweep adds to the session). */
Test(timeouts, an_ops_session_past_its_deadline_names_timeout_run)
{
    char *iut = script("slow_ops.sh",
           "#!/bin/sh\n"
           "case $1 in\n"
           "ops) \"$IT_REF_CLI\" ops | while IFS= read -r l; do sleep 1; printf '%s\\n' \"$l\"; done ;;\n"
           "*) exec \"$IT_REF_CLI\" \"$@\" ;;\n"
           "esac\n");
    tu_result r = tu_conform("run", "--iut-exec", iut, "--vectors", dir, "--level", "ops", "--filter", "dot",
                             "--timeout-case", "10", "--timeout-run", "0.5", NULL);
    cr_assert_eq(r.code, 1, "expected FAIL:\n%s\n%s", r.out, r.err);
    tu_assert_has(r.out, "not answered within the session's 0.5 s (time-out, P8); the IUT was killed (a slow IUT needs "
                         "a longer one: --timeout-run S or --slowdown F)");
    tu_result_free(&r);
    free(iut);
}

/* hello past its deadline: ERROR (not FAIL), with the options that set it. */
Test(timeouts, a_hung_hello_is_an_error_naming_the_option)
{
    char *iut = script("slow_hello.sh",
           "#!/bin/sh\n"
           "case $1 in\n"
           "hello) sleep 600 ;;\n"
           "*) exec \"$IT_REF_CLI\" \"$@\" ;;\n"
           "esac\n");
    char *rec = side("hello.json");
    tu_result r = tu_conform("run", "--iut-exec", iut, "--vectors", dir, "--timeout-case", "1", "--receipt", rec, NULL);
    cr_assert_eq(r.code, 1, "expected FAIL:\n%s\n%s", r.out, r.err);
    tu_assert_has(r.out, "hello: ERROR: hello: timed out after 1.0 s (killed); --timeout-case, --timeout-run or "
                         "--slowdown sets the limit");
    assert_case(rec, "hello", "ERROR");
    tu_result_free(&r);
    free(iut);
    free(rec);
}

/* Control: a hello that merely fails (exit 127) stays a FAIL. */
Test(timeouts, a_failing_hello_stays_a_fail)
{
    char *iut = script("bad_hello.sh", "#!/bin/sh\nexit 127\n");
    tu_result r = tu_conform("run", "--iut-exec", iut, "--vectors", dir, "--timeout-case", "5", NULL);
    cr_assert_eq(r.code, 1, "expected FAIL:\n%s\n%s", r.out, r.err);
    tu_assert_has(r.out, "hello: FAIL: hello: exit status 127");
    tu_assert_lacks(r.out, "hello: ERROR");
    tu_result_free(&r);
    free(iut);
}

/* A fresh-seed run that never ends (the golden run is the reference's): the
 * run case and every step it did not reach are ERROR, never FAIL. */
Test(timeouts, a_hung_fresh_seed_run_is_an_error)
{
    char *iut = script("slow_fresh.sh",
           "#!/bin/sh\n"
           "case \"$1 $*\" in\n"
           "train*--seed*) sleep 600 ;;\n"
           "esac\n"
           "exec \"$IT_REF_CLI\" \"$@\"\n");
    char *rec = side("fresh.json");
    tu_result r = tu_conform("run", "--iut-exec", iut, "--vectors", dir, "--level", "train", "--timeout-run", "2",
                             "--receipt", rec, NULL);
    cr_assert_eq(r.code, 1, "expected FAIL:\n%s\n%s", r.out, r.err);
    tu_assert_has(r.out, "    ERROR fresh/mlp13k/0: not reached: the fresh-seed run did not complete: timed out after "
                         "2.0 s (killed); --timeout-case, --timeout-run or --slowdown sets the limit");
    tu_assert_lacks(r.out, "FAIL fresh/mlp13k/");
    assert_case(rec, "mlp13k/run", "PASS");
    assert_case(rec, "fresh/mlp13k/run", "ERROR");
    assert_case(rec, "fresh/mlp13k/1", "ERROR");
    tu_result_free(&r);
    free(iut);
    free(rec);
}
