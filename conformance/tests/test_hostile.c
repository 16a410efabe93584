/* Hostile IUTs and inputs against the runner's defences (spec/iut-protocol.md
 * P8): every one of these hung the runner, passed wrongly or crashed it
 * before containment, absolute deadlines, capped non-following reads, linear
 * parsing, strict ends and XML-safe output. Each test is bounded in seconds
 * and asserts the time it took. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "core/util.h"
#include "testutil.h"

enum { STEPS = 6 };
static char *dir;  /* the fixture vector set */
static char *work; /* everything else: the IUTs' pid files, receipts, TMPDIRs */

static void setup(void)
{
    dir = tu_tmpdir();
    tu_fixture(dir, STEPS);
    work = tu_tmpdir();
    setenv("IT_ESCAPE_DIR", work, 1);
}

static void teardown(void)
{
    tu_rmtree(dir);
    tu_rmtree(work);
    free(dir);
    free(work);
}

TestSuite(hostile, .init = setup, .fini = teardown, .timeout = 90);

static void sleep_s(double s)
{
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

static tu_result run_level(const char *script, const char *level)
{
    char *iut = tu_iut(script);
    tu_result r = tu_conform("run", "--iut-exec", iut, "--vectors", dir, "--level", level, "--timeout-case", "3",
                             "--timeout-run", "20", NULL);
    free(iut);
    return r;
}

static void assert_not_pass(const tu_result *r)
{
    cr_assert_eq(r->signal, 0, "the runner died of signal %d", r->signal);
    cr_assert(r->code != 0, "exit 0 (a pass) for a hostile IUT:\n%s", r->out);
    tu_assert_lacks(r->out, "summary: PASS");
}

/* 1 while the process runs: not gone and not a zombie (a killed process
 * stays in /proc until whoever inherited it reaps it, which PID 1 of a
 * container may do late). A SIGKILL is delivered asynchronously, so a
 * process is given up to 2 s to die before it counts as alive. */
static int process_exists(long pid)
{
    char p[64];
    snprintf(p, sizeof p, "/proc/%ld/stat", pid);
    for (int i = 0; i < 40; i++) {
        FILE *f = fopen(p, "r");
        if (!f)
            return 0;
        char buf[512];
        size_t n = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
        buf[n] = '\0';
        const char *close = strrchr(buf, ')');
        if (!close || close[1] != ' ' || close[2] == 'Z' || close[2] == 'X')
            return 0;
        sleep_s(0.05);
    }
    return 1;
}

/* Runs the runner as a plain child of this test process, which is not a
 * subreaper (testutil's tu_conform runs it through the runner's own process
 * driver, whose containment would hide a runner that lacks it). Returns the
 * wait status. */
static int run_direct(const char *level, const char *iut_script)
{
    char *iut = tu_iut(iut_script);
    const char *conform = tu_env("IT_CONFORM");
    pid_t pid = fork();
    cr_assert(pid >= 0);
    if (pid == 0) {
        int devnull = open("/dev/null", O_WRONLY);
        dup2(devnull, 1);
        dup2(devnull, 2);
        execl(conform, conform, "run", "--iut-exec", iut, "--vectors", dir, "--level", level, "--timeout-case", "3",
              "--timeout-run", "20", (char *)NULL);
        _exit(127);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    free(iut);
    return st;
}

/* A child that setsid()s out of the IUT's process group is killed with the
 * verb that started it, ops and train alike, and never gets to write. */
Test(hostile, setsid_children_do_not_outlive_their_verb)
{
    int st = run_direct("all", "escape.sh");
    long ops = tu_read_pid(work, "pid.ops"), train = tu_read_pid(work, "pid.train");
    int ops_alive = ops > 0 && process_exists(ops), train_alive = train > 0 && process_exists(train);
    if (ops_alive) /* do not leave them behind when the assertion fails */
        kill((pid_t)ops, SIGKILL);
    if (train_alive)
        kill((pid_t)train, SIGKILL);
    cr_assert(WIFEXITED(st), "the runner died: wait status 0x%x", st);
    cr_assert(ops > 0 && train > 0, "the IUT did not start its escapees");
    cr_assert(!ops_alive, "the ops verb's setsid child %ld outlived the runner", ops);
    cr_assert(!train_alive, "the train verb's setsid child %ld outlived the runner", train);
    sleep_s(2.5); /* the escapee would have written by now */
    char *pwned = xasprintf("%s/pwned", work);
    struct stat sb;
    cr_assert(stat(pwned, &sb) != 0, "a child of the IUT wrote %s after the runner was done", pwned);
    free(pwned);
}

/* Starts the runner with TMPDIR=tmp, lets it run `after` seconds, sends sig. */
static int interrupt_runner(const char *tmp, const char *receipt, int sig, double after, double *seconds)
{
    char *iut = tu_iut("slow_train.sh");
    const char *conform = tu_env("IT_CONFORM");
    double t0 = now_s();
    pid_t pid = fork();
    cr_assert(pid >= 0);
    if (pid == 0) {
        setenv("TMPDIR", tmp, 1);
        int devnull = open("/dev/null", O_WRONLY);
        dup2(devnull, 1);
        execl(conform, conform, "run", "--iut-exec", iut, "--vectors", dir, "--level", "train", "--receipt", receipt,
              (char *)NULL);
        _exit(127);
    }
    sleep_s(after);
    kill(pid, sig);
    int st = 0;
    for (int i = 0; i < 200 && waitpid(pid, &st, WNOHANG) == 0; i++)
        sleep_s(0.05);
    if (waitpid(pid, &st, WNOHANG) == 0) { /* still there after 10 s: a failure, but clean up */
        kill(pid, SIGKILL);
        waitpid(pid, &st, 0);
        long iut_pid = tu_read_pid(work, "pid.train");
        if (iut_pid > 0)
            kill((pid_t)iut_pid, SIGKILL);
        cr_assert_fail("the runner did not exit within 10 s of signal %d", sig);
    }
    *seconds = now_s() - t0;
    free(iut);
    return st;
}

/* SIGTERM/SIGINT/SIGHUP: the IUT tree is killed, the work directory removed,
 * an ERROR receipt written, and the exit status says which signal. */
Test(hostile, interrupted_runner_cleans_up)
{
    static const int sigs[] = {SIGTERM, SIGINT, SIGHUP};
    for (size_t k = 0; k < 3; k++) {
        char *tmp = xasprintf("%s/tmp%zu", work, k), *rcpt = xasprintf("%s/receipt%zu.json", work, k);
        mkdir(tmp, 0777);
        char *pidf = xasprintf("%s/pid.train", work);
        unlink(pidf);
        double secs;
        int st = interrupt_runner(tmp, rcpt, sigs[k], 1.5, &secs);
        cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 128 + sigs[k], "signal %d: wait status 0x%x", sigs[k], st);
        cr_assert(secs < 10, "took %.1f s", secs);
        long iut = tu_read_pid(work, "pid.train");
        cr_assert(iut > 0, "the IUT never started");
        int alive = process_exists(iut);
        if (alive)
            kill((pid_t)iut, SIGKILL);
        cr_assert(!alive, "the IUT (pid %ld) outlived the interrupted runner", iut);
        tu_result ls = tu_sh(xasprintf("ls -A '%s'", tmp));
        cr_assert_str_eq(ls.out, "", "work directories left behind in TMPDIR: %s", ls.out);
        tu_result_free(&ls);
        cJSON *j = tu_receipt_json(rcpt);
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, "verdict");
        cr_assert(cJSON_IsString(v) && !strcmp(v->valuestring, "ERROR"), "receipt verdict %s",
                  cJSON_IsString(v) ? v->valuestring : "(none)");
        char *text = cJSON_PrintUnformatted(j);
        tu_assert_has(text, "interrupted by signal");
        free(text);
        cJSON_Delete(j);
        free(tmp), free(rcpt), free(pidf);
    }
}

