/* proc_seen.h — every executable seen running in the IUT's process tree
 * while a verb ran: /proc/PID/exe of each process, hashed through that link
 * (the file the kernel runs, even if its path was replaced since), with its
 * ELF/PE machine. The receipt lists them beside the subject: a subject binds
 * what the runner started; this records what actually ran under it (an
 * emulator's guest never appears here — the emulator does — and a native
 * program started by a fake emulator would). Sampled 2, 7, 17, 37, 77 ms
 * after a verb starts, then every 100 ms: a process that lives less than
 * that may be missed ("every process seen"). */
#ifndef CONFORM_PROTOCOL_PROC_SEEN_H
#define CONFORM_PROTOCOL_PROC_SEEN_H

#include <stddef.h>
#include <sys/types.h>

#include "protocol/exe_format.h"

enum { PROC_SEEN_MAX = 64 };

typedef struct {
    char path[512];     /* readlink /proc/PID/exe when first seen */
    char sha256[65];
    exe_format fmt;
    unsigned processes; /* distinct processes seen running it */
    char verbs[96];     /* the verbs under which it ran: "hello info ops train" */
} seen_exe;

/* Samples the descendants of root (the IUT's keeper) under verb. */
void proc_seen_scan(pid_t root, const char *verb);
size_t proc_seen_count(void);
const seen_exe *proc_seen_get(size_t i);
/* Executables beyond PROC_SEEN_MAX, counted but not listed. */
size_t proc_seen_dropped(void);

#endif
