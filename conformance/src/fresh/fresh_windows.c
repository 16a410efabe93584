/* fresh_windows.c — see fresh_windows.h (spec §8.3, §8.4; P7 "The runner's
 * windows", 1.2.1). */
#include "fresh/fresh_windows.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/util.h"
#include "fresh/fresh.h"
#include "isotrain.h"
#include "protocol/trace.h"

/* The seed every profile publishes (spec §11.1, §13.1, §14.1): a window
 * under it could end on a shipped state, so it is never drawn. */
#define PUBLISHED_SEED 0x69736f747261696eull

/* Steps per window: mlp13k's are cheap; one addmod113 step is a full batch
 * of 3,831 pairs; gptchar's three cross a clipping decision or two. */
static const struct {
    const char *profile;
    uint32_t len;
    int adamw; /* the state has moments (spec §8.3) */
} PROFILES[] = {{"mlp13k", 3, 0}, {"addmod113", 1, 1}, {"gptchar", 3, 1}};

static int profile_row(const char *profile)
{
    for (size_t i = 0; i < sizeof PROFILES / sizeof PROFILES[0]; i++)
        if (!strcmp(PROFILES[i].profile, profile))
            return (int)i;
    return -1;
}

/* One start in each third of the run [1, steps - len]: the start, the
 * middle and the end of the schedule (warm-up, decay, AdamW's bias
 * correction) are all somewhere a window looks, and where is unknown in
 * advance. */
int fresh_windows_plan(uint64_t run_seed, const char *profile, uint32_t steps, fresh_window_plan *p)
{
    memset(p, 0, sizeof *p);
    int row = profile_row(profile);
    if (row < 0)
        return -1;
    p->len = PROFILES[row].len;
    if (steps < 3 * (p->len + 1) + 3)
        return -1;
    char stream[64];
    snprintf(stream, sizeof stream, "windows/%s", profile);
    fresh_rng r;
    fresh_rng_init(&r, run_seed, stream);
    uint64_t hi32 = fresh_u32(&r);
    p->seed = hi32 << 32 | fresh_u32(&r);
    if (p->seed == PUBLISHED_SEED)
        p->seed ^= 1;
    for (int i = 0; i < FRESH_WINDOWS; i++) {
        uint32_t lo = i == 0 ? 1 : (uint32_t)((uint64_t)i * steps / 3);
        uint32_t hi = i == FRESH_WINDOWS - 1 ? steps - p->len : (uint32_t)((uint64_t)(i + 1) * steps / 3) - 1;
        if (hi > steps - p->len)
            hi = steps - p->len;
        p->from[i] = lo + fresh_below(&r, hi - lo + 1);
        p->to[i] = p->from[i] + p->len;
    }
    return 0;
}

size_t fresh_windows_state_files(const char *profile, const char *dir, uint32_t k, char *names[3])
{
    int row = profile_row(profile);
    names[0] = xasprintf("%s/step-%06u.bin", dir, (unsigned)k);
    if (row < 0 || !PROFILES[row].adamw)
        return 1;
    names[1] = xasprintf("%s/adam-m-%06u.bin", dir, (unsigned)k);
    names[2] = xasprintf("%s/adam-v-%06u.bin", dir, (unsigned)k);
    return 3;
}

void fresh_windows_cleanup(const char *profile, const fresh_window_plan *p, const char *dir)
{
    for (int w = 0; w < FRESH_WINDOWS; w++) {
        char *files[3] = {NULL, NULL, NULL};
        size_t nf = fresh_windows_state_files(profile, dir, p->from[w], files);
        for (size_t k = 0; k < nf; k++) {
            unlink(files[k]);
            free(files[k]);
        }
    }
    rmdir(dir);
}

