/* train_exec.c — see train_exec.h (spec/iut-protocol.md P7, P8). */
#include "protocol/train_exec.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/util.h"

typedef struct {
    const char *trace_path, *ckdir;
    uint64_t ck_size;
} watch_ctx;

/* P8: the trace is capped at 1 MiB, every checkpoint at exactly 4*P bytes;
 * a run that writes past a cap is killed. */
static char *watch(void *ctx)
{
    watch_ctx *w = ctx;
    struct stat st;
    if (stat(w->trace_path, &st) == 0 && (uint64_t)st.st_size > TRACE_CAP)
        return xasprintf("the trace exceeds the 1 MiB cap (P8)");
    DIR *d = opendir(w->ckdir);
    if (!d)
        return NULL;
    char *why = NULL;
    struct dirent *e;
    while (!why && (e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char *f = xasprintf("%s/%s", w->ckdir, e->d_name);
        if (stat(f, &st) == 0 && (uint64_t)st.st_size > w->ck_size)
            why = xasprintf("checkpoint %s exceeds the cap of exactly 4*P = %llu bytes (P8)", e->d_name,
                            (unsigned long long)w->ck_size);
        free(f);
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

int train_exec_run(const char *cmd, const char *profile, uint32_t steps, uint64_t ck_size, double timeout,
                   train_exec *x, char *err, size_t cap)
{
    return train_exec_run_seed(cmd, profile, steps, NULL, ck_size, timeout, x, err, cap);
}

int train_exec_run_seed(const char *cmd, const char *profile, uint32_t steps, const char *seed, uint64_t ck_size,
                        double timeout, train_exec *x, char *err, size_t cap)
{
    memset(x, 0, sizeof *x);
    x->steps = steps;
    x->dir = make_temp_dir("isotrain-conform", err, cap);
    if (!x->dir)
        return -1;
    x->trace_path = xasprintf("%s/trace.txt", x->dir);
    x->ckdir = xasprintf("%s/checkpoints", x->dir);
    mkdir(x->ckdir, 0777); /* the runner makes DIR; the IUT fills it */
    char steps_s[16];
    snprintf(steps_s, sizeof steps_s, "%u", (unsigned)steps);
    const char *args[] = {"--profile", profile, "--steps", steps_s, "--trace", x->trace_path,
                          "--checkpoint-dir", x->ckdir, "--checkpoint-steps", "all", "--seed", seed};
    watch_ctx w = {x->trace_path, x->ckdir, ck_size};
    char serr[256];
    x->started = iut_run(cmd, "train", args, seed ? 12 : 10, NULL, timeout, 0, 0, watch, &w, &x->r, serr, sizeof serr) == 0;
    if (!x->started) {
        snprintf(x->r.status_text, sizeof x->r.status_text, "could not start: %s", serr);
        x->r.err_tail = xstrdup("");
        x->r.out = xstrdup("");
    }
    x->failure = find_failure(x->r.err_tail ? x->r.err_tail : "");
    struct stat st;
    if (stat(x->trace_path, &st) == 0) {
        x->trace_exists = 1;
        x->trace_size = (uint64_t)st.st_size;
        if (x->trace_size <= TRACE_CAP) {
            char e[512];
            x->trace_ok = trace_parse_file(x->trace_path, TRACE_CAP, &x->tr, e, sizeof e) == 0;
            if (!x->trace_ok) {
                /* name the file as the IUT knows it, not by our temp path */
                const char *colon = strstr(e, "trace.txt:");
                snprintf(x->trace_err, sizeof x->trace_err, "%s", colon ? colon : e);
            }
        }
    }
    x->ck = xcalloc((size_t)steps + 1, sizeof *x->ck);
    for (uint32_t s = 0; s <= steps; s++) {
        char *f = xasprintf("%s/step-%06u.bin", x->ckdir, (unsigned)s);
        char e[256];
        if (stat(f, &st) == 0 && S_ISREG(st.st_mode) && sha256_file(f, x->ck[s].sha256, &x->ck[s].size, e, sizeof e) == 0)
            x->ck[s].present = 1;
        free(f);
    }
    return 0;
}

void train_exec_free(train_exec *x, int keep)
{
    if (x->dir && !keep)
        remove_tree(x->dir);
    free(x->dir);
    free(x->trace_path);
    free(x->ckdir);
    iut_result_free(&x->r);
    trace_free(&x->tr);
    free(x->ck);
    free(x->failure);
    memset(x, 0, sizeof *x);
}
