/* proc_seen.c — see proc_seen.h. Linux /proc only; elsewhere nothing is
 * recorded (and the receipt says none was seen). */
#include "protocol/proc_seen.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/util.h"

static seen_exe seen[PROC_SEEN_MAX];
static struct exe_key {
    dev_t dev;
    ino_t ino;
    off_t size;
    long long mtime_ns, ctime_ns;
} keys[PROC_SEEN_MAX];
static size_t n_seen, n_dropped;
/* processes already counted: (pid, start time) */
static struct proc_key {
    long pid;
    unsigned long long start;
} *procs;
static size_t n_procs, cap_procs;

size_t proc_seen_count(void) { return n_seen; }
const seen_exe *proc_seen_get(size_t i) { return i < n_seen ? &seen[i] : NULL; }
size_t proc_seen_dropped(void) { return n_dropped; }

void proc_seen_add_verb(char *verbs, size_t cap, const char *verb)
{
    size_t vl = strlen(verb);
    if (!vl)
        return;
    for (const char *p = verbs; (p = strstr(p, verb)) != NULL; p += vl)
        if ((p == verbs || p[-1] == ' ') && (p[vl] == ' ' || p[vl] == '\0'))
            return;
    size_t l = strlen(verbs);
    if (l + vl + 2 < cap)
        snprintf(verbs + l, cap - l, "%s%s", l ? " " : "", verb);
}

#ifdef __linux__
typedef struct {
    long pid, ppid;
    unsigned long long start;
} row;

/* pid, ppid and start time (field 22) of /proc/PID/stat; 0 or -1. */
static int read_stat(long pid, row *r)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return -1;
    buf[n] = '\0';
    char *rp = strrchr(buf, ')');
    if (!rp)
        return -1;
    /* after "(comm)": state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime
     * cutime cstime priority nice threads itrealvalue starttime */
    char state;
    long ppid;
    unsigned long long f[16];
    if (sscanf(rp + 1, " %c %ld %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu", &state,
               &ppid, &f[0], &f[1], &f[2], &f[3], &f[4], &f[5], &f[6], &f[7], &f[8], &f[9], &f[10], &f[11], &f[12],
               &f[13], &f[14], &f[15], &r->start) != 19)
        return -1;
    if (state == 'Z')
        return -1;
    r->pid = pid;
    r->ppid = ppid;
    return 0;
}

static int counted(long pid, unsigned long long start)
{
    for (size_t i = 0; i < n_procs; i++)
        if (procs[i].pid == pid && procs[i].start == start)
            return 1;
    if (n_procs == cap_procs) {
        if (cap_procs >= 4096)
            return 1; /* enough evidence: stop counting, never grow without bound */
        cap_procs = cap_procs ? 2 * cap_procs : 64;
        procs = xrealloc(procs, cap_procs * sizeof *procs);
    }
    procs[n_procs++] = (struct proc_key){pid, start};
    return 0;
}

static void add_verb(seen_exe *e, const char *verb)
{
    proc_seen_add_verb(e->verbs, sizeof e->verbs, verb);
}

static void record(long pid, unsigned long long start, const char *verb, const struct stat *self)
{
    char link[64];
    snprintf(link, sizeof link, "/proc/%ld/exe", pid);
    int fd = open(link, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    /* the name now, before hashing takes its time: a short-lived process
     * may be gone by then (and /proc/PID/exe with it) */
    char name[512];
    ssize_t nl = readlink(link, name, sizeof name - 1);
    int named = nl > 0;
    name[named ? nl : 0] = '\0';
    int name_err = errno;
    struct stat st;
    if (fstat(fd, &st) != 0 || (st.st_dev == self->st_dev && st.st_ino == self->st_ino)) {
        close(fd); /* the runner's own keeper and namespace init */
        return;
    }
    struct exe_key k = {st.st_dev, st.st_ino, st.st_size, (long long)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec,
                        (long long)st.st_ctim.tv_sec * 1000000000LL + st.st_ctim.tv_nsec};
    size_t i = 0;
    while (i < n_seen && memcmp(&keys[i], &k, sizeof k) != 0)
        i++;
    if (i == n_seen) {
        if (n_seen == PROC_SEEN_MAX) {
            n_dropped++;
            close(fd);
            return;
        }
        seen_exe *e = &seen[n_seen];
        memset(e, 0, sizeof *e);
        char err[128];
        if (sha256_fd(fd, SHA256_FILE_MAX, e->sha256, NULL, err, sizeof err) != 0) {
            close(fd);
            return;
        }
        exe_format_of_fd(fd, &e->fmt);
        if (named)
            snprintf(e->path, sizeof e->path, "%s", name);
        else /* gone between open and readlink: never an empty path; a later sample may name it */
            snprintf(e->path, sizeof e->path, "(unnamed: readlink /proc/%ld/exe: %s; device %lu inode %lu)", pid,
                     strerror(name_err), (unsigned long)st.st_dev, (unsigned long)st.st_ino);
        keys[n_seen++] = k;
    } else if (named && seen[i].path[0] == '(')
        snprintf(seen[i].path, sizeof seen[i].path, "%s", name);
    close(fd);
    if (!counted(pid, start))
        seen[i].processes++;
    add_verb(&seen[i], verb);
    proc_code_scan(pid, verb);
}

#endif

void proc_seen_scan(pid_t root, const char *verb)
{
#ifdef __linux__
    static struct stat self;
    static int have_self;
    if (!have_self)
        have_self = stat("/proc/self/exe", &self) == 0;
    DIR *d = opendir("/proc");
    if (!d)
        return;
    size_t n = 0, cap = 256;
    row *rows = xmalloc(cap * sizeof *rows);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        char *end;
        long pid = strtol(e->d_name, &end, 10);
        if (*end || pid <= 0)
            continue;
        if (n == cap)
            rows = xrealloc(rows, (cap *= 2) * sizeof *rows);
        if (read_stat(pid, &rows[n]) == 0)
            n++;
    }
    closedir(d);
    /* the tree under root: walk each process's parents (depth-bounded) */
    for (size_t i = 0; i < n; i++) {
        long p = rows[i].ppid;
        int in_tree = 0;
        for (int depth = 0; depth < 64 && p > 1 && !in_tree; depth++) {
            if (p == root) {
                in_tree = 1;
                break;
            }
            size_t k = 0;
            while (k < n && rows[k].pid != p)
                k++;
            if (k == n)
                break;
            p = rows[k].ppid;
        }
        if (in_tree)
            record(rows[i].pid, rows[i].start, verb, &self);
    }
    free(rows);
#else
    (void)root, (void)verb;
#endif
}
