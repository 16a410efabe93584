/* iut_target.h — the program a run certifies, and what its receipt can bind
 * (spec/iut-protocol.md P1; conformance/README.md "What a receipt proves").
 *
 * Two forms:
 *   - the argv form (`--iut-exec PROGRAM [--iut-arg ARG]...`, or `-- PROGRAM
 *     ARG...`): the runner resolves PROGRAM itself, opens it once, and every
 *     verb executes that open file (fexecve) after hashing it through the
 *     same descriptor, so the digest is of the bytes that run. A "#!" script
 *     is executed through its interpreter, opened and hashed the same way,
 *     with the script hashed too; every argument that names a file (a guest
 *     binary under an emulator, a Python script) is hashed before each verb
 *     and after the run. The subject is *bound*.
 *   - the shell form (`--iut 'CMD'`): /bin/sh -c 'CMD "$@"'. The runner
 *     cannot know what the shell runs (redirections, `cd`, PATH changes,
 *     `exec` of another program), so the subject is *unbound*: the run is at
 *     best PARTIAL ("subject unbound (shell form)").
 * Not bound in either form: what the program loads after it starts — shared
 * libraries, modules an interpreter imports, files it reads — and the
 * runner's environment; /proc/PID/exe of every process seen in the IUT's
 * tree is recorded beside the subject (protocol/proc_seen.h). */
#ifndef CONFORM_PROTOCOL_IUT_TARGET_H
#define CONFORM_PROTOCOL_IUT_TARGET_H

#include <stddef.h>
#include <stdint.h>

#include "protocol/exe_format.h"

enum { TARGET_MAX_FILES = 12, TARGET_MAX_ARGS = 64 };

typedef struct {
    const char *role;     /* "executable", "script", "interpreter", "argument", "guest" */
    char *given;          /* as named (the command line, or the "#!" line) */
    char *path;           /* the file opened: links resolved (realpath) */
    int fd;               /* executables: the open file that is executed; -1 otherwise */
    char sha256[65];      /* before the first verb: through fd (executables) */
    char sha256_after[65];/* after the run ("" until iut_target_finish) */
    uint64_t size;
    exe_format fmt;
    int executed;         /* this is the file the kernel is handed (fexecve) */
    int by_path;          /* executed by its path, not its descriptor: a PE or other
                           * binfmt_misc format (its handler needs a path), or a
                           * system without fexecve (macOS); hashed before each
                           * verb and after the run all the same */
} target_file;

typedef struct {
    int bound;            /* argv form */
    char *display;        /* the command as printed; iut_spawn runs the target for this string */
    char **argv;          /* argv form: PROGRAM ARG... as given (argc entries) */
    size_t argc;
    target_file f[TARGET_MAX_FILES];
    size_t nf;
    size_t exec_file;     /* f[exec_file] is fexecve'd */
    char **prefix;        /* what is executed before argv[1..]: interpreters, their argument, the script */
    size_t nprefix;
    /* the emulator, when PROGRAM is one (qemu-*, wine): it is the executable */
    int emulated;
    char *emu_name, *emu_cpu;
    char *emu_version;    /* the first line `PROGRAM --version` printed */
    int guest;            /* f[guest]: the program the emulator runs, -1 if none */
    char *changed;        /* a file's bytes changed after it was hashed: what and when */
} iut_target;

/* The argv form: resolves, opens and hashes every file; asks an emulator
 * for its --version. 0, or -1 with a message (no such program, not
 * executable, unreadable). */
int iut_target_open(iut_target *t, char *const *argv, size_t argc, char *err, size_t cap);
/* The target iut_spawn runs whenever it is given t->display as the command. */
void iut_target_register(iut_target *t);
iut_target *iut_target_registered(void);
/* Before a verb: every file hashed again (the executable through the
 * descriptor about to be executed). 0 if all are as first hashed; -1 with
 * t->changed set otherwise (the verb must not run). */
int iut_target_recheck(iut_target *t);
/* After the run: sha256_after of every file, by path (what a later reader
 * of the file would find). */
void iut_target_finish(iut_target *t);
/* 1 if the digest is one of the target's files. */
int iut_target_has_digest(const iut_target *t, const char *sha256);
void iut_target_free(iut_target *t);

/* Appends to out a shell-quoted rendering of argv (for display only). */
char *argv_display(char *const *argv, size_t argc);

#endif
