/* fresh_windows.c — see fresh_windows.h (spec §8.3, §8.4; P7 "The runner's
 * windows", 1.2.1). */
#include "fresh/fresh_windows.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/util.h"
#include "fresh/fresh.h"
#include "vectorset/recipe_set.h"
#include "isotrain.h"
#include "isotrain_profile.h"
#include "protocol/trace.h"

/* The seed every profile publishes (spec §11.1, §13.1, §14.1): a window
 * under it could end on a shipped state, so it is never drawn. */
#define PUBLISHED_SEED 0x69736f747261696eull

/* One start in each third of the run [1, steps - len]: the start, the
 * middle and the end of the schedule (warm-up, decay, AdamW's bias
 * correction) are all somewhere a window looks, and where is unknown in
 * advance. */
int fresh_windows_plan(uint64_t run_seed, const char *profile, uint32_t steps, fresh_window_plan *p)
{
    memset(p, 0, sizeof *p);
    const it_profile *row = it_profile_find(profile);
    if (!row || !row->window_steps)
        return -1;
    return fresh_windows_plan_len(run_seed, profile, row->window_steps, steps, PUBLISHED_SEED, p);
}

int fresh_windows_plan_recipe(uint64_t run_seed, uint32_t recipe_steps, uint64_t recipe_seed, fresh_window_plan *p)
{
    return fresh_windows_plan_len(run_seed, RECIPE_SET_PROFILE, it_profile_gptchar.window_steps, recipe_steps,
                                  recipe_seed, p);
}

int fresh_windows_plan_len(uint64_t run_seed, const char *name, uint32_t len, uint32_t steps, uint64_t published,
                           fresh_window_plan *p)
{
    memset(p, 0, sizeof *p);
    p->len = len;
    if (!len || steps < 3 * (p->len + 1) + 3)
        return -1;
    char stream[64];
    snprintf(stream, sizeof stream, "windows/%s", name);
    fresh_rng r;
    fresh_rng_init(&r, run_seed, stream);
    uint64_t hi32 = fresh_u32(&r);
    p->seed = hi32 << 32 | fresh_u32(&r);
    if (p->seed == published)
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

size_t fresh_windows_state_files(const it_profile *row, const char *dir, uint32_t k, char *names[3])
{
    names[0] = xasprintf("%s/step-%06u.bin", dir, (unsigned)k);
    if (!row || row->optimizer != IT_OPT_ADAMW) /* the moments of §8.3 */
        return 1;
    names[1] = xasprintf("%s/adam-m-%06u.bin", dir, (unsigned)k);
    names[2] = xasprintf("%s/adam-v-%06u.bin", dir, (unsigned)k);
    return 3;
}

void fresh_windows_cleanup(const it_profile *row, const fresh_window_plan *p, const char *dir)
{
    for (int w = 0; w < FRESH_WINDOWS; w++) {
        char *files[3] = {NULL, NULL, NULL};
        size_t nf = fresh_windows_state_files(row, dir, p->from[w], files);
        for (size_t k = 0; k < nf; k++) {
            unlink(files[k]);
            free(files[k]);
        }
    }
    rmdir(dir);
}

/* The profile's run (spec §11.8, §13.8, §14.8) under seed with options o,
 * through the reference's one run loop. */
static it_status ref_run(const it_profile *p, uint64_t seed, const it_run_options *o, char *err, size_t cap)
{
    it_train_config c = it_train_config_default(p);
    c.seed = seed;
    /* any thread count gives the same bits (isotrain.h); the starts are the
     * one long computation of a run with --windows */
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    c.threads = !p->threaded ? 1u : cpus > 4 ? 4u : cpus > 1 ? (unsigned)cpus : 1u;
    it_train_state *s = it_train_state_new(p);
    if (!s) {
        snprintf(err, cap, "out of memory for the state of profile %s", p->name);
        return IT_ERR_IO;
    }
    it_status st = it_train_run_profile(p, &c, o, NULL, s, err, cap);
    it_train_state_free(s);
    return st;
}

/* The continuation of one window, resumed by the reference from the state
 * in dir; the trace goes to memory and is read by the runner's own parser. */
static int continuation(const it_profile *row, const fresh_window_plan *p, int w, const char *dir, fresh_wstep *want,
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
    it_status st = ref_run(row, p->seed, &o, err, cap);
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

int fresh_windows_reference(const it_profile *row, const fresh_window_plan *p, const char *dir,
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
    it_status st = ref_run(row, p->seed, &o, err, cap);
    /* what the IUT is compared with: the portable definition (cli/main.c) */
    if (it_kernels_select("portable") != 0) {
        snprintf(err, cap, "the linked reference has no portable kernel set");
        return -1;
    }
    if (st != IT_OK)
        return -1;
    for (int w = 0; w < FRESH_WINDOWS; w++)
        if (continuation(row, p, w, dir, want[w], err, cap) != 0)
            return -1;
    return 0;
}
