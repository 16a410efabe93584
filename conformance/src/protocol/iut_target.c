/* iut_target.c — see iut_target.h (spec/iut-protocol.md P1, "the argv form"). */
#define _DEFAULT_SOURCE /* realpath */
#include "protocol/iut_target.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/util.h"
#include "host/hostinfo.h"

extern char **environ;

static iut_target *registered;

void iut_target_register(iut_target *t)
{
    registered = t;
}

iut_target *iut_target_registered(void)
{
    return registered;
}

/* What a shell would find for a program name: as given with a '/', else the
 * first executable regular file of that name on PATH. */
static char *resolve_program(const char *w)
{
    if (strchr(w, '/'))
        return xstrdup(w);
    const char *path = getenv("PATH");
    if (!path || !*path)
        path = "/usr/local/bin:/usr/bin:/bin";
    return host_path_lookup(path, w);
}

/* qemu-user options that take a value (qemu-user --help, QEMU 7.2). */
static int qemu_opt_has_arg(const char *o)
{
    static const char *const with[] = {"-cpu", "-L", "-E", "-U", "-g", "-s", "-d", "-D", "-p", "-seed", "-trace",
                                       "-plugin", "-B", "-R", "-r", "-0", "-dfilter"};
    for (size_t i = 0; i < sizeof with / sizeof with[0]; i++)
        if (!strcmp(o, with[i]))
            return 1;
    return 0;
}

/* Opens path and hashes it through the descriptor; keep_open: the
 * descriptor stays (an executable), else it is closed. */
static int add_file(iut_target *t, const char *role, const char *given, const char *path, int keep_open, char *err,
                    size_t cap)
{
    if (t->nf == TARGET_MAX_FILES) {
        snprintf(err, cap, "more than %d files to bind", TARGET_MAX_FILES);
        return -1;
    }
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        snprintf(err, cap, "%s %s: cannot open: %s", role, path, strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        snprintf(err, cap, "%s %s: not a regular file", role, path);
        close(fd);
        return -1;
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0)
        fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    target_file *f = &t->f[t->nf];
    memset(f, 0, sizeof *f);
    f->role = role;
    f->given = xstrdup(given);
    char real[PATH_MAX];
    f->path = xstrdup(realpath(path, real) ? real : path);
    char e[256];
    if (sha256_fd(fd, SHA256_FILE_MAX, f->sha256, &f->size, e, sizeof e) != 0) {
        snprintf(err, cap, "%s %s: %s", role, path, e);
        close(fd);
        free(f->given);
        free(f->path);
        return -1;
    }
    exe_format_of_fd(fd, &f->fmt);
    if (keep_open)
        f->fd = fd;
    else {
        f->fd = -1;
        close(fd);
    }
    t->nf++;
    return 0;
}

static void prefix_push_front(iut_target *t, const char *a)
{
    t->prefix = xrealloc(t->prefix, (t->nprefix + 1) * sizeof *t->prefix);
    memmove(t->prefix + 1, t->prefix, t->nprefix * sizeof *t->prefix);
    t->prefix[0] = xstrdup(a);
    t->nprefix++;
}

/* The child's stdout, its first 4 KiB within 10 s, and its stderr beside
 * it (drained as it comes: a chatty stderr must not block it); the child
 * killed then, both descriptors closed. */
static void read_version(pid_t pid, int out_fd, int err_fd, sbuf *out, sbuf *err)
{
    fcntl(err_fd, F_SETFL, fcntl(err_fd, F_GETFL) | O_NONBLOCK);
    double until = now_s() + 10.0;
    char buf[1024];
    ssize_t r;
    while (pid > 0 && out->len < 4096 && now_s() < until) {
        while (err->len < 4096 && (r = read(err_fd, buf, sizeof buf)) > 0)
            sbuf_add(err, buf, (size_t)r);
        struct pollfd pf = {out_fd, POLLIN, 0};
        if (poll(&pf, 1, 100) <= 0)
            continue;
        r = read(out_fd, buf, sizeof buf);
        if (r <= 0)
            break;
        sbuf_add(out, buf, (size_t)r);
    }
    close(out_fd);
    if (pid > 0) {
        kill(-pid, SIGKILL);
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
    }
    while (err->len < 4096 && (r = read(err_fd, buf, sizeof buf)) > 0)
        sbuf_add(err, buf, (size_t)r);
    close(err_fd);
}

/* `PROGRAM --version`, through the descriptor that runs it: the first line
 * of its stdout (an emulator's own statement of what it is; stderr may hold
 * a warning first, as Wine's "wine32 is missing" does), else of its stderr,
 * or a note why there is none. */
