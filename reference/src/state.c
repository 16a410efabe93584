/* The complete training state as files (spec §8.3) and the files a run
 * writes at a step (§9.3), for every profile. The random numbers are
 * addressed by (seed, stream, index) (§6.2), so they carry no state; the
 * AdamW running products are a function of the step (§7.2). What is left
 * is the parameters and, for AdamW, the two moments. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "isotrain.h"
#include "isotrain_profile.h"

/* every failure here is one of I/O */
#define fail(err, cap, ...) ((it_status)it_errf((err), (cap), IT_ERR_IO, __VA_ARGS__))

static const char *const KIND[3] = {"step", "adam-m", "adam-v"};

static it_status write_one(const char *dir, const char *kind, uint32_t step, const float *x, size_t n, char *err,
                           size_t cap)
{
    char path[4096];
    int len = snprintf(path, sizeof path, "%s/%s-%06u.bin", dir, kind, (unsigned)step);
    if (len < 0 || (size_t)len >= sizeof path)
        return fail(err, cap, "state path too long: %s", dir);
    unsigned char *bytes = malloc(4 * n);
    if (!bytes)
        return fail(err, cap, "out of memory writing %s", path);
    it_store_f32le(x, n, bytes);
    FILE *f = fopen(path, "wb");
    if (!f) {
        free(bytes);
        return fail(err, cap, "cannot create %s: %s", path, strerror(errno));
    }
    size_t wrote = fwrite(bytes, 1, 4 * n, f);
    int closed = fclose(f);
    free(bytes);
    if (wrote != 4 * n || closed != 0)
        return fail(err, cap, "cannot write %s: %s", path, strerror(errno));
    return IT_OK;
}

static it_status read_one(const char *dir, const char *kind, uint32_t step, float *x, size_t n, char *err,
                          size_t cap)
{
    char path[4096];
    int len = snprintf(path, sizeof path, "%s/%s-%06u.bin", dir, kind, (unsigned)step);
    if (len < 0 || (size_t)len >= sizeof path)
        return fail(err, cap, "state path too long: %s", dir);
    FILE *f = fopen(path, "rb");
    if (!f)
        return fail(err, cap, "cannot open %s (spec 8.3: the state of step %u): %s", path, (unsigned)step,
                    strerror(errno));
    unsigned char *bytes = malloc(4 * n + 1);
    if (!bytes) {
        fclose(f);
        return fail(err, cap, "out of memory reading %s", path);
    }
    size_t got = fread(bytes, 1, 4 * n + 1, f); /* one byte more: a longer file is refused */
    int bad = ferror(f);
    fclose(f);
    if (bad || got != 4 * n) {
        free(bytes);
        return fail(err, cap, "%s: %s%zu bytes, expected exactly %zu (spec 8.3)", path, bad ? "read error after " : "",
                    got, 4 * n);
    }
    it_load_f32le(bytes, n, x);
    free(bytes);
    return IT_OK;
}

/* §8.3: each of params, m, v that is given, in that order, written or
 * read; the first failure ends it (parts are only read when writing) */
static it_status each_part(const char *dir, uint32_t step, size_t n, float *const parts[3], int writing, char *err,
                           size_t cap)
{
    for (int i = 0; i < 3; i++) {
        it_status st = !parts[i] ? IT_OK
                       : writing ? write_one(dir, KIND[i], step, parts[i], n, err, cap)
                                 : read_one(dir, KIND[i], step, parts[i], n, err, cap);
        if (st != IT_OK)
            return st;
    }
    return IT_OK;
}

it_status it_state_write(const char *dir, uint32_t step, size_t n, const float *params, const float *m,
                         const float *v, char *err, size_t cap)
{
    float *const parts[3] = {(float *)params, (float *)m, (float *)v};
    return each_part(dir, step, n, parts, 1, err, cap);
}

it_status it_state_read(const char *dir, uint32_t step, size_t n, float *params, float *m, float *v, char *err,
                        size_t cap)
{
    float *const parts[3] = {params, m, v};
    return each_part(dir, step, n, parts, 0, err, cap);
}

static int listed(const uint32_t *list, size_t n, uint32_t step)
{
    for (size_t i = 0; i < n; i++)
        if (list[i] == step)
            return 1;
    return 0;
}

it_status it_run_write_step(const it_run_options *o, uint32_t step, size_t n, const float *params, const float *m,
                            const float *v, char *err, size_t cap)
{
    if (!o->checkpoint_dir)
        return IT_OK;
    int state = listed(o->state_steps, o->n_state_steps, step);
    if (!state && !listed(o->checkpoint_steps, o->n_checkpoint_steps, step))
        return IT_OK;
    return it_state_write(o->checkpoint_dir, step, n, params, state ? m : NULL, state ? v : NULL, err, cap);
}
