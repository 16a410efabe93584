/* proc_table.c — see proc_table.h. */
#include "protocol/proc_table.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/util.h"

#ifdef __linux__
/* pid, ppid, state and start time of /proc/PID/stat; 0 or -1. */
static int read_stat(long pid, proc_row *r)
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
    /* "pid (comm) S ppid ...": comm may hold spaces and parentheses */
    char *rp = strrchr(buf, ')');
    if (!rp)
        return -1;
    /* fields 3-22 after "(comm)": state ppid, then pgrp session tty_nr tpgid
     * flags minflt cminflt majflt cmajflt utime stime cutime cstime priority
     * nice num_threads itrealvalue (17, skipped), then starttime */
    unsigned long long f[17];
    if (sscanf(rp + 1,
               " %c %ld %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu",
               &r->state, &r->ppid, &f[0], &f[1], &f[2], &f[3], &f[4], &f[5], &f[6], &f[7], &f[8], &f[9], &f[10],
               &f[11], &f[12], &f[13], &f[14], &f[15], &f[16], &r->start) != 20)
        return -1;
    r->pid = pid;
    return 0;
}
#endif

proc_row *proc_table_scan(size_t *n)
{
    *n = 0;
    size_t cap = 256;
    proc_row *rows = xmalloc(cap * sizeof *rows);
#ifdef __linux__
    DIR *d = opendir("/proc");
    if (!d)
        return rows;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        char *end;
        long pid = strtol(e->d_name, &end, 10);
        if (*end || pid <= 0)
            continue;
        if (*n == cap)
            rows = xrealloc(rows, (cap *= 2) * sizeof *rows);
        if (read_stat(pid, &rows[*n]) == 0)
            (*n)++;
    }
    closedir(d);
#endif
    return rows;
}

size_t proc_table_mark_descendants(const proc_row *rows, size_t n, long root, unsigned char *mark)
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
