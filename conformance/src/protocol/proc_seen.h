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

/* Every file mapped executable in a process of the tree (/proc/PID/maps: the
 * program, its loader, every shared library, LD_PRELOADed and dlopen()ed
 * ones included), hashed once; and the loader- and interpreter-relevant
 * variables of each process's environment (/proc/PID/environ: LD_PRELOAD,
 * PYTHONPATH, ...), which choose code the subject does not name. Sampled
 * like the executables: a library mapped and unmapped between two samples
 * may be missed. */
enum { PROC_SEEN_CODE_MAX = 128, PROC_SEEN_ENV_MAX = 32 };

typedef struct {
    char path[512];  /* as /proc/PID/maps names it; never empty */
    char sha256[65]; /* "" when the file at that path is no longer the one mapped */
    char verbs[96];
} seen_code;

size_t proc_seen_code_count(void);
const seen_code *proc_seen_code_get(size_t i);
size_t proc_seen_code_dropped(void);
/* "NAME=VALUE" (the value cut at 400 bytes), each once */
size_t proc_seen_env_count(void);
const char *proc_seen_env_get(size_t i);
/* Whether NAME chooses code a program loads (the table in proc_seen.c). */
int proc_seen_env_is_loader(const char *name);

/* proc_code.c: the mapped files and environment of one process of the tree;
 * the verb list of an entry ("hello ops"). */
void proc_code_scan(long pid, const char *verb);
void proc_seen_add_verb(char *verbs, size_t cap, const char *verb);

/* Samples the descendants of root (the IUT's keeper) under verb. */
void proc_seen_scan(pid_t root, const char *verb);
size_t proc_seen_count(void);
const seen_exe *proc_seen_get(size_t i);
/* Executables beyond PROC_SEEN_MAX, counted but not listed. */
size_t proc_seen_dropped(void);

#endif
