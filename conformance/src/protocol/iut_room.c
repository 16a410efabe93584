/* iut_room.c — see iut_room.h. Linux only; elsewhere nothing can be hidden
 * and iut_room_hide refuses. */
#define _GNU_SOURCE /* unshare, CLONE_NEWNS, setgroups */
#include "protocol/iut_room.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#ifdef __linux__
#include <grp.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/sysmacros.h>
#endif

#include "core/util.h"

enum { ROOM_MAX_COVERS = 16 };
static char *covers[ROOM_MAX_COVERS]; /* every name of every hidden file */
static size_t n_covers;
static int n_hidden;
static char describe[256];

int iut_room_active(void)
{
    return n_hidden > 0;
}

const char *iut_room_describe(void)
{
    return describe;
}

#ifdef __linux__
/* A mountinfo path field: "\040" and the like are octal escapes. */
static void unescape(char *s)
{
    char *w = s;
    for (char *r = s; *r; r++)
        if (r[0] == '\\' && r[1] >= '0' && r[1] <= '3' && r[2] >= '0' && r[2] <= '7' && r[3] >= '0' && r[3] <= '7') {
            *w++ = (char)((r[1] - '0') * 64 + (r[2] - '0') * 8 + (r[3] - '0'));
            r += 3;
        } else
            *w++ = *r;
    *w = '\0';
}

static void add_cover(const char *path, const struct stat *want)
{
    struct stat st;
    if (n_covers == ROOM_MAX_COVERS || stat(path, &st) != 0 || st.st_dev != want->st_dev || st.st_ino != want->st_ino)
        return;
    for (size_t i = 0; i < n_covers; i++)
        if (!strcmp(covers[i], path))
            return;
    covers[n_covers++] = xstrdup(path);
}

/* The same file where the file system holding it is mounted again (a bind
 * mount, a second mount of the device): /proc/self/mountinfo gives each
 * mount's device, the directory of the file system it shows (ROOT) and
 * where (MOUNTPOINT). The file's own mount is the longest mount point
 * above real on its device; its path inside the file system is then
 * ROOT + the rest, and it shows under every other mount whose ROOT holds it. */
static void cover_every_name(const char *real, const struct stat *st)
{
    FILE *f = fopen("/proc/self/mountinfo", "r");
    if (!f)
        return;
    char line[4096], *fs_path = NULL;
    size_t best = 0;
    struct { char root[PATH_MAX], point[PATH_MAX]; } *m = xcalloc(256, sizeof *m);
    size_t nm = 0;
    while (nm < 256 && fgets(line, sizeof line, f)) {
        unsigned maj, mnr;
        if (sscanf(line, "%*s %*s %u:%u %4095s %4095s", &maj, &mnr, m[nm].root, m[nm].point) != 4 ||
            makedev(maj, mnr) != st->st_dev)
            continue;
        unescape(m[nm].root), unescape(m[nm].point);
        size_t pl = strlen(m[nm].point);
        int under = !strcmp(m[nm].point, "/") || (!strncmp(real, m[nm].point, pl) && real[pl] == '/');
        if (under && pl >= best) {
            best = pl;
            const char *rest = !strcmp(m[nm].point, "/") ? real : real + pl;
            free(fs_path);
            fs_path = xasprintf("%s%s", !strcmp(m[nm].root, "/") ? "" : m[nm].root, rest);
        }
        nm++;
    }
    fclose(f);
    for (size_t i = 0; fs_path && i < nm; i++) {
        size_t rl = strcmp(m[i].root, "/") ? strlen(m[i].root) : 0;
        if (strncmp(fs_path, m[i].root, rl) != 0 || fs_path[rl] != '/')
            continue;
        char *name = xasprintf("%s%s", !strcmp(m[i].point, "/") ? "" : m[i].point, fs_path + rl);
        add_cover(name, st);
        free(name);
    }
    free(fs_path);
    free(m);
}
#endif

int iut_room_hide(const char *path, char *err, size_t cap)
{
#ifdef __linux__
    char real[PATH_MAX];
    struct stat st;
    if (!realpath(path, real) || stat(real, &st) != 0) {
        snprintf(err, cap, "%s: %s", path, strerror(errno));
        return -1;
    }
    if (!S_ISREG(st.st_mode) || st.st_nlink != 1) {
        snprintf(err, cap, "%s: a signing key must be a regular file with one name (it has %lu hard links): the "
                           "runner hides it from the IUT under every name it can find",
                 path, (unsigned long)st.st_nlink);
        return -1;
    }
    add_cover(real, &st);
    cover_every_name(real, &st);
    n_hidden++;
    snprintf(describe, sizeof describe,
             "the IUT runs in its own PID and mount namespaces (a fresh /proc; the key covered under %zu name%s)%s; "
             "the key is read only after every IUT process is gone",
             n_covers, n_covers == 1 ? "" : "s",
             geteuid() == 0 ? ", as uid 65534 without capabilities" : ", without capabilities");
    return 0;
#else
    snprintf(err, cap, "%s: this system gives the runner no way to hide a file from the IUT", path);
    return -1;
#endif
}

int iut_room_enter(char *err, size_t cap)
{
#ifdef __linux__
    if (!n_hidden)
        return 0;
    /* a mount namespace of the IUT's own; nothing mounted here reaches the host */
    if (unshare(CLONE_NEWNS) != 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0) {
        snprintf(err, cap, "cannot make the IUT a mount namespace: %s", strerror(errno));
        return -1;
    }
    if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) != 0) {
        snprintf(err, cap, "cannot mount a /proc of the IUT's PID namespace: %s", strerror(errno));
        return -1;
    }
    for (size_t i = 0; i < n_covers; i++)
        if (mount("/dev/null", covers[i], NULL, MS_BIND, NULL) != 0) {
            snprintf(err, cap, "cannot cover %s: %s", covers[i], strerror(errno));
            return -1;
        }
    /* no setuid program may hand the capabilities back */
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
        snprintf(err, cap, "cannot set no_new_privs: %s", strerror(errno));
        return -1;
    }
    if (geteuid() == 0 && (setgroups(0, NULL) != 0 || setgid(IUT_ROOM_GID) != 0 || setuid(IUT_ROOM_UID) != 0)) {
        snprintf(err, cap, "cannot run the IUT as uid %d: %s", IUT_ROOM_UID, strerror(errno));
        return -1;
    }
    return 0;
#else
    snprintf(err, cap, "no room on this system");
    return -1;
#endif
}

void iut_room_give(const char *path)
{
    if (n_hidden && geteuid() == 0 && chown(path, IUT_ROOM_UID, IUT_ROOM_GID) != 0)
        fprintf(stderr, "isotrain-conform: cannot give %s to uid %d: %s\n", path, IUT_ROOM_UID, strerror(errno));
}