static char *ask_version(const iut_target *t)
{
    int p[2], e[2];
    if (pipe(p) != 0)
        return xstrdup("(could not run it)");
    if (pipe(e) != 0) {
        close(p[0]), close(p[1]);
        return xstrdup("(could not run it)");
    }
    size_t n = t->nprefix + 2;
    char **argv = xcalloc(n + 1, sizeof *argv);
    for (size_t i = 0; i < t->nprefix; i++)
        argv[i] = t->prefix[i];
    argv[t->nprefix] = "--version";
    int fd = t->f[t->exec_file].fd;
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        int dn = open("/dev/null", O_RDWR);
        dup2(dn, 0);
        dup2(p[1], 1);
        dup2(e[1], 2);
        setpgid(0, 0);
        signal(SIGPIPE, SIG_DFL);
        if (t->f[t->exec_file].by_path)
            execv(t->f[t->exec_file].path, argv);
#if !defined(__APPLE__)
        else
            fexecve(fd, argv, environ);
#endif
        _exit(127);
    }
    free(argv);
    close(p[1]);
    close(e[1]);
    sbuf out, err;
    sbuf_init(&out);
    sbuf_init(&err);
    read_version(pid, p[0], e[0], &out, &err);
    const sbuf *from = out.len && out.p[0] != '\n' ? &out : &err;
    char *line = from->len ? sanitized(from->p, strcspn(from->p, "\n"), 200) : xstrdup("(printed nothing)");
    sbuf_free(&out);
    sbuf_free(&err);
    return line;
}

/* "#!I [A]" lines followed from the program (up to the kernel's four
 * levels), each interpreter opened and hashed and pushed in front of the
 * prefix; *cur the file that is executed. */
static int follow_interpreters(iut_target *t, size_t *cur, char *err, size_t cap)
{
    *cur = 0;
    for (int depth = 0; t->f[*cur].fmt.kind == EXE_SCRIPT; depth++) {
        if (depth == 4) {
            snprintf(err, cap, "%s: more than four levels of #! interpreters", t->f[0].path);
            return -1;
        }
        t->f[*cur].role = *cur == 0 ? "script" : "interpreter";
        const exe_format *fm = &t->f[*cur].fmt;
        if (!fm->interp[0]) {
            snprintf(err, cap, "%s: a #! line without an interpreter", t->f[*cur].path);
            return -1;
        }
        char interp[512], arg[256];
        snprintf(interp, sizeof interp, "%s", fm->interp);
        snprintf(arg, sizeof arg, "%s", fm->interp_arg);
        if (add_file(t, "interpreter", interp, interp, 1, err, cap) != 0)
            return -1;
        close(t->f[*cur].fd); /* a script is read by its interpreter, by path */
        t->f[*cur].fd = -1;
        if (arg[0])
            prefix_push_front(t, arg);
        prefix_push_front(t, interp);
        *cur = t->nf - 1;
    }
    return 0;
}

/* An emulator (qemu-*, wine): it is the executable, its guest the first
 * argument past its own options; the guest's index (1 otherwise). */
static size_t emulator_guest(iut_target *t, char *const *argv, size_t argc)
{
    const char *base = strrchr(argv[0], '/');
    base = base ? base + 1 : argv[0];
    size_t first = 1;
    if (strncmp(base, "qemu-", 5) && strcmp(base, "wine") && strcmp(base, "wine64"))
        return first;
    t->emulated = 1;
    t->emu_name = xstrdup(base);
    if (base[0] == 'q')
        for (; first < argc && argv[first][0] == '-'; first++)
            if (qemu_opt_has_arg(argv[first]) && first + 1 < argc) {
                if (!strcmp(argv[first], "-cpu")) {
                    free(t->emu_cpu);
                    t->emu_cpu = xstrdup(argv[first + 1]);
                }
                first++;
            }
    return first;
}

/* Every argument that names a file: the guest (at index first under an
 * emulator), a script for a named interpreter (python3 SCRIPT), data the
 * program is pointed at. */
static int bind_arguments(iut_target *t, char *const *argv, size_t argc, size_t first, char *err, size_t cap)
{
    for (size_t i = 1; i < argc; i++) {
        struct stat st;
        if (argv[i][0] == '-' || stat(argv[i], &st) != 0 || !S_ISREG(st.st_mode))
            continue;
        int is_guest = t->emulated && i == first;
        if (add_file(t, is_guest ? "guest" : "argument", argv[i], argv[i], 0, err, cap) != 0)
            return -1;
        if (is_guest)
            t->guest = (int)t->nf - 1;
    }
    return 0;
}