/* A script IUT told by the environment variable `var` which way to
 * misbehave (`how`) at one level: not a pass, saying `level_says` (unless
 * NULL) and `expect`, in seconds. */
static void misbehaves(const char *script, const char *level, const char *var, const char *how,
                       const char *level_says, const char *expect)
{
    setenv(var, how, 1);
    tu_result r = run_level(script, level);
    assert_not_pass(&r);
    if (level_says)
        tu_assert_has(r.out, level_says);
    tu_assert_has(r.out, expect);
    cr_assert(r.seconds < 20, "%s: took %.1f s", how, r.seconds);
    tu_result_free(&r);
}

/* A file the IUT leaves where a trace or checkpoint belongs, that is not a
 * regular file within the cap, is a FAIL naming the file, in seconds. */
static void bad_file(const char *kind, const char *expect)
{
    misbehaves("bad_files.sh", "train", "IT_BAD_FILE", kind, NULL, expect);
}

Test(hostile, trace_fifo)
{
    bad_file("trace-fifo", "the trace cannot be read (P8): trace.txt: is a FIFO, not a regular file");
}

Test(hostile, trace_link_to_stdin)
{
    bad_file("trace-stdin", "the trace cannot be read (P8): trace.txt: is a symbolic link (files from the IUT are not followed)");
}

Test(hostile, checkpoint_fifo)
{
    bad_file("ck-fifo", "checkpoint step-000002.bin: is a FIFO, not a regular file");
}

Test(hostile, checkpoint_link_to_pagemap)
{
    bad_file("ck-pagemap", "checkpoint step-000001.bin: is a symbolic link (files from the IUT are not followed)");
}

Test(hostile, checkpoint_directory_replaced_by_a_link)
{
    bad_file("ckdir-link", "checkpoint the checkpoint directory is not a directory the runner made (replaced by a link or a file)");
}

