/* exe_format.h — what kind of program a file is, from its first bytes: an
 * ELF executable (class, byte order and e_machine give the ISA), a Windows
 * PE (its COFF machine), a "#!" script (its interpreter line), or something
 * else. The host matrix compares the ISA with the host's (conformance/README.md
 * "What a receipt proves"): a receipt's host name is a claim, the
 * executable's machine field is a measurement. */
#ifndef CONFORM_PROTOCOL_EXE_FORMAT_H
#define CONFORM_PROTOCOL_EXE_FORMAT_H

#include <stddef.h>

typedef enum { EXE_OTHER, EXE_ELF, EXE_PE, EXE_SCRIPT } exe_kind;

typedef struct {
    exe_kind kind;
    char isa[24];        /* the hosts file's ISA names: x86_64, i386, aarch64, armhf, s390x,
                          * ppc64le, riscv64, ...; "elf-machine-N" or "pe-machine-0xN"
                          * for others; "" for scripts and other files */
    char interp[512];    /* EXE_SCRIPT: the interpreter path of the "#!" line */
    char interp_arg[256];/* its optional single argument, "" if none */
} exe_format;

/* Reads the first bytes of fd (pread at offset 0). 0, or -1 if unreadable. */
int exe_format_of_fd(int fd, exe_format *f);
/* The same for a path (links followed). */
int exe_format_of_path(const char *path, exe_format *f);
/* "ELF", "PE", "script", "other" */
const char *exe_kind_name(exe_kind k);

#endif
