/* proc_code.c — the code a process of the IUT's tree has mapped and the
 * environment that chose it (proc_seen.h; issue 27 item 4: a receipt names
 * all the code that ran). Linux /proc only. */
#include "protocol/proc_seen.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#ifdef __linux__
#include <sys/sysmacros.h>
#endif

#include "core/util.h"

static seen_code code[PROC_SEEN_CODE_MAX];
static struct { unsigned long maj, mnr, ino; } code_key[PROC_SEEN_CODE_MAX];
static size_t n_code, n_code_dropped;
static char *env[PROC_SEEN_ENV_MAX];
static size_t n_env;

/* Variables that choose code: the dynamic loader's, and those of the
 * interpreters an IUT is likely to be (a script run by python3, sh, perl,
 * ruby, node, a JVM), and qemu-user's guest loader prefix. */
static const char *const loader_vars[] = {
    "LD_PRELOAD",      "LD_LIBRARY_PATH", "LD_AUDIT",      "GCONV_PATH",     "PYTHONPATH",   "PYTHONHOME",
    "PYTHONSTARTUP",   "PYTHONUSERBASE",  "PYTHONSAFEPATH", "PERL5LIB",      "PERLLIB",      "PERL5OPT",
    "RUBYLIB",         "RUBYOPT",         "NODE_PATH",     "NODE_OPTIONS",   "CLASSPATH",    "JAVA_TOOL_OPTIONS",
    "BASH_ENV",        "ENV",             "QEMU_LD_PREFIX", "DYLD_INSERT_LIBRARIES", "DYLD_LIBRARY_PATH"};

size_t proc_seen_code_count(void) { return n_code; }
const seen_code *proc_seen_code_get(size_t i) { return i < n_code ? &code[i] : NULL; }
size_t proc_seen_code_dropped(void) { return n_code_dropped; }
size_t proc_seen_env_count(void) { return n_env; }
const char *proc_seen_env_get(size_t i) { return i < n_env ? env[i] : NULL; }

int proc_seen_env_is_loader(const char *name)
{
    for (size_t i = 0; i < sizeof loader_vars / sizeof loader_vars[0]; i++)
        if (!strcmp(name, loader_vars[i]))
            return 1;
    return 0;
}

#ifdef __linux__
/* Hashes the file at path if it is still the one mapped (device, inode). */
static void hash_mapped(seen_code *c, unsigned long maj, unsigned long mnr, unsigned long ino)
{
    int fd = open(c->path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    char err[128];
    if (fd >= 0 && fstat(fd, &st) == 0 && major(st.st_dev) == maj && minor(st.st_dev) == mnr && st.st_ino == ino &&
        sha256_fd(fd, SHA256_FILE_MAX, c->sha256, NULL, err, sizeof err) == 0)
        ;
    else
        c->sha256[0] = '\0';
    if (fd >= 0)
        close(fd);
}

/* Each file mapped with execute permission ("r-xp ... /usr/lib/libc.so.6"). */
static void scan_maps(long pid, const char *verb)
{
    char path[64], line[1024];
    snprintf(path, sizeof path, "/proc/%ld/maps", pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    while (fgets(line, sizeof line, f)) {
        char perms[8];
        unsigned long maj, mnr, ino;
        int at = 0;
        if (sscanf(line, "%*s %7s %*s %lx:%lx %lu %n", perms, &maj, &mnr, &ino, &at) != 4 || perms[2] != 'x' ||
            line[at] != '/')
            continue;
        line[strcspn(line, "\n")] = '\0';
        size_t i = 0;
        while (i < n_code && !(code_key[i].maj == maj && code_key[i].mnr == mnr && code_key[i].ino == ino))
            i++;
        if (i == n_code) {
            if (n_code == PROC_SEEN_CODE_MAX) {
                n_code_dropped++;
                continue;
            }
            seen_code *c = &code[n_code];
            memset(c, 0, sizeof *c);
            snprintf(c->path, sizeof c->path, "%s", line + at);
            code_key[n_code].maj = maj, code_key[n_code].mnr = mnr, code_key[n_code].ino = ino;
            hash_mapped(c, maj, mnr, ino);
            n_code++;
        }
        proc_seen_add_verb(code[i].verbs, sizeof code[i].verbs, verb);
    }
    fclose(f);
}

static void add_env(const char *kv)
{
    char cut[460];
    snprintf(cut, sizeof cut, "%.*s", 440, kv);
    for (size_t i = 0; i < n_env; i++)
        if (!strcmp(env[i], cut))
            return;
    if (n_env < PROC_SEEN_ENV_MAX)
        env[n_env++] = xstrdup(cut);
}

/* The loader variables of the process's environment as it was exec'd. */
static void scan_environ(long pid)
{
    char path[64], *data = NULL, err[128];
    size_t len = 0;
    snprintf(path, sizeof path, "/proc/%ld/environ", pid);
    if (read_file(path, 1 << 20, &data, &len, err, sizeof err) != 0)
        return;
    for (size_t i = 0; i < len;) {
        const char *kv = data + i;
        size_t l = strnlen(kv, len - i);
        const char *eq = memchr(kv, '=', l);
        if (eq && l < len - i) { /* NUL-terminated inside the buffer */
            char name[64];
            snprintf(name, sizeof name, "%.*s", (int)(eq - kv), kv);
            if (proc_seen_env_is_loader(name))
                add_env(kv);
        }
        i += l + 1;
    }
    free(data);
}
#endif

void proc_code_scan(long pid, const char *verb)
{
#ifdef __linux__
    scan_maps(pid, verb);
    scan_environ(pid);
#else
    (void)pid, (void)verb;
#endif
}
