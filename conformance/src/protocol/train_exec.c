/* train_exec.c — see train_exec.h (spec/iut-protocol.md P7, P8). */
#include "protocol/train_exec.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/beside.h"
#include "core/util.h"
#include "protocol/iut_keeper.h"
#include "protocol/iut_room.h"

typedef struct {
    const char *trace_path, *ckdir;
    uint64_t ck_size;
} watch_ctx;

/* P8: the trace is capped at 1 MiB, every checkpoint at exactly 4*P bytes;
 * a run that writes past a cap is killed. lstat: a link is never followed
 * (its target's size is not the IUT's output). */
static char *watch(void *ctx)
{
    watch_ctx *w = ctx;
    struct stat st;
    if (lstat(w->trace_path, &st) == 0 && S_ISREG(st.st_mode) && (uint64_t)st.st_size > TRACE_CAP)
        return xasprintf("the trace exceeds the 1 MiB cap (P8)");
    DIR *d = opendir(w->ckdir);
    if (!d)
        return NULL;
    char *why = NULL;
    struct dirent *e;
    while (!why && (e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) &&
            (uint64_t)st.st_size > w->ck_size)
            why = xasprintf("checkpoint %s exceeds the cap of exactly 4*P = %llu bytes (P8)", e->d_name,
                            (unsigned long long)w->ck_size);
    }
    closedir(d);
    return why;
}

/* P7: "failure=<name> step=<t>" on stderr (the last one). */
static char *find_failure(const char *err)
{
    const char *p = err, *found = NULL;
    while ((p = strstr(p, "failure=")) != NULL) {
        if (p == err || p[-1] == '\n' || p[-1] == ' ')
            found = p;
        p += 8;
    }
    if (!found)
        return NULL;
    size_t n = strcspn(found, "\n");
    return xstrndup(found, n > 200 ? 200 : n);
}

/* The checkpoints of steps [s0, s1): each one's SHA-256, or its problem. */
typedef struct {
    train_exec *x;
    uint64_t ck_size;
    int ck_errno;
    uint32_t s0, s1;
} hash_share;

