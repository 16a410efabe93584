/* iut_process.c — spec/iut-protocol.md P1 (invocation), P3 (pipes, one line
 * per response), P8 (time-outs, caps, killing). */
#include "protocol/iut_process.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "protocol/iut_keeper.h"
#include "protocol/iut_target.h"
#include "protocol/proc_seen.h"


static void set_flags(int fd, int nonblock)
{
    int fl = fcntl(fd, F_GETFD);
    if (fl >= 0)
        fcntl(fd, F_SETFD, fl | FD_CLOEXEC);
    if (nonblock) {
        fl = fcntl(fd, F_GETFL);
        if (fl >= 0)
            fcntl(fd, F_SETFL, fl | O_NONBLOCK);
    }
}

static void close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

/* What the IUT's process does between its keeper's fork and exec (P1, P8):
 * its pipes as 0/1/2, nothing else open but the file it executes, the file
 * size limit, its directory. */
typedef struct {
    int in, out, err;       /* the IUT's ends (in: -1 for /dev/null) */
    const char *cwd;
    int exec_fd;            /* argv form: the open file to fexecve; -1: execv(path) */
    const char *exec_path;  /* argv form, executed by path (iut_target.h by_path) */
    const char *path;       /* shell form: /bin/sh */
    char **argv;
} child_plan;

extern char **environ;

static void exec_child(void *ctx)
{
    const child_plan *c = ctx;
    struct rlimit rl = {(rlim_t)IUT_FILE_SIZE_LIMIT, (rlim_t)IUT_FILE_SIZE_LIMIT};
    setrlimit(RLIMIT_FSIZE, &rl);
    int devnull = c->in < 0 ? open("/dev/null", O_RDONLY) : -1;
    dup2(c->in >= 0 ? c->in : devnull, 0);
    dup2(c->out, 1);
    dup2(c->err, 2);
    long maxfd = sysconf(_SC_OPEN_MAX);
    if (maxfd < 0 || maxfd > 65536)
        maxfd = 65536;
    for (int fd = 3; fd < maxfd; fd++)
        if (fd != c->exec_fd)
            close(fd);
    if (c->cwd && chdir(c->cwd) != 0) {
        dprintf(2, "isotrain-conform: cannot enter %s: %s\n", c->cwd, strerror(errno));
        _exit(127);
    }
    if (c->exec_path) {
        execv(c->exec_path, c->argv);
        dprintf(2, "isotrain-conform: cannot execute %s: %s\n", c->exec_path, strerror(errno));
    } else if (c->exec_fd >= 0) {
#if !defined(__APPLE__)
        fexecve(c->exec_fd, c->argv, environ);
#endif
        dprintf(2, "isotrain-conform: cannot execute %s: %s\n", c->argv[0], strerror(errno));
    } else {
        execv(c->path, c->argv);
        dprintf(2, "isotrain-conform: cannot run %s: %s\n", c->path, strerror(errno));
    }
    _exit(127);
}

/* The six pipe ends (in[]: -1 without stdin), closed. */
static void close_pipes(int in[2], int out[2], int er[2])
{
    for (int i = 0; i < 2; i++) {
        if (in[i] >= 0)
            close(in[i]);
        if (out[i] >= 0)
            close(out[i]);
        if (er[i] >= 0)
            close(er[i]);
    }
}

/* The IUT's argv: the bound target's prefix and arguments then VERB ARG...
 * (argv form; c->exec_fd/exec_path set), or sh -c 'CMD "$@"' sh VERB
 * ARG... (shell form; *script to free). */
static const char **child_argv(const iut_target *t, int argv_form, const char *cmd, const char *verb,
                               const char *const *args, size_t nargs, child_plan *c, char **script)
{
    const char **argv;
    size_t k = 0;
    if (argv_form) {
        argv = xcalloc(t->nprefix + t->argc + nargs + 2, sizeof *argv);
        for (size_t i = 0; i < t->nprefix; i++)
            argv[k++] = t->prefix[i];
        for (size_t i = 1; i < t->argc; i++)
            argv[k++] = t->argv[i];
        c->exec_fd = t->f[t->exec_file].fd;
        if (t->f[t->exec_file].by_path)
            c->exec_path = t->f[t->exec_file].path;
    } else {
        *script = xasprintf("%s \"$@\"", cmd);
        argv = xcalloc(nargs + 6, sizeof *argv);
        argv[k++] = "sh";
        argv[k++] = "-c";
        argv[k++] = *script;
        argv[k++] = "sh";
    }
    argv[k++] = verb;
    for (size_t i = 0; i < nargs; i++)
        argv[k++] = args[i];
    return argv;
}

