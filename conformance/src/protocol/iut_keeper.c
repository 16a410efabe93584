/* iut_keeper.c — see iut_keeper.h. */
#define _DEFAULT_SOURCE /* prctl, dirent d_type */
#define _GNU_SOURCE     /* unshare, CLONE_NEWPID */
#include "protocol/iut_keeper.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifdef __linux__
#include <sys/prctl.h>
#endif
#include <sys/resource.h>

#include "core/util.h"
#include "protocol/iut_room.h"
#include "protocol/proc_table.h"

static volatile sig_atomic_t interrupted;
/* The keepers' lifeline (contain_spawn): the runner holds the write end and
 * never writes; its death, however it dies, is EOF on the read end. */
static int lifeline[2] = {-1, -1};

static void make_lifeline(void)
{
    if (lifeline[0] >= 0)
        return;
    if (pipe(lifeline) != 0) {
        lifeline[0] = lifeline[1] = -1;
        return;
    }
    for (int i = 0; i < 2; i++)
        fcntl(lifeline[i], F_SETFD, FD_CLOEXEC);
}

static void on_signal(int s)
{
    interrupted = s;
}

void contain_init(void)
{
    signal(SIGPIPE, SIG_IGN);
#ifdef __linux__
    prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
#endif
    /* no SA_RESTART: a signal must wake poll() so the wait loops see it */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    make_lifeline();
}

int contain_interrupted(void)
{
    return interrupted;
}

#ifdef __linux__
/* Pids as /proc shows them are of the PID namespace /proc was mounted in;
 * the runner may itself run in a namespace below it (its own tests run it
 * inside one), where getpid() and kill() speak another numbering. The tree
 * is walked in /proc's numbering, from the runner's pid in it (/proc/self),
 * and each process is killed by its pid in the runner's namespace (the
 * entry of /proc/PID/status NSpid at the runner's depth). */
static long proc_self(void)
{
    char b[32];
    ssize_t n = readlink("/proc/self", b, sizeof b - 1);
    if (n <= 0)
        return (long)getpid();
    b[n] = '\0';
    return strtol(b, NULL, 10);
}

/* The NSpid entries of /proc/PID/status ("NSpid:\t812\t3"): up to 8. */
static int ns_pids(long pid, long out[8])
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%ld/status", pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    char line[256];
    int n = 0;
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, "NSpid:", 6)) {
            char *p = line + 6, *end;
            for (long v; n < 8 && (v = strtol(p, &end, 10), end != p); p = end)
                out[n++] = v;
            break;
        }
    fclose(f);
    return n;
}

/* Our depth below /proc's namespace (0: the same one). */
static int ns_depth(void)
{
    static int depth = -1;
    if (depth < 0) {
        long v[8];
        int n = ns_pids(proc_self(), v);
        depth = n > 0 ? n - 1 : 0;
    }
    return depth;
}

/* The pid to kill() for a process /proc calls pid, or -1 if it is not in
 * our namespace or below it. */
static pid_t local_pid(long pid)
{
    int d = ns_depth();
    if (d == 0)
        return (pid_t)pid;
    long v[8];
    int n = ns_pids(pid, v);
    return n > d ? (pid_t)v[d] : -1;
}

#endif

static void reap_all(void)
{
    while (waitpid(-1, NULL, WNOHANG) > 0)
        ;
}

int contain_kill_descendants(void)
{
    int killed = 0;
#ifdef __linux__
    pid_t self = (pid_t)proc_self();
    for (int round = 0; round < 200; round++) {
        size_t n;
        proc_row *rows = proc_table_scan(&n);
        unsigned char *mark = xcalloc(n ? n : 1, 1);
        size_t found = proc_table_mark_descendants(rows, n, self, mark);
        size_t live = 0;
        for (size_t i = 0; i < n; i++)
            if (mark[i] && rows[i].state != 'Z') {
                pid_t lp = local_pid(rows[i].pid);
                if (lp > 0)
                    kill(lp, SIGKILL);
                live++;
            }
        free(rows);
        free(mark);
        killed += (int)live;
        reap_all();
        if (found == 0)
            break;
        struct timespec ts = {0, 2 * 1000 * 1000}; /* let the kernel re-parent orphans to us */
        nanosleep(&ts, NULL);
    }
#else
    reap_all();
#endif
    return killed;
}

