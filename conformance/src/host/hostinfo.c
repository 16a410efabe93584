/* hostinfo.c — see hostinfo.h. */
#include "host/hostinfo.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>
#ifdef __GLIBC__
#include <gnu/libc-version.h>
#endif

#include "isotrain.h"
#include "core/util.h"

#ifndef CONFORM_CFLAGS
#define CONFORM_CFLAGS "unknown"
#endif

/* The first "flags" (x86) or "Features" (Arm) line of /proc/cpuinfo. */
static char *cpu_flags(void)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return xstrdup("unknown");
    char *line = NULL;
    size_t cap = 0;
    char *res = NULL;
    ssize_t n;
    while (!res && (n = getline(&line, &cap, f)) > 0) {
        if (strncmp(line, "flags", 5) != 0 && strncmp(line, "Features", 8) != 0)
            continue;
        char *colon = strchr(line, ':');
        if (!colon)
            continue;
        colon++;
        while (*colon == ' ' || *colon == '\t')
            colon++;
        size_t l = strcspn(colon, "\n");
        res = xstrndup(colon, l);
    }
    free(line);
    fclose(f);
    return res ? res : xstrdup("unknown");
}

void hostinfo_collect(hostinfo *h)
{
    memset(h, 0, sizeof *h);
    snprintf(h->isa, sizeof h->isa, "%s", it_host_isa());
    snprintf(h->endianness, sizeof h->endianness, "%s", it_host_endianness());
    it_host_cpu_model(h->cpu_model, sizeof h->cpu_model);
    h->cpu_flags = cpu_flags();
    struct utsname u;
    if (uname(&u) == 0)
        snprintf(h->os, sizeof h->os, "%s %s %s %s", u.sysname, u.release, u.version, u.machine);
    else
        snprintf(h->os, sizeof h->os, "unknown");
#ifdef __GLIBC__
    snprintf(h->libc, sizeof h->libc, "glibc %s", gnu_get_libc_version());
#else
    snprintf(h->libc, sizeof h->libc, "unknown");
#endif
#if defined(__clang__)
    h->compiler = "clang " __clang_version__;
#elif defined(__GNUC__)
    h->compiler = "gcc " __VERSION__;
#else
    h->compiler = "unknown";
#endif
    h->cflags = CONFORM_CFLAGS;
}

void hostinfo_free(hostinfo *h)
{
    free(h->cpu_flags);
    h->cpu_flags = NULL;
}

/* Words of a command: whitespace-separated, with '...' and "..." quoting and
 * backslash escapes; enough for the commands people write. */
static size_t split_words(const char *s, char **out, size_t max)
{
    size_t n = 0;
    while (*s && n < max) {
        while (*s == ' ' || *s == '\t' || *s == '\n')
            s++;
        if (!*s)
            break;
        sbuf w;
        sbuf_init(&w);
        while (*s && *s != ' ' && *s != '\t' && *s != '\n') {
            if (*s == '\'') {
                for (s++; *s && *s != '\''; s++)
                    sbuf_addc(&w, *s);
                if (*s)
                    s++;
            } else if (*s == '"') {
                for (s++; *s && *s != '"'; s++) {
                    if (*s == '\\' && s[1])
                        s++;
                    sbuf_addc(&w, *s);
                }
                if (*s)
                    s++;
            } else if (*s == '\\' && s[1]) {
                sbuf_addc(&w, s[1]);
                s += 2;
            } else
                sbuf_addc(&w, *s++);
        }
        out[n++] = sbuf_take(&w);
    }
    return n;
}

static int is_assignment(const char *w)
{
    const char *eq = strchr(w, '=');
    if (!eq || eq == w)
        return 0;
    for (const char *p = w; p < eq; p++)
        if (!((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_'))
            return 0;
    return !(w[0] >= '0' && w[0] <= '9');
}

static int is_file(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

char *host_path_lookup(const char *path, const char *w)
{
    while (*path) {
        size_t l = strcspn(path, ":");
        char *cand = xasprintf("%.*s/%s", (int)l, l ? path : ".", w);
        if (is_file(cand) && access(cand, X_OK) == 0)
            return cand;
        free(cand);
        path += l + (path[l] == ':');
    }
    return NULL;
}

/* Through PATH when the word has no '/'. */
static char *resolve(const char *w)
{
    if (strchr(w, '/'))
        return is_file(w) ? xstrdup(w) : NULL;
    const char *path = getenv("PATH");
    if (!path)
        path = "/usr/local/bin:/usr/bin:/bin";
    return host_path_lookup(path, w);
}

/* qemu-user options that take a value (qemu-user --help, QEMU 7.2). */
static int qemu_opt_has_arg(const char *o)
{
    static const char *const with[] = {"-cpu", "-L", "-E", "-U", "-g", "-s", "-d", "-D", "-p", "-seed", "-trace",
                                       "-plugin", "-B", "-R", "-r", "-0", "-dfilter", "-h"};
    for (size_t i = 0; i < sizeof with / sizeof with[0]; i++)
        if (!strcmp(o, with[i]))
            return strcmp(o, "-h") != 0;
    return 0;
}

/* Design brief, "Receipts": the IUT's binary digest where there is one;
 * P1: CMD may carry an emulator prefix (qemu-* with its options, or wine). */
void iut_binary_inspect(const char *cmd, iut_binary *b)
{
    memset(b, 0, sizeof *b);
    char *w[64];
    size_t n = split_words(cmd, w, 64), i = 0;
    while (i < n && is_assignment(w[i]))
        i++;
    if (i < n) {
        const char *base = strrchr(w[i], '/');
        base = base ? base + 1 : w[i];
        if (!strcmp(base, "wine") || !strcmp(base, "wine64")) {
            /* Wine runs the Windows binary on this CPU: no -cpu, and its
             * options end at the program's name */
            b->emulator = xstrdup(base);
            i++;
        } else if (!strncmp(base, "qemu-", 5)) {
            b->emulator = xstrdup(base);
            for (i++; i < n && w[i][0] == '-'; i++) {
                if (qemu_opt_has_arg(w[i]) && i + 1 < n) {
                    if (!strcmp(w[i], "-cpu"))
                        b->emulator_cpu = xstrdup(w[i + 1]);
                    i++;
                }
            }
        }
    }
    if (i < n) {
        b->binary = xstrdup(w[i]);
        b->path = resolve(w[i]);
        char err[256];
        if (b->path && sha256_file(b->path, b->sha256, NULL, err, sizeof err) != 0)
            b->sha256[0] = '\0';
        for (size_t k = i + 1; k < n && b->n_scripts < 4; k++)
            if (w[k][0] != '-' && is_file(w[k])) {
                if (sha256_file(w[k], b->script_sha256[b->n_scripts], NULL, err, sizeof err) == 0)
                    b->scripts[b->n_scripts++] = xstrdup(w[k]);
            }
    }
    for (size_t k = 0; k < n; k++)
        free(w[k]);
}

void iut_binary_free(iut_binary *b)
{
    free(b->binary);
    free(b->path);
    free(b->emulator);
    free(b->emulator_cpu);
    for (size_t k = 0; k < b->n_scripts; k++)
        free(b->scripts[k]);
    memset(b, 0, sizeof *b);
}