/* The runner's ends of the pipes, non-blocking, once the IUT holds its own. */
static void keep_ends(iut_proc *p, int with_stdin, int in[2], int out[2], int er[2])
{
    if (with_stdin) {
        close(in[0]);
        p->in_fd = in[1];
        set_flags(p->in_fd, 1);
    }
    close(out[1]);
    close(er[1]);
    p->out_fd = out[0];
    p->err_fd = er[0];
    set_flags(p->out_fd, 1);
    set_flags(p->err_fd, 1);
}

/* P1: the argv form (iut_target.h) when cmd is the registered target's
 * display, else /bin/sh -c 'CMD "$@"' sh VERB ARG...; P8: the whole tree
 * under a keeper (iut_keeper.h). */
int iut_spawn(iut_proc *p, const char *cmd, const char *verb, const char *const *args, size_t nargs,
              int with_stdin, const char *cwd, char *err, size_t cap)
{
    memset(p, 0, sizeof *p);
    p->in_fd = p->out_fd = p->err_fd = -1;
    snprintf(p->verb, sizeof p->verb, "%s", verb);
    sbuf_init(&p->out);
    if (contain_interrupted()) {
        snprintf(err, cap, "the runner was interrupted (signal %d)", contain_interrupted());
        return -1;
    }
    iut_target *t = iut_target_registered();
    int argv_form = t && t->bound && !strcmp(cmd, t->display);
    /* a bound subject is the bytes that were hashed: hashed again through the
     * descriptor about to be executed, and refused if they changed */
    if (argv_form && iut_target_recheck(t) != 0) {
        snprintf(err, cap, "%s", t->changed);
        return -1;
    }
    int in[2] = {-1, -1}, out[2] = {-1, -1}, er[2] = {-1, -1};
    if ((with_stdin && pipe(in) != 0) || pipe(out) != 0 || pipe(er) != 0) {
        snprintf(err, cap, "cannot create pipes: %s", strerror(errno));
        close_pipes(in, out, er);
        return -1;
    }
    /* the runner's ends never leak into a later IUT's tree */
    for (int i = 0; i < 2; i++) {
        if (in[i] >= 0)
            set_flags(in[i], 0);
        set_flags(out[i], 0);
        set_flags(er[i], 0);
    }
    child_plan c = {with_stdin ? in[0] : -1, out[1], er[1], cwd, -1, NULL, "/bin/sh", NULL};
    char *script = NULL;
    const char **argv = child_argv(t, argv_form, cmd, verb, args, nargs, &c, &script);
    c.argv = (char **)argv;
    int keep[4];
    size_t nk = 0;
    if (with_stdin)
        keep[nk++] = in[0];
    keep[nk++] = out[1];
    keep[nk++] = er[1];
    if (c.exec_fd >= 0)
        keep[nk++] = c.exec_fd;
    long proc_pid = 0;
    pid_t pid = contain_spawn(exec_child, &c, keep, nk, &proc_pid, err, cap);
    free(script);
    free(argv);
    if (pid < 0) {
        close_pipes(in, out, er);
        return -1;
    }
    keep_ends(p, with_stdin, in, out, er);
    p->pid = pid;
    p->proc_pid = proc_pid;
    p->started = now_s();
    p->next_scan = p->started + 0.002;
    return 0;
}

static void settle(iut_proc *p, int compact);

static void tail_add(iut_proc *p, const char *data, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        p->tail[p->tail_pos] = data[i];
        p->tail_pos = (p->tail_pos + 1) % IUT_STDERR_TAIL;
    }
    p->err_total += n;
}

/* Has the shell exited? (Not reaped, so its process group stays valid.) */
static int has_exited(iut_proc *p)
{
    if (p->reaped)
        return 1;
    siginfo_t si;
    memset(&si, 0, sizeof si);
    if (waitid(P_PID, (id_t)p->pid, &si, WEXITED | WNOHANG | WNOWAIT) != 0)
        return errno == ECHILD;
    return si.si_pid == p->pid;
}