int iut_target_open(iut_target *t, char *const *argv, size_t argc, char *err, size_t cap)
{
    memset(t, 0, sizeof *t);
    t->guest = -1;
    if (argc == 0 || !argv[0][0]) {
        snprintf(err, cap, "the argv form needs a program");
        return -1;
    }
    if (argc > TARGET_MAX_ARGS) {
        snprintf(err, cap, "more than %d IUT arguments", TARGET_MAX_ARGS);
        return -1;
    }
    t->bound = 1;
    t->argc = argc;
    t->argv = xcalloc(argc + 1, sizeof *t->argv);
    for (size_t i = 0; i < argc; i++)
        t->argv[i] = xstrdup(argv[i]);
    t->display = argv_display(argv, argc);
    char *prog = resolve_program(argv[0]);
    if (!prog) {
        snprintf(err, cap, "--iut-exec %s: no such program on PATH", argv[0]);
        return -1;
    }
    if (access(prog, X_OK) != 0) {
        snprintf(err, cap, "--iut-exec %s: not an executable file (%s)", prog, strerror(errno));
        free(prog);
        return -1;
    }
    if (add_file(t, "executable", argv[0], prog, 1, err, cap) != 0) {
        free(prog);
        return -1;
    }
    /* the kernel runs "#!I [A]" as I [A] SCRIPT ARGS...: the runner does the
     * same with I opened and hashed (up to the kernel's four levels) */
    t->prefix = xcalloc(1, sizeof *t->prefix);
    t->prefix[0] = prog;
    t->nprefix = 1;
    size_t cur;
    if (follow_interpreters(t, &cur, err, cap) != 0)
        return -1;
    t->exec_file = cur;
    t->f[cur].executed = 1;
#if defined(__APPLE__)
    t->f[cur].by_path = 1; /* no fexecve */
#else
    t->f[cur].by_path = t->f[cur].fmt.kind != EXE_ELF;
#endif
    size_t first = emulator_guest(t, argv, argc);
    if (bind_arguments(t, argv, argc, first, err, cap) != 0)
        return -1;
    if (t->emulated)
        t->emu_version = ask_version(t);
    return 0;
}

int iut_target_recheck(iut_target *t)
{
    if (t->changed)
        return -1;
    for (size_t i = 0; i < t->nf; i++) {
        target_file *f = &t->f[i];
        char now[65], e[256];
        int r;
        if (f->fd >= 0)
            r = sha256_fd(f->fd, SHA256_FILE_MAX, now, NULL, e, sizeof e);
        else
            r = sha256_file(f->path, now, NULL, e, sizeof e);
        if (r != 0 || strcmp(now, f->sha256) != 0) {
            t->changed = xasprintf("the IUT binary changed during the run: the %s %s changed after the runner hashed "
                                   "it (SHA-256 %s before, %s now); no verb runs it any more",
                                   f->role, f->path, f->sha256, r ? e : now);
            return -1;
        }
    }
    return 0;
}

void iut_target_finish(iut_target *t)
{
    for (size_t i = 0; i < t->nf; i++) {
        char e[256];
        if (sha256_file(t->f[i].path, t->f[i].sha256_after, NULL, e, sizeof e) != 0)
            t->f[i].sha256_after[0] = '\0';
    }
}

int iut_target_has_digest(const iut_target *t, const char *sha256)
{
    for (size_t i = 0; t && i < t->nf; i++)
        if (!strcmp(t->f[i].sha256, sha256))
            return 1;
    return 0;
}

void iut_target_free(iut_target *t)
{
    if (registered == t)
        registered = NULL;
    for (size_t i = 0; i < t->nf; i++) {
        if (t->f[i].fd >= 0)
            close(t->f[i].fd);
        free(t->f[i].given);
        free(t->f[i].path);
    }
    for (size_t i = 0; i < t->argc; i++)
        free(t->argv[i]);
    free(t->argv);
    for (size_t i = 0; i < t->nprefix; i++)
        free(t->prefix[i]);
    free(t->prefix);
    free(t->display);
    free(t->emu_name);
    free(t->emu_cpu);
    free(t->emu_version);
    free(t->changed);
    memset(t, 0, sizeof *t);
}

/* Shell-quoted where a word needs it, so the display can be pasted. */
char *argv_display(char *const *argv, size_t argc)
{
    sbuf b;
    sbuf_init(&b);
    for (size_t i = 0; i < argc; i++) {
        const char *w = argv[i];
        int plain = *w != '\0';
        for (const char *p = w; *p && plain; p++)
            plain = strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-/+=:,@%", *p) != NULL;
        if (i)
            sbuf_addc(&b, ' ');
        if (plain)
            sbuf_adds(&b, w);
        else {
            sbuf_addc(&b, '\'');
            for (const char *p = w; *p; p++)
                if (*p == '\'')
                    sbuf_adds(&b, "'\\''");
                else
                    sbuf_addc(&b, *p);
            sbuf_addc(&b, '\'');
        }
    }
    return sbuf_take(&b);
}