int contain_count_descendants(void)
{
#ifdef __linux__
    size_t n;
    proc_row *rows = proc_table_scan(&n);
    unsigned char *mark = xcalloc(n ? n : 1, 1);
    proc_table_mark_descendants(rows, n, proc_self(), mark);
    int live = 0;
    for (size_t i = 0; i < n; i++)
        live += mark[i] && rows[i].state != 'Z';
    free(rows);
    free(mark);
    return live;
#else
    return 0;
#endif
}

/* ---- the keeper of one IUT tree (contain_spawn) ---------------------------- */

enum { MODE_UNKNOWN, MODE_PIDNS, MODE_USERNS, MODE_KEEPER };
static int spawn_mode = MODE_UNKNOWN;
static const char *mode_names[] = {"", "pid-namespace", "user+pid-namespace", "keeper (subreaper, lifeline pipe)"};

const char *contain_mode(void)
{
    return mode_names[spawn_mode];
}

/* The IUT starts with default signal dispositions (its keeper ignores some,
 * and an ignored signal stays ignored across exec). */
static void run_iut(void (*exec_child)(void *), void *ctx)
{
    signal(SIGTERM, SIG_DFL);
    signal(SIGINT, SIG_DFL);
    signal(SIGHUP, SIG_DFL);
    signal(SIGPIPE, SIG_DFL);
    exec_child(ctx);
    _exit(127);
}

/* Closes every descriptor but the listed ones. */
static void close_others(const int *keep, size_t n)
{
    long maxfd = sysconf(_SC_OPEN_MAX);
    if (maxfd < 0 || maxfd > 65536)
        maxfd = 65536;
    for (int fd = 3; fd < maxfd; fd++) {
        int k = 0;
        for (size_t i = 0; i < n && !k; i++)
            k = keep[i] == fd;
        if (!k)
            close(fd);
    }
}

/* Ends this process the way the IUT ended: its exit status, or death by its
 * signal (no core file), so the runner reads the IUT's status from K's. */
static void mirror_exit(int st)
{
    if (WIFEXITED(st))
        _exit(WEXITSTATUS(st));
    if (WIFSIGNALED(st)) {
        int sig = WTERMSIG(st);
        struct rlimit none = {0, 0};
        setrlimit(RLIMIT_CORE, &none);
        signal(sig, SIG_DFL);
        sigset_t set;
        sigemptyset(&set);
        sigaddset(&set, sig);
        sigprocmask(SIG_UNBLOCK, &set, NULL);
        kill(getpid(), sig);
        _exit(128 + sig);
    }
    _exit(127);
}

#ifdef __linux__
static int write_text(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = write(fd, text, strlen(text));
    close(fd);
    return n == (ssize_t)strlen(text) ? 0 : -1;
}

/* A user namespace mapping only this user to itself, then a PID namespace. */
static int unshare_user_pid(void)
{
    uid_t u = getuid();
    gid_t g = getgid();
    if (unshare(CLONE_NEWUSER | CLONE_NEWPID) != 0)
        return -1;
    char m[64];
    if (write_text("/proc/self/setgroups", "deny") != 0 && errno != ENOENT)
        return -1;
    snprintf(m, sizeof m, "%lu %lu 1\n", (unsigned long)u, (unsigned long)u);
    if (write_text("/proc/self/uid_map", m) != 0)
        return -1;
    snprintf(m, sizeof m, "%lu %lu 1\n", (unsigned long)g, (unsigned long)g);
    return write_text("/proc/self/gid_map", m);
}

/* Which namespace this kernel lets the runner make, tried once in a child
 * (a half-made user namespace cannot be left again). */
