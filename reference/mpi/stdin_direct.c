/* Rank 0 reads the runner's requests from the runner's own pipe, never
 * through mpirun's stdin forwarding (Open MPI 4's IOF). That forwarding
 * crashes mpirun itself: when mpirun reads end of input while chunks for
 * rank 0 are still queued (the pipe to rank 0 full), the write handler that
 * then delivers the end-of-input marker frees the sink's write event
 * (sink->wev = NULL) while a read of stdin it re-armed is still pending;
 * that read sees end of input again and reads sink->wev->outputs:
 * SIGSEGV at address 0x88 in orte_iof_hnp_read_local_handler
 * (open-mpi/ompi#7483; about 1 ops session in 10 on 2 ranks on a loaded
 * machine). No setting of mpirun avoids it, so isotrain-mpirun starts
 * mpirun with --stdin none and names the pipe here; the pipe is opened anew
 * through the parent's descriptor, /proc/PPID/fd/FD (a pipe opened that way
 * is the same pipe: what the runner writes, rank 0 reads, and the runner's
 * close is rank 0's end of input). */
#define _GNU_SOURCE /* O_CLOEXEC with -std=c11 */
#include "stdin_direct.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The parent's pid as /proc numbers it (the runner may run the IUT in a PID
 * namespace of its own without a /proc of its own: getppid() would be the
 * namespace's number, /proc/self/stat gives /proc's). */
static long proc_ppid(void)
{
    char buf[512];
    FILE *f = fopen("/proc/self/stat", "r");
    if (!f)
        return -1;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *p = strrchr(buf, ')'); /* the command name may hold anything but ends at the last ')' */
    char state;
    long ppid;
    if (!p || sscanf(p + 1, " %c %ld", &state, &ppid) != 2 || ppid <= 0)
        return -1;
    return ppid;
}

int it_mpi_take_launcher_stdin(char *err, size_t cap)
{
    const char *v = getenv(IT_MPI_STDIN_ENV);
    if (!v)
        return 0;
    int fdn = -1, used = 0;
    uintmax_t dev, ino;
    if (v[strspn(v, "0123456789:")] != '\0' ||
        sscanf(v, "%d:%" SCNuMAX ":%" SCNuMAX "%n", &fdn, &dev, &ino, &used) != 3 || v[used] != '\0' || fdn < 0) {
        snprintf(err, cap, "%s='%s': expected FD:DEV:INO (decimal), as isotrain-mpirun sets it", IT_MPI_STDIN_ENV, v);
        return -1;
    }
    long ppid = proc_ppid();
    if (ppid < 0) {
        snprintf(err, cap, "%s: cannot read the parent's pid from /proc/self/stat", IT_MPI_STDIN_ENV);
        return -1;
    }
    char path[64];
    snprintf(path, sizeof path, "/proc/%ld/fd/%d", ppid, fdn);
    /* O_NONBLOCK: a named FIFO whose writer has gone would block the open
     * forever (its data is still there for the reader) */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, cap,
                 "%s=%s: cannot open the request pipe as %s (%s): rank 0 must be started by isotrain-mpirun's "
                 "mpirun on its host",
                 IT_MPI_STDIN_ENV, v, path, strerror(errno));
        return -1;
    }
    struct stat st;
    memset(&st, 0, sizeof st);
    if (fstat(fd, &st) != 0 || !S_ISFIFO(st.st_mode) || (uintmax_t)st.st_dev != dev || (uintmax_t)st.st_ino != ino) {
        snprintf(err, cap,
                 "%s=%s: %s is not the pipe isotrain-mpirun was given (device %ju, inode %ju): rank 0 must be "
                 "started by isotrain-mpirun's mpirun on its host",
                 IT_MPI_STDIN_ENV, v, path, (uintmax_t)st.st_dev, (uintmax_t)st.st_ino);
        close(fd);
        return -1;
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) != 0 || dup2(fd, 0) != 0) {
        snprintf(err, cap, "%s: making %s rank 0's stdin: %s", IT_MPI_STDIN_ENV, path, strerror(errno));
        close(fd);
        return -1;
    }
    close(fd);
    return 1;
}