/* The profile's run (spec §11.8, §13.8, §14.8) under seed with options o. */
static it_status ref_run(const char *profile, uint64_t seed, const it_run_options *o, char *err, size_t cap)
{
    it_status st = IT_ERR_ARG;
    if (!strcmp(profile, "mlp13k")) {
        it_mlp13k_recipe r = it_mlp13k_default_recipe();
        r.seed = seed;
        it_mlp13k_state *s = xmalloc(sizeof *s);
        st = it_mlp13k_run(&r, o, s, err, cap);
        free(s);
    } else if (!strcmp(profile, "addmod113")) {
        /* any thread count gives the same bits (isotrain.h); the starts are
         * the one long computation of a run with --windows */
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        const it_addmod113_recipe r = {seed, cpus > 4 ? 4u : cpus > 1 ? (unsigned)cpus : 1u, 1};
        it_addmod113_state *s = xmalloc(sizeof *s);
        st = it_addmod113_run(&r, o, s, err, cap);
        free(s);
    } else if (!strcmp(profile, "gptchar")) {
        const it_gptchar_recipe r = {seed};
        it_gptchar_state *s = xmalloc(sizeof *s);
        st = it_gptchar_run(&r, o, s, err, cap);
        free(s);
    } else
        snprintf(err, cap, "the runner links no reference for profile %s", profile);
    return st;
}

/* The continuation of one window, resumed by the reference from the state
 * in dir; the trace goes to memory and is read by the runner's own parser. */
static int continuation(const char *profile, const fresh_window_plan *p, int w, const char *dir, fresh_wstep *want,
                        char *err, size_t cap)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) {
        snprintf(err, cap, "open_memstream: out of memory");
        return -1;
    }
    /* no checkpoint files: a failed window is localized from the start state
     * (levels/localize.h localize_window) */
    it_run_options o;
    memset(&o, 0, sizeof o);
    o.steps = p->to[w];
    o.trace = f;
    o.resume_dir = dir;
    o.from_step = p->from[w];
    err[0] = '\0';
    it_status st = ref_run(profile, p->seed, &o, err, cap);
    fclose(f);
    trace_doc t;
    memset(&t, 0, sizeof t);
    int rc = -1;
    if (st != IT_OK)
        ; /* err says why */
    else if (trace_parse_from(text, len, "the linked reference's trace", p->from[w], &t, err, cap) != 0)
        ;
    else if (t.n != (size_t)p->len + 1)
        snprintf(err, cap, "the linked reference's window %u-%u has %zu lines", (unsigned)p->from[w],
                 (unsigned)p->to[w], t.n);
    else {
        for (size_t i = 0; i < t.n; i++) {
            want[i].has_loss = t.s[i].has_loss;
            want[i].loss = t.s[i].loss;
            memcpy(want[i].digest, t.s[i].digest, 65);
        }
        rc = 0;
    }
    trace_free(&t);
    free(text);
    return rc;
}

int fresh_windows_reference(const char *profile, const fresh_window_plan *p, const char *dir,
                            fresh_wstep *want[FRESH_WINDOWS], char *err, size_t cap)
{
    it_run_options o;
    memset(&o, 0, sizeof o);
    uint32_t last = 0;
    for (int w = 0; w < FRESH_WINDOWS; w++)
        last = p->from[w] > last ? p->from[w] : last;
    o.steps = last;
    o.checkpoint_dir = dir;
    o.state_steps = p->from;
    o.n_state_steps = FRESH_WINDOWS;
    /* the starts with the fastest kernels: a start only has to be fresh */
    if (it_kernels_select(NULL) != 0) {
        snprintf(err, cap, "the linked reference has no kernel set for this CPU");
        return -1;
    }
    it_status st = ref_run(profile, p->seed, &o, err, cap);
    /* what the IUT is compared with: the portable definition (cli/main.c) */
    if (it_kernels_select("portable") != 0) {
        snprintf(err, cap, "the linked reference has no portable kernel set");
        return -1;
    }
    if (st != IT_OK)
        return -1;
    for (int w = 0; w < FRESH_WINDOWS; w++)
        if (continuation(profile, p, w, dir, want[w], err, cap) != 0)
            return -1;
    return 0;
}