static void *hash_steps(void *arg)
{
    const hash_share *h = arg;
    train_exec *x = h->x;
    for (uint32_t s = h->s0; s < h->s1; s++) {
        char name[32];
        snprintf(name, sizeof name, "step-%06u.bin", (unsigned)s);
        ckpt_file *c = &x->ck[s];
        struct stat st;
        if (x->ck_fd < 0) {
            if (h->ck_errno != ENOENT) {
                c->present = 1;
                c->problem = xasprintf("the checkpoint directory is not a directory the runner made (%s)",
                                       h->ck_errno == ENOTDIR || h->ck_errno == ELOOP ? "replaced by a link or a file"
                                                                                     : strerror(h->ck_errno));
            }
            continue;
        }
        if (fstatat(x->ck_fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
            continue;
        c->present = 1;
        char e[256];
        if (sha256_file_at(x->ck_fd, name, h->ck_size, RF_NOFOLLOW, c->sha256, &c->size, e, sizeof e) != 0) {
            c->sha256[0] = '\0';
            c->problem = xstrdup(e);
        }
    }
    return NULL;
}

/* Every checkpoint's digest, the steps split over up to HASH_THREADS
 * threads beside this one (core/beside.h; each writes only its own steps'
 * records): after the run the IUT's cores are free, and the runner's
 * portable SHA-256 over 300-500 checkpoints took 1-2 s of `make conformance`
 * on one of them. */
enum { HASH_THREADS = 4, HASH_MIN_STEPS = 16 };

static void hash_all(train_exec *x, uint64_t ck_size, int ck_errno)
{
    const uint32_t n = x->steps + 1;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    unsigned parts = cpus < 1 ? 1 : cpus > HASH_THREADS ? HASH_THREADS : (unsigned)cpus;
    if (n < HASH_MIN_STEPS || x->ck_fd < 0)
        parts = 1;
    hash_share sh[HASH_THREADS];
    beside_job job[HASH_THREADS];
    for (unsigned p = 0; p < parts; p++) {
        sh[p] = (hash_share){x, ck_size, ck_errno, (uint32_t)((uint64_t)n * p / parts),
                             (uint32_t)((uint64_t)n * (p + 1) / parts)};
        if (p > 0)
            beside_start(&job[p], hash_steps, &sh[p]);
    }
    hash_steps(&sh[0]);
    for (unsigned p = 1; p < parts; p++)
        beside_finish(&job[p]);
}

/* Names in error messages are the IUT's ("trace.txt", "step-000007.bin"),
 * not the runner's temporary paths. */
static void read_outputs(train_exec *x, uint64_t ck_size)
{
    x->ck = xcalloc((size_t)x->steps + 1, sizeof *x->ck);
    x->ck_fd = -1;
    int wd = open(x->dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (wd < 0) {
        snprintf(x->trace_err, sizeof x->trace_err, "the work directory cannot be opened: %s", strerror(errno));
        return;
    }
    struct stat st;
    if (fstatat(wd, "trace.txt", &st, AT_SYMLINK_NOFOLLOW) == 0) {
        x->trace_exists = 1;
        char *text;
        size_t len;
        if (read_file_at(wd, "trace.txt", TRACE_CAP, RF_NOFOLLOW, &text, &len, x->trace_err, sizeof x->trace_err) ==
            0) {
            x->trace_read = 1;
            x->trace_ok = trace_parse_from(text, len, "trace.txt", x->from, &x->tr, x->trace_err,
                                           sizeof x->trace_err) == 0;
            free(text);
        }
    }
    x->ck_fd = openat(wd, "checkpoints", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    int ck_errno = errno;
    close(wd);
    hash_all(x, ck_size, ck_errno);
}

/* spec §8.4, P7 (1.2.0): the golden state is copied into the work
 * directory, so the IUT never touches the vector set's files; its
 * directory, or NULL with err. */
static char *copy_states(const char *dir, const char *const *state_files, size_t n_state, uint64_t ck_size, char *err,
                         size_t cap)
{
    char *sdir = xasprintf("%s/state", dir);
    mkdir(sdir, 0777);
    iut_room_give(sdir);
    for (size_t i = 0; i < n_state; i++) {
        char *data;
        size_t len;
        const char *base = strrchr(state_files[i], '/');
        char *dst = xasprintf("%s/%s", sdir, base ? base + 1 : state_files[i]);
        int bad = read_file(state_files[i], (size_t)ck_size, &data, &len, err, cap) != 0 ||
                  write_file(dst, data, len, err, cap) != 0;
        if (!bad)
            free(data);
        free(dst);
        if (bad) {
            free(sdir);
            return NULL;
        }
    }
    return sdir;
}

/* The recipe's files under dir/set (P7 1.3.0); the recipe's path, or NULL
 * with err. */
static char *write_recipe(const char *dir, const train_recipe *rec, char *err, size_t cap)
{
    char *set = xasprintf("%s/set", dir);
    for (size_t i = 0; i < rec->n_files; i++) {
        char *dst = xasprintf("%s/%s", set, rec->files[i].rel);
        int bad = make_parent_dirs(dst) != 0 ||
                  write_file(dst, (const char *)rec->files[i].data, rec->files[i].len, err, cap) != 0;
        free(dst);
        if (bad) {
            if (!err[0])
                snprintf(err, cap, "%s/%s: cannot create its directory", set, rec->files[i].rel);
            free(set);
            return NULL;
        }
    }
    char *path = xasprintf("%s/%s", set, rec->recipe_rel);
    free(set);
    return path;
}

int train_exec_run(const char *cmd, const train_request *q, train_exec *x, char *err, size_t cap)
{
    const train_recipe *rec = q->what.recipe;
    const uint32_t steps = q->steps, from = q->from;
    const uint64_t ck_size = q->ck_size;
    memset(x, 0, sizeof *x);
    x->from = from;
    x->ck_fd = -1;
    x->steps = steps;
    x->dir = make_temp_dir("isotrain-conform", err, cap);
    if (!x->dir)
        return -1;
    x->trace_path = xasprintf("%s/trace.txt", x->dir);
    x->ckdir = xasprintf("%s/checkpoints", x->dir);
    mkdir(x->ckdir, 0777); /* the runner makes DIR; the IUT fills it */
    iut_room_give(x->dir); /* an IUT under its own uid (iut_room.h) writes here */
    iut_room_give(x->ckdir);
    char steps_s[16], from_s[16];
    snprintf(steps_s, sizeof steps_s, "%u", (unsigned)steps);
    snprintf(from_s, sizeof from_s, "%u", (unsigned)from);
    char *sdir = NULL;
    if (q->n_state && !(sdir = copy_states(x->dir, q->state_files, q->n_state, ck_size, err, cap)))
        return -1;
    char *recipe = NULL;
    if (rec) {
        err[0] = 0;
        if (!(recipe = write_recipe(x->dir, rec, err, cap))) {
            free(sdir);
            return -1;
        }
    }
    const char *args[16] = {recipe ? "--recipe" : "--profile", recipe ? recipe : q->what.profile, "--steps", steps_s,
                            "--trace", x->trace_path, "--checkpoint-dir", x->ckdir, "--checkpoint-steps", "all"};
    size_t na = 10;
    if (q->seed)
        args[na++] = "--seed", args[na++] = q->seed;
    if (sdir)
        args[na++] = "--resume", args[na++] = sdir, args[na++] = "--from-step", args[na++] = from_s;
    if (q->state_steps)
        args[na++] = "--state-steps", args[na++] = q->state_steps;
    watch_ctx w = {x->trace_path, x->ckdir, ck_size};
    char serr[256];
    x->started = iut_run(cmd, "train", args, (int)na, NULL, q->timeout, 0, 0, watch, &w, &x->r, serr, sizeof serr) == 0;
    free(sdir);
    free(recipe);
    if (!x->started) {
        snprintf(x->r.status_text, sizeof x->r.status_text, "could not start: %s", serr);
        x->r.err_tail = xstrdup("");
        x->r.out = xstrdup("");
    }
    x->failure = find_failure(x->r.err_tail ? x->r.err_tail : "");
    read_outputs(x, ck_size);
    return 0;
}

int train_exec_refused(const train_exec *x)
{
    const iut_result *r = &x->r;
    return x->started && !r->exited_ok && !r->signal && !r->timed_out && !r->killed_reason;
}

void train_exec_free(train_exec *x, int keep)
{
    if (x->dir && (!keep || contain_interrupted())) /* an interrupted run leaves nothing behind */
        remove_tree(x->dir);
    free(x->dir);
    free(x->trace_path);
    free(x->ckdir);
    iut_result_free(&x->r);
    trace_free(&x->tr);
    for (uint32_t s = 0; x->ck && s <= x->steps; s++)
        free(x->ck[s].problem);
    free(x->ck);
    if (x->ck_fd >= 0)
        close(x->ck_fd);
    free(x->failure);
    memset(x, 0, sizeof *x);
}