/* `repeat` and `compare` read IUT files the same way. */
Test(hostile, repeat_and_compare_refuse_fifos)
{
    setenv("IT_BAD_FILE", "trace-fifo", 1);
    char *iut = tu_iut("bad_files.sh");
    tu_result r = tu_conform("repeat", "--runs", "2", "--iut", iut, "--profile", "mlp13k", "--steps", "3", NULL);
    cr_assert_eq(r.code, 1, "exit %d\n%s\n%s", r.code, r.out, r.err);
    tu_assert_has(r.out, "trace.txt: is a FIFO, not a regular file");
    cr_assert(r.seconds < 20, "took %.1f s", r.seconds);
    tu_result_free(&r);
    char *fifo = xasprintf("%s/fifo", work);
    cr_assert(mkfifo(fifo, 0600) == 0);
    r = tu_conform("compare", fifo, fifo, NULL);
    cr_assert_eq(r.code, 2, "exit %d\n%s\n%s", r.code, r.out, r.err);
    tu_assert_has(r.err, "is a FIFO, not a regular file");
    cr_assert(r.seconds < 10, "took %.1f s", r.seconds);
    tu_result_free(&r);
    free(fifo);
    free(iut);
}

/* Reading requests slowly is not answering them: the deadline of a case
 * counts from its start, whatever the IUT reads meanwhile. The published
 * set's requests are large enough that the trickle would go on for minutes. */
Test(hostile, trickle_reader_times_out)
{
    tu_result r = tu_run_script("trickle.sh", tu_env("IT_VECTORS"), "--level", "ops", "--timeout-case", "3", NULL);
    assert_not_pass(&r);
    tu_assert_has(r.out, "no response within 3.0 s (time-out, P8); the IUT was killed");
    cr_assert(r.seconds < 30, "took %.1f s", r.seconds);
    tu_result_free(&r);
}

/* A legal 3.5 MiB response of 300,000 distinct keys is judged in linear time. */
Test(hostile, many_distinct_keys_are_judged_quickly)
{
    tu_result r = run_level("many_keys.sh", "ops");
    assert_not_pass(&r);
    tu_assert_has(r.out, "FAIL dot/1 [OrderSensitive]: missing output key y (P3)");
    cr_assert(r.seconds < 20, "took %.1f s", r.seconds);
    tu_result_free(&r);
}

/* P3: every answer right, and then the wrong end: the cases keep their
 * verdicts, the level is ERROR with the reason, the run does not pass. */
static void bad_end(const char *how, const char *expect)
{
    misbehaves("bad_end.sh", "ops", "IT_BAD_END", how, "level ops: ERROR (5 passed, 0 failed", expect);
}

Test(hostile, ops_crash_after_the_last_answer)
{
    bad_end("crash", "the ops process answered every request, then ended with killed by signal 11 (SIGSEGV");
}

Test(hostile, ops_nonzero_exit_after_the_last_answer)
{
    bad_end("nonzero", "the ops process answered every request, then ended with exit status 3 (P3: it exits 0 at end of input)");
}

Test(hostile, ops_never_exits_after_the_last_answer)
{
    bad_end("hang", "the ops process did not exit after its last response and the end of input (P3); killed at the deadline");
}

Test(hostile, ops_unsolicited_line_after_the_last_answer)
{
    bad_end("extra", "the ops process printed 26 bytes after its last response (P3: one line per request, nothing more): \"id=unsolicited y=00000000");
}

/* Whatever the IUT sends, junit.xml is well-formed XML (checked by Python's
 * own XML parser, not by the code that wrote it). */
Test(hostile, junit_stays_well_formed)
{
    char *iut = tu_iut("ufffe.sh");
    char *jp = xasprintf("%s/junit.xml", work);
    tu_result r = tu_conform("run", "--iut-exec", iut, "--vectors", dir, "--level", "ops", "--junit", jp, NULL);
    assert_not_pass(&r);
    char *cmd = xasprintf("python3 -c 'import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1]); print(\"well-formed\")' '%s'", jp);
    tu_result x = tu_sh(cmd);
    cr_assert_eq(x.code, 0, "junit.xml is not well-formed XML: %s", x.err);
    tu_assert_has(x.out, "well-formed");
    char *text = tu_read(jp);
    tu_assert_has(text, "bad\\u{FFFE}x");
    free(text);
    tu_result_free(&x);
    tu_result_free(&r);
    free(cmd), free(jp), free(iut);
}

/* A count in a vector file sizes nothing before it is checked: 2^32 - 2
 * steps (manifest recomputed, so the set is self-consistent) is a lint
 * problem naming the field, not an abort for want of memory. */
Test(hostile, huge_step_count_in_a_vector_file)
{
    tu_edit(dir, "train/mlp13k.json", "\"steps\":\t6", "\"steps\":\t4294967294");
    tu_remanifest(dir);
    tu_result r = tu_conform("lint", dir, NULL);
    cr_assert_eq(r.code, 2, "exit %d\n%s\n%s", r.code, r.out, r.err);
    tu_assert_has(r.out, "$.trace");
    tu_assert_has(r.out, "4294967295 entries (one per step 0..steps)");
    cr_assert(r.seconds < 10, "took %.1f s", r.seconds);
    tu_result_free(&r);
}