static void reap(iut_proc *p)
{
    if (p->reaped || p->pid <= 0)
        return;
    int st;
    while (waitpid(p->pid, &st, 0) < 0 && errno == EINTR)
        ;
    p->status = st;
    p->reaped = 1;
}

/* stdout's bytes as far as they go without blocking; IUT_EV_* seen. */
static int drain_out(iut_proc *p, char *buf, size_t cap)
{
    int ev = 0;
    for (int rounds = 0; rounds < 64; rounds++) {
        ssize_t n = read(p->out_fd, buf, cap);
        if (n > 0) {
            sbuf_add(&p->out, buf, (size_t)n);
            p->out_total += (unsigned long long)n;
            ev |= IUT_EV_OUT;
            continue;
        }
        if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
            close_fd(&p->out_fd);
            p->out_eof = 1;
            ev |= IUT_EV_OUT_EOF;
        }
        break;
    }
    return ev;
}

/* stderr's bytes into the tail, as far as they go without blocking. */
static void drain_err(iut_proc *p, char *buf, size_t cap)
{
    for (int rounds = 0; rounds < 64; rounds++) {
        ssize_t n = read(p->err_fd, buf, cap);
        if (n > 0) {
            tail_add(p, buf, (size_t)n);
            continue;
        }
        if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
            close_fd(&p->err_fd);
            p->err_eof = 1;
        }
        break;
    }
}

/* The request bytes stdin takes without blocking; IUT_EV_* seen. */
static int feed_in(iut_proc *p, const char *wdata, size_t wlen, size_t *wdone)
{
    int ev = 0;
    while (*wdone < wlen) {
        size_t chunk = wlen - *wdone;
        if (chunk > 65536)
            chunk = 65536;
        ssize_t n = write(p->in_fd, wdata + *wdone, chunk);
        if (n > 0) {
            *wdone += (size_t)n;
            ev |= IUT_EV_WROTE;
            continue;
        }
        if (n < 0 && (errno == EAGAIN || errno == EINTR))
            break;
        ev |= IUT_EV_WRITE_ERR;
        close_fd(&p->in_fd);
        break;
    }
    return ev;
}

/* What runs in the tree (proc_seen.h): often at first (a verb may last
 * milliseconds), then every 100 ms. */
static void sample_tree(iut_proc *p)
{
    if (p->pid <= 0 || p->reaped || now_s() < p->next_scan)
        return;
    proc_seen_scan((pid_t)p->proc_pid, p->verb);
    p->scan_every = p->scan_every > 0 ? (p->scan_every * 2 < 0.1 ? p->scan_every * 2 : 0.1) : 0.005;
    p->next_scan = now_s() + p->scan_every;
}

/* How long poll may wait: the slice, the deadline, the next sample. */
static int poll_ms(const iut_proc *p, double deadline, double slice)
{
    double now = now_s();
    double wait = deadline - now;
    if (wait > slice)
        wait = slice;
    if (p->pid > 0 && !p->reaped && wait > p->next_scan - now) /* wake for the next sample of what runs */
        wait = p->next_scan - now;
    if (wait < 0)
        wait = 0;
    return (int)(wait * 1000.0 + 0.5);
}

/* P3: one non-blocking round of writing requests and reading responses and
 * diagnostics, so neither side can block the other; P8: the deadline. */
