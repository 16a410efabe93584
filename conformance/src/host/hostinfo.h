/* hostinfo.h — what a receipt says about the machine and the IUT binary
 * (design brief, "Receipts"): the runner's ISA, CPU model and flags, OS,
 * libc, compiler; the emulator of an emulated IUT; the IUT binary's digest. */
#ifndef CONFORM_HOST_HOSTINFO_H
#define CONFORM_HOST_HOSTINFO_H

#include <stddef.h>

typedef struct {
    char isa[32];
    char endianness[16];
    char cpu_model[256];
    char *cpu_flags;
    char os[512];
    char libc[64];
    const char *compiler, *cflags;
} hostinfo;

void hostinfo_collect(hostinfo *h);
void hostinfo_free(hostinfo *h);

typedef struct {
    char *binary;      /* the word that names the program (after env and emulator) */
    char *path;        /* where it resolves, NULL if not a file */
    char sha256[65];   /* of that file, "" if none */
    char *emulator;    /* qemu-* when the command starts with one */
    char *emulator_cpu;/* its -cpu */
    char *scripts[4];  /* further words that are files (e.g. a Python script) */
    char script_sha256[4][65];
    size_t n_scripts;
} iut_binary;

/* Splits the IUT command like sh would for plain words and quotes, skips
 * leading VAR=value words and a qemu-* emulator with its options, resolves
 * the program through PATH and hashes it. */
void iut_binary_inspect(const char *cmd, iut_binary *b);
void iut_binary_free(iut_binary *b);

/* The first "<dir>/<w>" over the directories of `path` (a PATH value; an
 * empty entry is ".") that is a regular, executable file (allocated), or
 * NULL. */
char *host_path_lookup(const char *path, const char *w);

#endif
