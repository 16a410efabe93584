/* contain.c — see contain.h. */
#define _DEFAULT_SOURCE /* prctl, dirent d_type */
#include "protocol/contain.h"

#include <dirent.h>
#include <errno.h>
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

#include "core/util.h"

static volatile sig_atomic_t interrupted;

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
}

int contain_interrupted(void)
{
    return interrupted;
}

#ifdef __linux__
typedef struct {
    pid_t pid, ppid;
    char state;
} proc_row;

/* Every process of the system as (pid, ppid, state) from /proc/PID/stat. */
static proc_row *scan_procs(size_t *n)
{
    *n = 0;
    size_t cap = 256;
    proc_row *rows = xmalloc(cap * sizeof *rows);
    DIR *d = opendir("/proc");
    if (!d)
        return rows;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        char *end;
        long pid = strtol(e->d_name, &end, 10);
        if (*end || pid <= 0)
            continue;
        char path[64], buf[512];
        snprintf(path, sizeof path, "/proc/%ld/stat", pid);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        size_t len = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
        buf[len] = '\0';
        /* "pid (comm) S ppid ...": comm may hold spaces and parentheses */
        char *rp = strrchr(buf, ')');
        char state;
        long ppid;
        if (!rp || sscanf(rp + 1, " %c %ld", &state, &ppid) != 2)
            continue;
        if (*n == cap)
            rows = xrealloc(rows, (cap *= 2) * sizeof *rows);
        rows[(*n)++] = (proc_row){(pid_t)pid, (pid_t)ppid, state};
    }
    closedir(d);
    return rows;
}

/* Marks the descendants of root in rows (mark[i] = 1); returns how many. */
static size_t mark_descendants(const proc_row *rows, size_t n, pid_t root, unsigned char *mark)
{
    size_t found = 0;
    memset(mark, 0, n);
    for (int changed = 1; changed;) {
        changed = 0;
        for (size_t i = 0; i < n; i++) {
            if (mark[i])
                continue;
            int child = rows[i].ppid == root;
            for (size_t k = 0; k < n && !child; k++)
                child = mark[k] && rows[k].pid == rows[i].ppid;
            if (child) {
                mark[i] = 1;
                found++;
                changed = 1;
            }
        }
    }
    return found;
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
    pid_t self = getpid();
    for (int round = 0; round < 200; round++) {
        size_t n;
        proc_row *rows = scan_procs(&n);
        unsigned char *mark = xcalloc(n ? n : 1, 1);
        size_t found = mark_descendants(rows, n, self, mark);
        size_t live = 0;
        for (size_t i = 0; i < n; i++)
            if (mark[i] && rows[i].state != 'Z') {
                kill(rows[i].pid, SIGKILL);
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
    proc_row *rows = scan_procs(&n);
    unsigned char *mark = xcalloc(n ? n : 1, 1);
    mark_descendants(rows, n, getpid(), mark);
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