int iut_pump(iut_proc *p, const char *wdata, size_t wlen, size_t *wdone, double deadline, double slice)
{
    int ev = 0;
    settle(p, 1);
    sample_tree(p);
    struct pollfd fds[3];
    int nf = 0, iout = -1, ierr = -1, iin = -1;
    if (p->out_fd >= 0) {
        iout = nf;
        fds[nf].fd = p->out_fd;
        fds[nf++].events = POLLIN;
    }
    if (p->err_fd >= 0) {
        ierr = nf;
        fds[nf].fd = p->err_fd;
        fds[nf++].events = POLLIN;
    }
    if (p->in_fd >= 0 && wdata && wdone && *wdone < wlen) {
        iin = nf;
        fds[nf].fd = p->in_fd;
        fds[nf++].events = POLLOUT;
    }
    int r = poll(fds, (nfds_t)nf, poll_ms(p, deadline, slice)); /* nf == 0: just sleeps */
    if (r > 0) {
        char buf[65536];
        if (iout >= 0 && (fds[iout].revents & (POLLIN | POLLHUP | POLLERR)))
            ev |= drain_out(p, buf, sizeof buf);
        if (ierr >= 0 && (fds[ierr].revents & (POLLIN | POLLHUP | POLLERR)))
            drain_err(p, buf, sizeof buf);
        if (iin >= 0 && (fds[iin].revents & (POLLOUT | POLLERR | POLLHUP)))
            ev |= feed_in(p, wdata, wlen, wdone);
    }
    if (p->in_fd < 0 && wdata && wdone && *wdone < wlen)
        ev |= IUT_EV_WRITE_ERR;
    if (has_exited(p))
        ev |= IUT_EV_EXITED;
    if (now_s() >= deadline)
        ev |= IUT_EV_DEADLINE;
    if (contain_interrupted()) /* every wait ends as if its deadline had passed */
        ev |= IUT_EV_DEADLINE | IUT_EV_INTERRUPTED;
    return ev;
}

/* Drops the line handed out last and, when asked, moves the unconsumed
 * bytes to the front of the buffer. */
static void settle(iut_proc *p, int compact)
{
    p->out_off += p->out_hold;
    p->out_hold = 0;
    if (compact && p->out_off > 0) {
        memmove(p->out.p, p->out.p + p->out_off, p->out.len - p->out_off);
        p->out.len -= p->out_off;
        p->out.p[p->out.len] = '\0';
        p->out_scan = p->out_scan > p->out_off ? p->out_scan - p->out_off : 0;
        p->out_off = 0;
    }
}

/* P3: one response per line; P8: at most max bytes. */
int iut_next_line(iut_proc *p, size_t max, const char **line, size_t *len)
{
    settle(p, 0);
    if (!p->out.p || p->out_off >= p->out.len)
        return 0;
    size_t from = p->out_scan > p->out_off ? p->out_scan : p->out_off;
    char *base = p->out.p + p->out_off;
    char *nl = from < p->out.len ? memchr(p->out.p + from, '\n', p->out.len - from) : NULL;
    if (!nl) {
        p->out_scan = p->out.len;
        return p->out.len - p->out_off > max ? -1 : 0;
    }
    size_t n = (size_t)(nl - base);
    if (n > max)
        return -1;
    *line = base;
    *len = n;
    p->out_hold = n + 1;
    p->out_scan = p->out_off + n + 1;
    return 1;
}

size_t iut_pending(const iut_proc *p)
{
    return p->out.len - p->out_off - p->out_hold;
}

void iut_close_stdin(iut_proc *p)
{
    close_fd(&p->in_fd);
}

/* P8: "the IUT is killed": SIGKILL to its whole process group (the shell,
 * an emulator, whatever it started). */
void iut_kill(iut_proc *p)
{
    if (p->pid > 0 && !p->reaped) {
        kill(-p->pid, SIGKILL);
        kill(p->pid, SIGKILL);
        p->killed = 1;
        reap(p);
    }
}

/* P3/P8: waits for the exit, kills at the deadline, then kills leftovers of
 * the process group and drains the pipes. */
int iut_wait(iut_proc *p, double deadline)
{
    int killed = 0;
    while (!has_exited(p)) {
        size_t none = 0;
        int ev = iut_pump(p, NULL, 0, &none, deadline, 0.05);
        if (p->out.len > (1u << 20)) { /* nobody reads it any more: keep memory bounded */
            p->out.len = p->out_off = p->out_scan = p->out_hold = 0;
        }
        if ((ev & IUT_EV_DEADLINE) && !has_exited(p)) {
            iut_kill(p);
            killed = 1;
            break;
        }
    }
    if (!p->reaped) {
        kill(-p->pid, SIGKILL); /* leftovers of its process group */
        reap(p);
    }
    /* drain what is left (writers are gone now) */
    double until = now_s() + 1.0;
    while ((p->out_fd >= 0 || p->err_fd >= 0) && now_s() < until) {
        size_t none = 0;
        iut_pump(p, NULL, 0, &none, until, 0.05);
    }
    return killed ? -1 : 0;
}