static int probe_mode(void)
{
    const char *want = getenv("ISOTRAIN_CONFORM_CONTAIN");
    if (want && !strcmp(want, "keeper"))
        return MODE_KEEPER;
    pid_t pid = fork();
    if (pid == 0) {
        if (unshare(CLONE_NEWPID) == 0)
            _exit(MODE_PIDNS);
        _exit(unshare_user_pid() == 0 ? MODE_USERNS : MODE_KEEPER);
    }
    int st = 0;
    if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
        return MODE_KEEPER;
    int m = WEXITSTATUS(st);
    return m == MODE_PIDNS || m == MODE_USERNS ? m : MODE_KEEPER;
}

/* The init of the IUT's PID namespace: starts the IUT, reaps every orphan,
 * and when the IUT ends passes its status to K and exits — and the kernel
 * kills whatever is left in the namespace. It dies with K (PDEATHSIG). */
static void ns_init(void (*exec_child)(void *), void *ctx, const int *keep, size_t n_keep, int status_w)
{
    prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
    pid_t p = fork();
    if (p == 0) {
        close(status_w);
        char err[256];
        if (iut_room_enter(err, sizeof err) != 0) { /* never an IUT that can reach the key */
            dprintf(2, "isotrain-conform: %s\n", err);
            _exit(127);
        }
        run_iut(exec_child, ctx);
    }
    int only[1] = {status_w};
    (void)keep, (void)n_keep;
    close_others(only, 1);
    int st = 0x7f00; /* "exit 127" if the fork failed */
    for (pid_t w; p > 0 && (w = waitpid(-1, &st, 0)) != p;)
        if (w < 0 && errno != EINTR)
            break;
    ssize_t wr = write(status_w, &st, sizeof st);
    (void)wr;
    _exit(0);
}
#endif

/* K's child: the namespace's init (which runs the IUT; *status_r then
 * reads its status) or, as a subreaper, the IUT itself. */
static pid_t keeper_fork(int mode, void (*exec_child)(void *), void *ctx, const int *keep, size_t n_keep, int report_w,
                         int *status_r)
{
    pid_t child = -1;
#ifdef __linux__
    if (mode == MODE_PIDNS || mode == MODE_USERNS) {
        int ok = mode == MODE_PIDNS ? unshare(CLONE_NEWPID) == 0 : unshare_user_pid() == 0;
        int sp[2];
        if (!ok || pipe(sp) != 0) {
            char m = 'E';
            ssize_t wr = write(report_w, &m, 1);
            (void)wr;
            _exit(127);
        }
        child = fork();
        if (child == 0) {
            close(sp[0]);
            ns_init(exec_child, ctx, keep, n_keep, sp[1]);
        }
        close(sp[1]);
        *status_r = sp[0];
    } else
        prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
#else
    (void)keep, (void)n_keep, (void)report_w, (void)status_r;
#endif
    if (child < 0 && mode != MODE_PIDNS && mode != MODE_USERNS) {
        child = fork();
        if (child == 0)
            run_iut(exec_child, ctx);
    }
    return child;
}

/* Until the child exits (its wait status), reaping every orphan on the
 * way; the runner gone (the lifeline), everything is killed. */
static int keeper_wait(pid_t child)
{
    int st = 0;
    for (;;) {
        struct pollfd pf = {lifeline[0], POLLIN, 0};
        int r = poll(&pf, lifeline[0] >= 0 ? 1 : 0, 100);
        if (r > 0 && (pf.revents & (POLLIN | POLLHUP | POLLERR))) {
            /* the runner is gone: nothing it started may stay */
            kill(child, SIGKILL);
            contain_kill_descendants();
            _exit(128 + SIGKILL);
        }
        pid_t w;
        while ((w = waitpid(-1, &st, WNOHANG)) > 0)
            if (w == child)
                return st;
    }
}

