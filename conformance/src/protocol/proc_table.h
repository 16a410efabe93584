/* proc_table.h — the system's processes as /proc shows them, and the tree
 * below one of them: what the IUT keeper kills at the end of a verb
 * (iut_keeper.c) and what the runner samples while a verb runs, to record
 * the code that ran (proc_seen.c). Linux only: elsewhere a scan is empty. */
#ifndef CONFORM_PROC_TABLE_H
#define CONFORM_PROC_TABLE_H

#include <stddef.h>

typedef struct {
    long pid, ppid;           /* in the numbering of /proc's PID namespace */
    char state;               /* 'Z': a zombie, nothing left to kill or read */
    unsigned long long start; /* start time (field 22): a pid reused is another process */
} proc_row;

/* Every process of /proc/PID/stat; one that ends between readdir() and the
 * read is left out. *n rows, to be freed with free(). */
proc_row *proc_table_scan(size_t *n);
/* Marks (mark[i] = 1) the descendants of root among the n rows, at any
 * depth, root itself not; returns how many. mark has n bytes. */
size_t proc_table_mark_descendants(const proc_row *rows, size_t n, long root, unsigned char *mark);

#endif