/* The end of every verb: the IUT and everything it started are gone before
 * the runner reads its files or writes a report. */
void iut_release(iut_proc *p)
{
    if (p->pid > 0 && !p->reaped)
        iut_kill(p);
    close_fd(&p->in_fd);
    close_fd(&p->out_fd);
    close_fd(&p->err_fd);
    sbuf_free(&p->out);
    contain_kill_descendants();
}

static const char *signal_name(int s)
{
    switch (s) {
    case SIGSEGV: return "SIGSEGV";
    case SIGABRT: return "SIGABRT";
    case SIGKILL: return "SIGKILL";
    case SIGTERM: return "SIGTERM";
    case SIGBUS: return "SIGBUS";
    case SIGFPE: return "SIGFPE";
    case SIGILL: return "SIGILL";
    case SIGPIPE: return "SIGPIPE";
    case SIGXFSZ: return "SIGXFSZ";
    case SIGINT: return "SIGINT";
    case SIGHUP: return "SIGHUP";
    case SIGTRAP: return "SIGTRAP";
    }
    return "signal";
}

int iut_exited_ok(const iut_proc *p)
{
    return p->reaped && WIFEXITED(p->status) && WEXITSTATUS(p->status) == 0;
}

int iut_exit_code(const iut_proc *p)
{
    return p->reaped && WIFEXITED(p->status) ? WEXITSTATUS(p->status) : -1;
}

/* A shell reports a child killed by signal N as exit status 128+N; both
 * forms count as death by that signal. */
int iut_term_signal(const iut_proc *p)
{
    if (!p->reaped)
        return 0;
    if (WIFSIGNALED(p->status))
        return WTERMSIG(p->status);
    if (WIFEXITED(p->status) && WEXITSTATUS(p->status) > 128 && WEXITSTATUS(p->status) < 128 + 32)
        return WEXITSTATUS(p->status) - 128;
    return 0;
}

void iut_status_text(const iut_proc *p, char *buf, size_t cap)
{
    if (!p->reaped)
        snprintf(buf, cap, "still running");
    else if (WIFSIGNALED(p->status))
        snprintf(buf, cap, "killed by signal %d (%s)", WTERMSIG(p->status), signal_name(WTERMSIG(p->status)));
    else if (iut_term_signal(p))
        snprintf(buf, cap, "killed by signal %d (%s; shell exit status %d)", iut_term_signal(p),
                 signal_name(iut_term_signal(p)), WEXITSTATUS(p->status));
    else if (WIFEXITED(p->status))
        snprintf(buf, cap, "exit status %d", WEXITSTATUS(p->status));
    else
        snprintf(buf, cap, "ended (wait status 0x%x)", (unsigned)p->status);
}

/* P1: the last 4 KiB of stderr, kept for the receipt, never parsed. */
char *iut_stderr_tail(const iut_proc *p)
{
    size_t n = p->err_total < IUT_STDERR_TAIL ? (size_t)p->err_total : IUT_STDERR_TAIL;
    char lin[IUT_STDERR_TAIL];
    size_t start = (p->tail_pos + IUT_STDERR_TAIL - n) % IUT_STDERR_TAIL;
    for (size_t i = 0; i < n; i++)
        lin[i] = p->tail[(start + i) % IUT_STDERR_TAIL];
    return sanitized(lin, n, IUT_STDERR_TAIL);
}

typedef struct {
    int keep_head;
    size_t cap;
    sbuf head;
    char tail[4096];
    size_t tail_len;
} out_sink;

/* Moves buffered stdout into the sink; returns -1 when keep_head's cap is
 * exceeded. */
static int sink_take(out_sink *k, iut_proc *p)
{
    if (!p->out.p || p->out.len == p->out_off)
        return 0;
    const char *d = p->out.p + p->out_off;
    size_t n = p->out.len - p->out_off;
    int over = 0;
    if (k->keep_head) {
        size_t room = k->head.len < k->cap ? k->cap - k->head.len : 0;
        sbuf_add(&k->head, d, n < room ? n : room);
        over = n > room;
    } else if (n >= sizeof k->tail) {
        memcpy(k->tail, d + n - sizeof k->tail, sizeof k->tail);
        k->tail_len = sizeof k->tail;
    } else {
        if (k->tail_len + n > sizeof k->tail) {
            size_t drop = k->tail_len + n - sizeof k->tail;
            memmove(k->tail, k->tail + drop, k->tail_len - drop);
            k->tail_len -= drop;
        }
        memcpy(k->tail + k->tail_len, d, n);
        k->tail_len += n;
    }
    p->out.len = p->out_off = p->out_scan = p->out_hold = 0;
    return over ? -1 : 0;
}

