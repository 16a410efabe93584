/* isotrain-mpirun: `mpirun ARGS...` with every file Open MPI makes for the
 * job where only the job can see it, so that no way the job ends leaves one.
 *
 *   isotrain-mpirun [mpirun options] -np N build/mpi/isotrain-mpi VERB ...
 *
 * Open MPI keeps a session directory (ompi.HOST.UID/pid.P/: PMIx's stores,
 * contact and topology files, one directory per rank) under TMPDIR and one
 * 4 MiB shared-memory segment per rank (the vader transport) in /dev/shm.
 * mpirun removes them when it ends by itself; SIGKILLed (the runner's
 * deadline, iut-protocol P8, or the runner's own death taking its process
 * tree with it) it cannot, and after SIGTERM the session directory stayed
 * too (issue 27, item 8: 3 x 4 MiB in /dev/shm per killed 3-rank run).
 *
 * So this launcher puts the job in a mount namespace of its own with a
 * fresh tmpfs on /dev/shm, and points Open MPI's session directory and
 * segments there. The kernel frees that tmpfs when the last process of the
 * namespace ends, however it ends: there is nothing for anyone to clean up.
 * As a user without CAP_SYS_ADMIN the namespace comes with a user namespace
 * that maps the user to root inside (mpirun is then told root is fine: it
 * is root only over this namespace). The launcher execs mpirun (no process
 * of its own stays): signals for the IUT reach mpirun as before.
 *
 * A pipe on stdin (the runner's op requests) is not given to mpirun to
 * forward: Open MPI 4's stdin forwarding can crash mpirun at end of input
 * (../stdin_direct.c: how). mpirun keeps the pipe on a descriptor it does
 * not read, reads /dev/null as its stdin, forwards nothing (--stdin none),
 * and exports ISOTRAIN_MPI_STDIN (-x), with which rank 0 opens that pipe
 * itself. Any other stdin (a terminal, a file) is mpirun's to forward, as
 * before.
 *
 * It refuses (exit 2) when the working directory or a path argument lies in
 * /dev/shm (the tmpfs would hide it) or --stdin is given (stdin is routed
 * here), and (exit 70) when no namespace can be made: a job that could leave
 * files behind is not started silently. */
#define _GNU_SOURCE /* unshare, CLONE_NEWNS, CLONE_NEWUSER */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <inttypes.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../stdin_direct.h" /* IT_MPI_STDIN_ENV */

#define SHM "/dev/shm"

static int under_shm(const char *path)
{
    size_t n = strlen(SHM);
    return strncmp(path, SHM, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

static int write_file(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY);
    if (fd < 0)
        return -1;
    ssize_t len = (ssize_t)strlen(text), w = write(fd, text, (size_t)len);
    close(fd);
    return w == len ? 0 : -1;
}

/* a mount namespace, as root or inside a user namespace of our own */
static int private_mounts(void)
{
    if (unshare(CLONE_NEWNS) == 0)
        return 0;
    int first = errno;
    uid_t uid = getuid();
    gid_t gid = getgid();
    if (unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0) {
        fprintf(stderr, "isotrain-mpirun: no mount namespace (%s) and no user namespace for one (%s)\n",
                strerror(first), strerror(errno));
        return -1;
    }
    char map[64];
    snprintf(map, sizeof map, "0 %lu 1\n", (unsigned long)uid);
    if (write_file("/proc/self/uid_map", map) != 0 || write_file("/proc/self/setgroups", "deny\n") != 0) {
        perror("isotrain-mpirun: mapping the user into its namespace");
        return -1;
    }
    snprintf(map, sizeof map, "0 %lu 1\n", (unsigned long)gid);
    if (write_file("/proc/self/gid_map", map) != 0) {
        perror("isotrain-mpirun: mapping the group into its namespace");
        return -1;
    }
    /* root of this namespace only */
    setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
    setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
    return 0;
}

/* The argv to exec: argv itself when stdin is no pipe; else mpirun's
 * options that route the pipe to rank 0 past mpirun, then argv's; NULL
 * (with a message) when that cannot be set up. */
static char **route_stdin(int argc, char **argv)
{
    struct stat st;
    if (fstat(0, &st) != 0 || !S_ISFIFO(st.st_mode))
        return argv;
    int keep = fcntl(0, F_DUPFD, 3); /* not close-on-exec: mpirun holds it, never reads it */
    int null = open("/dev/null", O_RDONLY);
    if (keep < 0 || null < 0 || dup2(null, 0) != 0) {
        perror("isotrain-mpirun: keeping the stdin pipe for rank 0");
        return NULL;
    }
    if (null != 0)
        close(null);
    char val[96];
    snprintf(val, sizeof val, "%d:%ju:%ju", keep, (uintmax_t)st.st_dev, (uintmax_t)st.st_ino);
    static char *routing[] = {"--stdin", "none", "-x", IT_MPI_STDIN_ENV};
    enum { R = sizeof routing / sizeof routing[0] };
    char **out = calloc((size_t)argc + R + 1, sizeof *out);
    if (!out || setenv(IT_MPI_STDIN_ENV, val, 1) != 0) {
        fprintf(stderr, "isotrain-mpirun: out of memory\n");
        return NULL;
    }
    out[0] = argv[0];
    memcpy(out + 1, routing, sizeof routing);
    memcpy(out + 1 + R, argv + 1, (size_t)(argc - 1) * sizeof *argv);
    return out;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: isotrain-mpirun [mpirun options] -np N PROGRAM ARG...\n");
        return 2;
    }
    char cwd[4096];
    if (!getcwd(cwd, sizeof cwd) || under_shm(cwd)) {
        fprintf(stderr, "isotrain-mpirun: the working directory is in " SHM
                        " (or unreadable), which the job's own tmpfs would hide: run it elsewhere\n");
        return 2;
    }
    for (int i = 1; i < argc; i++)
        if (under_shm(argv[i]) || (strncmp(argv[i], "--", 2) == 0 && strstr(argv[i], "=" SHM))) {
            fprintf(stderr, "isotrain-mpirun: argument %d ('%s') is in " SHM
                            ", which the job's own tmpfs would hide: use another directory\n",
                    i, argv[i]);
            return 2;
        }
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--stdin") == 0 || strcmp(argv[i], "-stdin") == 0) {
            fprintf(stderr, "isotrain-mpirun: argument %d ('%s'): stdin is routed by the launcher (a pipe straight "
                            "to rank 0, anything else forwarded by mpirun to rank 0): leave it out\n",
                    i, argv[i]);
            return 2;
        }
    if (private_mounts() != 0)
        return 70;
    /* nothing mounted here reaches the parent namespace, and the tmpfs is
     * this namespace's alone */
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0 ||
        mount("isotrain-mpi", SHM, "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777") != 0) {
        fprintf(stderr, "isotrain-mpirun: a private tmpfs on " SHM ": %s\n", strerror(errno));
        return 70;
    }
    /* the session directory (PMIx's stores inside it) and the segments */
    setenv("OMPI_MCA_orte_tmpdir_base", SHM, 1);
    setenv("OMPI_MCA_btl_vader_backing_directory", SHM, 1);
    const char *mpirun = getenv("ISOTRAIN_MPIRUN");
    if (!mpirun || !*mpirun)
        mpirun = "mpirun";
    argv[0] = (char *)mpirun;
    if (!(argv = route_stdin(argc, argv)))
        return 70;
    execvp(mpirun, argv);
    fprintf(stderr, "isotrain-mpirun: cannot run %s: %s\n", mpirun, strerror(errno));
    return 70;
}
