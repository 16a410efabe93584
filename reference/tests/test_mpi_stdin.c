/* Rank 0's stdin under isotrain-mpirun (reference/mpi/stdin_direct.c): the
 * pipe the launcher names is opened through the parent's descriptor, and
 * anything else is refused with a message. Each case runs the function in
 * a forked child whose parent (this test) holds the pipe, as mpirun does;
 * the child reports through its exit status and a message pipe. The suite
 * links only libisotrain.a, so stdin_direct.c is compiled in directly. */
#define _GNU_SOURCE /* fork, pipe, setenv, mkfifo, alarm with -std=c11 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "stdin_direct.h"
#include "testutil.h"

/* What a child saw: the function's result, its message, what it then read
 * on fd 0 (to end of input). */
typedef struct {
    int rc;
    char err[512];
    char data[256];
} seen;

/* Runs it_mpi_take_launcher_stdin in a child with IT_MPI_STDIN_ENV = value
 * (unset when NULL), after the child closed every descriptor in close_fds
 * (-1 ends the list: its copies of the pipe, so only the parent's remain). */
static seen run_child(const char *value, const int *close_fds)
{
    int rep[2];
    cr_assert_eq(pipe(rep), 0);
    pid_t pid = fork();
    cr_assert_neq(pid, -1);
    if (pid == 0) {
        alarm(20); /* a read that never ends (a pipe wrongly taken) fails the case, not the suite */
        close(rep[0]);
        for (const int *f = close_fds; f && *f >= 0; f++)
            close(*f);
        if (value)
            setenv(IT_MPI_STDIN_ENV, value, 1);
        else
            unsetenv(IT_MPI_STDIN_ENV);
        seen s;
        memset(&s, 0, sizeof s);
        s.rc = it_mpi_take_launcher_stdin(s.err, sizeof s.err);
        if (s.rc == 1) {
            size_t n = 0;
            ssize_t r;
            while (n < sizeof s.data - 1 && (r = read(0, s.data + n, sizeof s.data - 1 - n)) > 0)
                n += (size_t)r;
        }
        ssize_t w = write(rep[1], &s, sizeof s);
        _exit(w == (ssize_t)sizeof s ? 0 : 1);
    }
    close(rep[1]);
    seen s;
    memset(&s, 0, sizeof s);
    ssize_t got = read(rep[0], &s, sizeof s);
    close(rep[0]);
    int status;
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0 && got == (ssize_t)sizeof s, "the child failed");
    return s;
}

static void name_of(int fd, char *out, size_t cap, int ino_delta)
{
    struct stat st;
    cr_assert_eq(fstat(fd, &st), 0);
    snprintf(out, cap, "%d:%ju:%ju", fd, (uintmax_t)st.st_dev, (uintmax_t)st.st_ino + (uintmax_t)ino_delta);
}

Test(mpi_stdin, without_the_variable_stdin_is_left_alone)
{
    seen s = run_child(NULL, NULL);
    cr_assert_eq(s.rc, 0, "%s", s.err);
}

Test(mpi_stdin, the_parents_pipe_becomes_stdin_and_its_writers_close_is_end_of_input)
{
    int p[2];
    cr_assert_eq(pipe(p), 0);
    static const char msg[] = "id=a op=exp x=3f800000\nid=b op=exp x=00000000\n";
    cr_assert_eq(write(p[1], msg, sizeof msg - 1), (ssize_t)(sizeof msg - 1));
    char v[96];
    name_of(p[0], v, sizeof v, 0);
    /* the child keeps no copy of either end: what it reads is through the
     * parent's descriptor, and end of input needs the write end closed */
    int closes[] = {p[0], p[1], -1};
    close(p[1]);
    seen s = run_child(v, closes);
    close(p[0]);
    cr_assert_eq(s.rc, 1, "%s", s.err);
    cr_assert_str_eq(s.data, msg);
}

Test(mpi_stdin, a_named_fifo_whose_writer_has_gone_is_read_not_waited_for)
{
    char dir[] = "/tmp/it-mpi-stdin-XXXXXX", path[64];
    cr_assert_not_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/in", dir);
    cr_assert_eq(mkfifo(path, 0600), 0);
    int r = open(path, O_RDONLY | O_NONBLOCK), w = open(path, O_WRONLY);
    cr_assert(r >= 0 && w >= 0);
    cr_assert_eq(write(w, "x\n", 2), 2);
    close(w);
    char v[96];
    name_of(r, v, sizeof v, 0);
    int closes[] = {r, -1};
    seen s = run_child(v, closes);
    close(r);
    unlink(path);
    rmdir(dir);
    cr_assert_eq(s.rc, 1, "%s", s.err);
    cr_assert_str_eq(s.data, "x\n");
}

Test(mpi_stdin, another_pipe_is_refused)
{
    int p[2];
    cr_assert_eq(pipe(p), 0);
    char v[96];
    name_of(p[0], v, sizeof v, 1); /* the identity of no pipe the parent holds there */
    seen s = run_child(v, NULL);
    cr_assert_eq(s.rc, -1);
    cr_assert(strstr(s.err, "is not the pipe isotrain-mpirun was given"), "%s", s.err);
    cr_assert(strstr(s.err, IT_MPI_STDIN_ENV), "%s", s.err);
}

Test(mpi_stdin, a_descriptor_the_parent_does_not_hold_is_refused)
{
    seen s = run_child("987:1:2", NULL);
    cr_assert_eq(s.rc, -1);
    cr_assert(strstr(s.err, "cannot open the request pipe as /proc/"), "%s", s.err);
    cr_assert(strstr(s.err, "/fd/987"), "%s", s.err);
}

Test(mpi_stdin, a_regular_file_is_refused)
{
    char path[] = "/tmp/it-mpi-stdin-file-XXXXXX";
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    unlink(path);
    char v[96];
    name_of(fd, v, sizeof v, 0);
    seen s = run_child(v, NULL);
    close(fd);
    cr_assert_eq(s.rc, -1);
    cr_assert(strstr(s.err, "is not the pipe"), "%s", s.err);
}

Test(mpi_stdin, malformed_values_are_refused_with_the_expected_form)
{
    static const char *bad[] = {"", "x:1:2", "3:4", "3:4:5junk", "-1:2:3", " 3:4:5", "3:4:5:6", "+3:4:5", "3:-4:5", "3::5"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        seen s = run_child(bad[i], NULL);
        cr_assert_eq(s.rc, -1, "'%s' was accepted", bad[i]);
        cr_assert(strstr(s.err, "expected FD:DEV:INO"), "'%s': %s", bad[i], s.err);
    }
}
