/* exe_format.c — see exe_format.h. ELF: the System V gABI header (e_ident,
 * e_machine at offset 18); PE: the MS-DOS stub's e_lfanew at 0x3c, then
 * "PE\0\0" and the COFF Machine field; "#!": the kernel's binfmt_script rules
 * (one optional argument, the rest of the line). */
#include "protocol/exe_format.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static unsigned rd16(const unsigned char *p, int big)
{
    return big ? (unsigned)p[0] << 8 | p[1] : (unsigned)p[1] << 8 | p[0];
}

static uint32_t rd32le(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* ELF e_machine values (gABI): the ISAs of qemu/hosts.json. */
static void elf_isa(unsigned machine, int is64, int big, char *out, size_t cap)
{
    const char *n = NULL;
    switch (machine) {
    case 3: n = "i386"; break;
    case 62: n = "x86_64"; break;
    case 183: n = "aarch64"; break;
    case 40: n = big ? "armeb" : "armhf"; break; /* EABI hard-float is the build's ABI; the header cannot tell soft */
    case 22: n = is64 ? "s390x" : "s390"; break;
    case 21: n = big ? "ppc64" : "ppc64le"; break;
    case 20: n = "ppc"; break;
    case 243: n = is64 ? "riscv64" : "riscv32"; break;
    case 8: n = is64 ? (big ? "mips64" : "mips64el") : (big ? "mips" : "mipsel"); break;
    case 258: n = "loongarch64"; break;
    }
    if (n)
        snprintf(out, cap, "%s", n);
    else
        snprintf(out, cap, "elf-machine-%u", machine);
}

static void pe_isa(unsigned machine, char *out, size_t cap)
{
    switch (machine) {
    case 0x8664: snprintf(out, cap, "x86_64"); break;
    case 0x14c: snprintf(out, cap, "i386"); break;
    case 0xaa64: snprintf(out, cap, "aarch64"); break;
    case 0x1c4: snprintf(out, cap, "armhf"); break;
    default: snprintf(out, cap, "pe-machine-0x%x", machine);
    }
}

int exe_format_of_fd(int fd, exe_format *f)
{
    memset(f, 0, sizeof *f);
    unsigned char h[1024];
    ssize_t n = pread(fd, h, sizeof h, 0);
    if (n < 0)
        return -1;
    if (n >= 20 && !memcmp(h, "\177ELF", 4) && (h[4] == 1 || h[4] == 2) && (h[5] == 1 || h[5] == 2)) {
        f->kind = EXE_ELF;
        elf_isa(rd16(h + 18, h[5] == 2), h[4] == 2, h[5] == 2, f->isa, sizeof f->isa);
        return 0;
    }
    if (n >= 2 && h[0] == '#' && h[1] == '!') {
        /* binfmt_script: "#!" [blanks] interpreter [blanks optional-argument] */
        size_t i = 2, end = (size_t)n;
        for (size_t k = 2; k < (size_t)n; k++)
            if (h[k] == '\n') {
                end = k;
                break;
            }
        while (i < end && (h[i] == ' ' || h[i] == '\t'))
            i++;
        size_t s = i;
        while (i < end && h[i] != ' ' && h[i] != '\t')
            i++;
        f->kind = EXE_SCRIPT;
        snprintf(f->interp, sizeof f->interp, "%.*s", (int)(i - s), (const char *)h + s);
        while (i < end && (h[i] == ' ' || h[i] == '\t'))
            i++;
        size_t a = i, e = end;
        while (e > a && (h[e - 1] == ' ' || h[e - 1] == '\t' || h[e - 1] == '\r'))
            e--;
        snprintf(f->interp_arg, sizeof f->interp_arg, "%.*s", (int)(e - a), (const char *)h + a);
        return 0;
    }
    if (n >= 0x40 && h[0] == 'M' && h[1] == 'Z') {
        uint32_t off = rd32le(h + 0x3c);
        unsigned char pe[6];
        if (off < (1u << 20) && pread(fd, pe, sizeof pe, (off_t)off) == (ssize_t)sizeof pe &&
            !memcmp(pe, "PE\0\0", 4)) {
            f->kind = EXE_PE;
            pe_isa(rd16(pe + 4, 0), f->isa, sizeof f->isa);
            return 0;
        }
    }
    f->kind = EXE_OTHER;
    return 0;
}

int exe_format_of_path(const char *path, exe_format *f)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        memset(f, 0, sizeof *f);
        return -1;
    }
    int r = exe_format_of_fd(fd, f);
    close(fd);
    return r;
}

const char *exe_kind_name(exe_kind k)
{
    switch (k) {
    case EXE_ELF: return "ELF";
    case EXE_PE: return "PE";
    case EXE_SCRIPT: return "script";
    case EXE_OTHER: return "other";
    }
    return "other";
}
