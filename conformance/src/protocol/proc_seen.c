/* proc_seen.c — see proc_seen.h. Linux /proc only; elsewhere nothing is
 * recorded (and the receipt says none was seen). */
#include "protocol/proc_seen.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/util.h"
#include "protocol/proc_table.h"

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
/* Whether (pid, start) was counted before; counts it if not. */
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
    size_t n;
    proc_row *rows = proc_table_scan(&n);
    unsigned char *in_tree = xcalloc(n ? n : 1, 1);
    proc_table_mark_descendants(rows, n, root, in_tree);
    for (size_t i = 0; i < n; i++)
        if (in_tree[i] && rows[i].state != 'Z') /* a zombie's code is gone */
            record(rows[i].pid, rows[i].start, verb, &self);
    free(in_tree);
    free(rows);
#else
    (void)root, (void)verb;
#endif
}