/* Until the process exits, overflows its stdout cap, is stopped by the
 * monitor, or its deadline passes (killed then). */
static void watch_run(iut_proc *p, out_sink *k, double deadline, iut_monitor mon, void *ctx, iut_result *r)
{
    double next_mon = p->started + 0.1;
    for (;;) {
        size_t none = 0;
        int ev = iut_pump(p, NULL, 0, &none, deadline, 0.1);
        if (sink_take(k, p) != 0) {
            r->out_overflow = 1;
            r->killed_reason = xasprintf("stdout exceeds the %zu-byte cap", k->cap);
            iut_kill(p);
            return;
        }
        if (mon && now_s() >= next_mon) {
            next_mon = now_s() + 0.1;
            char *why = mon(ctx);
            if (why) {
                r->killed_reason = why;
                iut_kill(p);
                return;
            }
        }
        if (ev & IUT_EV_EXITED) {
            iut_wait(p, now_s() + 1.0); /* leftovers of its group are killed, output drained */
            if (sink_take(k, p) != 0) {
                r->out_overflow = 1;
                r->killed_reason = xasprintf("stdout exceeds the %zu-byte cap", k->cap);
            }
            return;
        }
        if (ev & IUT_EV_DEADLINE) {
            if (ev & IUT_EV_INTERRUPTED)
                r->killed_reason = xasprintf("the runner was interrupted (signal %d)", contain_interrupted());
            else
                r->timed_out = 1;
            iut_kill(p);
            return;
        }
    }
}

/* How the run ended, in r's words. */
static void run_outcome(iut_proc *p, double timeout, iut_result *r)
{
    r->err_tail = iut_stderr_tail(p);
    r->exited_ok = !r->timed_out && !r->killed_reason && iut_exited_ok(p);
    r->exit_code = p->killed ? -1 : iut_exit_code(p);
    r->signal = p->killed ? 0 : iut_term_signal(p);
    if (r->timed_out)
        snprintf(r->status_text, sizeof r->status_text,
                 "timed out after %.1f s (killed); --timeout-case, --timeout-run or --slowdown sets the limit", timeout);
    else if (r->killed_reason)
        snprintf(r->status_text, sizeof r->status_text, "killed by the runner: %s", r->killed_reason);
    else
        iut_status_text(p, r->status_text, sizeof r->status_text);
}

/* P1 + P8 for a verb without stdin: hello (P2), train (P7), info. */
int iut_run(const char *cmd, const char *verb, const char *const *args, size_t nargs, const char *cwd,
            double timeout, int keep_head, size_t out_cap, iut_monitor mon, void *ctx, iut_result *r, char *err,
            size_t cap)
{
    memset(r, 0, sizeof *r);
    r->exit_code = -1;
    iut_proc p;
    if (iut_spawn(&p, cmd, verb, args, nargs, 0, cwd, err, cap) != 0)
        return -1;
    out_sink k;
    memset(&k, 0, sizeof k);
    k.keep_head = keep_head;
    k.cap = out_cap;
    sbuf_init(&k.head);
    watch_run(&p, &k, p.started + timeout, mon, ctx, r);
    if (!p.reaped)
        iut_wait(&p, now_s() + 1.0);
    r->seconds = now_s() - p.started;
    if (keep_head) {
        r->out_len = k.head.len;
        r->out = sbuf_take(&k.head);
    } else {
        r->out = xstrndup(k.tail, k.tail_len);
        r->out_len = k.tail_len;
        sbuf_free(&k.head);
    }
    run_outcome(&p, timeout, r);
    iut_release(&p);
    return 0;
}

void iut_result_free(iut_result *r)
{
    free(r->out);
    free(r->err_tail);
    free(r->killed_reason);
    memset(r, 0, sizeof *r);
}
