/* The process driver (spec/iut-protocol.md P1, P3, P8) on plain shell
 * commands: time-outs kill the whole process group, signals and exit codes
 * are told apart, stderr keeps its last 4 KiB, caps hold. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "protocol/iut_keeper.h"
#include "protocol/iut_process.h"
#include "protocol/proc_table.h"
#include "testutil.h"
#include "core/util.h"

/* Runs a shell command line as an IUT's verb `verb` under the keeper, with
 * a time-out and a stdout cap; the driver itself must not fail. */
static iut_result run_sh(const char *cmd, const char *verb, const char *const *args, size_t nargs, double timeout,
                         size_t cap)
{
    contain_init();
    iut_result r;
    char err[256];
    cr_assert_eq(iut_run(cmd, verb, args, nargs, NULL, timeout, 1, cap, NULL, NULL, &r, err, sizeof err), 0, "%s",
                 err);
    return r;
}

Test(process, p1_passes_verb_and_args_unquoted)
{
    const char *args[] = {"a b", "$HOME", "'q'"};
    iut_result r = run_sh("printf '%s|'", "verb", args, 3, 10, 4096);
    cr_assert(r.exited_ok);
    cr_assert_str_eq(r.out, "verb|a b|$HOME|'q'|");
    iut_result_free(&r);
}

Test(process, timeout_kills_the_group)
{
    double t0 = now_s();
    /* a background child holding stdout open must not keep the runner waiting */
    iut_result r = run_sh("sleep 100 & sleep 100; :", "x", NULL, 0, 0.5, 4096);
    cr_assert(r.timed_out);
    cr_assert(!r.exited_ok);
    cr_assert(now_s() - t0 < 5, "took %.1f s", now_s() - t0);
    tu_assert_has(r.status_text, "timed out after 0.5 s (killed)");
    iut_result_free(&r);
}

Test(process, leftover_children_do_not_block)
{
    double t0 = now_s();
    iut_result r = run_sh("(sleep 100 &); echo done; :", "x", NULL, 0, 20, 4096);
    cr_assert(r.exited_ok, "%s", r.status_text);
    cr_assert(now_s() - t0 < 5, "took %.1f s", now_s() - t0);
    tu_assert_has(r.out, "done");
    iut_result_free(&r);
}

Test(process, signal_and_status)
{
    iut_result r = run_sh("kill -SEGV $$; :", "x", NULL, 0, 10, 4096);
    cr_assert_eq(r.signal, 11);
    tu_assert_has(r.status_text, "SIGSEGV");
    iut_result_free(&r);
    r = run_sh("exit 7; :", "x", NULL, 0, 10, 4096);
    cr_assert_eq(r.exit_code, 7);
    cr_assert_str_eq(r.status_text, "exit status 7");
    iut_result_free(&r);
}

Test(process, stderr_tail_is_the_last_4_KiB)
{
    iut_result r = run_sh("head -c 10000 /dev/zero | tr '\\0' a >&2; echo END >&2; :", "x", NULL, 0, 10, 4096);
    cr_assert_eq(strlen(r.err_tail), 4096);
    cr_assert(strstr(r.err_tail, "aaaaEND\n"));
    iut_result_free(&r);
}

Test(process, stdout_cap_kills)
{
    iut_result r = run_sh("yes; :", "x", NULL, 0, 10, 1000);
    cr_assert(r.out_overflow);
    cr_assert_eq(r.out_len, 1000);
    tu_assert_has(r.status_text, "stdout exceeds the 1000-byte cap");
    iut_result_free(&r);
}

Test(process, lines_and_pipelining)
{
    contain_init();
    iut_proc p;
    char err[256];
    cr_assert_eq(iut_spawn(&p, "cat", "-", NULL, 0, 1, NULL, err, sizeof err), 0);
    /* 8 MiB through cat: only works if writing and reading interleave */
    sbuf in;
    sbuf_init(&in);
    for (int i = 0; i < 100000; i++)
        sbuf_printf(&in, "line %d %s\n", i, "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx");
    size_t done = 0;
    int lines = 0;
    double deadline = now_s() + 30;
    while (lines < 100000 && now_s() < deadline) {
        iut_pump(&p, in.p, in.len, &done, deadline, 0.1);
        if (done == in.len)
            iut_close_stdin(&p);
        const char *l;
        size_t n;
        while (iut_next_line(&p, 1000, &l, &n) == 1) {
            char want[32];
            snprintf(want, sizeof want, "line %d ", lines);
            cr_assert(n > strlen(want) && memcmp(l, want, strlen(want)) == 0, "line %d: %.*s", lines, (int)n, l);
            lines++;
        }
    }
    cr_assert_eq(lines, 100000);
    cr_assert_eq(iut_wait(&p, now_s() + 5), 0);
    cr_assert(iut_exited_ok(&p));
    iut_release(&p);
    sbuf_free(&in);
}

/* protocol/proc_table.h: the tree below a process, at any depth, in any row
 * order (a child may be listed before its parent), and a real scan. */
Test(process, proc_table_marks_the_tree_below_a_process)
{
    const proc_row rows[] = {{12, 11, 'S', 5}, {10, 1, 'S', 1}, {11, 10, 'S', 2}, {20, 1, 'S', 3},
                             {13, 10, 'Z', 4}, {21, 20, 'R', 6}};
    const size_t n = sizeof rows / sizeof *rows;
    unsigned char mark[sizeof rows / sizeof *rows];
    cr_assert_eq(proc_table_mark_descendants(rows, n, 10, mark), 3);
    const unsigned char want10[] = {1, 0, 1, 0, 1, 0};
    cr_assert_arr_eq(mark, want10, n);
    cr_assert_eq(proc_table_mark_descendants(rows, n, 12, mark), 0, "a leaf has no descendants");
    cr_assert_eq(proc_table_mark_descendants(rows, n, 1, mark), 6);

    size_t m;
    proc_row *all = proc_table_scan(&m);
    int found = 0;
    for (size_t i = 0; i < m; i++)
        if (all[i].pid == (long)getpid()) {
            found = 1;
            cr_assert_eq(all[i].ppid, (long)getppid());
            cr_assert_neq(all[i].start, 0ull, "the start time (field 22) was read");
        }
    free(all);
    cr_assert(found || access("/proc/self/stat", R_OK) != 0, "the test process is in the scan");
}