/* K: see iut_keeper.h. report_w gets one byte, the mode, once the tree is up. */
static void keeper(int mode, void (*exec_child)(void *), void *ctx, const int *keep, size_t n_keep, int report_w)
{
    setpgid(0, 0);
    /* the IUT may signal its own process group; its keeper stays */
    signal(SIGTERM, SIG_IGN);
    signal(SIGINT, SIG_IGN);
    signal(SIGHUP, SIG_IGN);
    signal(SIGPIPE, SIG_IGN);
    int *mine = xcalloc(n_keep + 2, sizeof *mine);
    memcpy(mine, keep, n_keep * sizeof *keep);
    mine[n_keep] = report_w;
    mine[n_keep + 1] = lifeline[0];
    close_others(mine, n_keep + 2);
    free(mine);
    char m = (char)mode;
    int status_r = -1;
    pid_t child = keeper_fork(mode, exec_child, ctx, keep, n_keep, report_w, &status_r);
    for (size_t i = 0; i < n_keep; i++) /* the IUT's ends of its pipes are the IUT's */
        close(keep[i]);
    char rep[1 + sizeof(long)];
    long me = contain_proc_pid(); /* K's pid as /proc names it (the runner may be in a namespace below) */
    rep[0] = m;
    memcpy(rep + 1, &me, sizeof me);
    ssize_t wr = write(report_w, rep, sizeof rep);
    (void)wr;
    close(report_w);
    if (child < 0)
        _exit(127);
    int st = keeper_wait(child);
    if (status_r >= 0) { /* the namespace's init passes the IUT's status */
        int ist;
        if (read(status_r, &ist, sizeof ist) == (ssize_t)sizeof ist)
            st = ist;
    }
    contain_kill_descendants(); /* the keeper's leftovers: nothing outlives the verb */
    mirror_exit(st);
}

int contain_namespaced(void)
{
#ifdef __linux__
    if (spawn_mode == MODE_UNKNOWN)
        spawn_mode = probe_mode();
    return spawn_mode == MODE_PIDNS || spawn_mode == MODE_USERNS;
#else
    return 0;
#endif
}

long contain_proc_pid(void)
{
#ifdef __linux__
    return proc_self();
#else
    return (long)getpid();
#endif
}

int contain_spawn(void (*exec_child)(void *ctx), void *ctx, const int *keep_fds, size_t n_keep, long *proc_pid,
                  char *err, size_t cap)
{
    make_lifeline();
#ifdef __linux__
    if (spawn_mode == MODE_UNKNOWN)
        spawn_mode = probe_mode();
#else
    spawn_mode = MODE_KEEPER;
#endif
    const char *want = getenv("ISOTRAIN_CONFORM_CONTAIN");
    if (want && !strcmp(want, "pidns") && spawn_mode == MODE_KEEPER) {
        snprintf(err, cap, "ISOTRAIN_CONFORM_CONTAIN=pidns, but this kernel lets the runner make no PID namespace");
        return -1;
    }
    int rep[2];
    if (pipe(rep) != 0) {
        snprintf(err, cap, "cannot create a pipe: %s", strerror(errno));
        return -1;
    }
    fcntl(rep[0], F_SETFD, FD_CLOEXEC);
    fflush(NULL);
    pid_t k = fork();
    if (k < 0) {
        snprintf(err, cap, "cannot fork: %s", strerror(errno));
        close(rep[0]);
        close(rep[1]);
        return -1;
    }
    if (k == 0) {
        close(rep[0]);
        if (lifeline[1] >= 0)
            close(lifeline[1]);
        keeper(spawn_mode, exec_child, ctx, keep_fds, n_keep, rep[1]);
        _exit(127);
    }
    setpgid(k, k);
    close(rep[1]);
    char buf[1 + sizeof(long)] = {0};
    size_t got = 0;
    ssize_t n;
    while (got < sizeof buf && ((n = read(rep[0], buf + got, sizeof buf - got)) > 0 || (n < 0 && errno == EINTR)))
        if (n > 0)
            got += (size_t)n;
    close(rep[0]);
    char m = buf[0];
    if (got >= 1 && m != 'E' && got == sizeof buf)
        memcpy(proc_pid, buf + 1, sizeof(long));
    else
        *proc_pid = k;
    if (got < 1 || m == 'E') {
        snprintf(err, cap, "the IUT's keeper could not set up its %s", contain_mode());
        kill(-k, SIGKILL);
        kill(k, SIGKILL);
        waitpid(k, NULL, 0);
        return -1;
    }
    return k;
}
