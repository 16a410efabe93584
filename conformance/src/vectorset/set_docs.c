/* set_docs.c — see set_docs.h (vectors/FORMAT.md §3, §6). */
#include "vectorset/set_docs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* cJSON's adders return NULL when out of memory; one flag per document
 * collects that, so the builders read as the format does. */
typedef struct {
    int oom;
} doc_status;

static cJSON *add_obj(doc_status *s, cJSON *arr)
{
    cJSON *o = cJSON_CreateObject();
    if (!o || !cJSON_AddItemToArray(arr, o)) {
        cJSON_Delete(o);
        s->oom = 1;
        return NULL;
    }
    return o;
}

static void add_num(doc_status *s, cJSON *o, const char *k, double v)
{
    if (!o || !cJSON_AddNumberToObject(o, k, v))
        s->oom = 1;
}

static void add_str(doc_status *s, cJSON *o, const char *k, const char *v)
{
    if (!o || !cJSON_AddStringToObject(o, k, v))
        s->oom = 1;
}

static cJSON *add_arr(doc_status *s, cJSON *o, const char *k)
{
    cJSON *a = o ? cJSON_AddArrayToObject(o, k) : NULL;
    if (!a)
        s->oom = 1;
    return a;
}

/* x as checkpoint bytes (spec §8.1) written to rel, its digest in hex. */
static int put_state(const float *x, size_t n, const char *rel, const set_sink *out, char hex[65], char *err,
                     size_t cap)
{
    unsigned char *b = malloc(4 * n), d[32];
    if (!b)
        return snprintf(err, cap, "%s: out of memory for %zu parameters", rel, n), -1;
    it_store_f32le(x, n, b);
    it_sha256(b, 4 * n, d);
    it_hex(d, 32, hex);
    int rc = out->put(out->ctx, rel, b, 4 * n);
    free(b);
    return rc;
}

static int add_tensors(doc_status *s, cJSON *root, const train_file *tf, char *err, size_t cap)
{
    cJSON *tensors = add_arr(s, root, "tensors");
    size_t offset = 0;
    for (size_t t = 0; t < tf->n_tensors; t++) {
        const it_tensor_info *ti = &tf->tensors[t];
        if (ti->offset != offset)
            return snprintf(err, cap, "tensor %s of %s is not contiguous", ti->name, tf->profile), -1;
        cJSON *o = add_obj(s, tensors);
        add_str(s, o, "name", ti->name);
        add_num(s, o, "rows", (double)ti->rows);
        add_num(s, o, "cols", (double)ti->cols);
        add_num(s, o, "offset", (double)ti->offset);
        offset += ti->rows * ti->cols;
    }
    if (offset != tf->n_params)
        return snprintf(err, cap, "the tensors of %s sum to %zu, not %zu", tf->profile, offset, tf->n_params), -1;
    return 0;
}

static void add_trace(doc_status *s, cJSON *root, const train_file *tf)
{
    cJSON *trace = add_arr(s, root, "trace");
    for (uint32_t t = 0; t <= tf->steps; t++) {
        cJSON *o = add_obj(s, trace);
        add_num(s, o, "step", t);
        if (t > 0) {
            char bits[9];
            snprintf(bits, sizeof bits, "%08x", (unsigned)tf->loss_bits[t]);
            add_str(s, o, "loss", bits);
        }
        add_str(s, o, "digest", tf->digests[t]);
    }
}

static int add_checkpoints(doc_status *s, cJSON *root, const train_file *tf, const set_sink *out, char *err,
                           size_t cap)
{
    cJSON *files = add_arr(s, root, "checkpoints");
    for (size_t i = 0; i < tf->n_ck; i++) {
        char rel[160], file[128], hex[65];
        snprintf(file, sizeof file, "%s/step-%06u.bin", tf->profile, (unsigned)tf->ck_steps[i]);
        snprintf(rel, sizeof rel, "train/%s", file);
        if (put_state(tf->ck_params[i], tf->n_params, rel, out, hex, err, cap) != 0)
            return -1;
        if (strcmp(hex, tf->digests[tf->ck_steps[i]]) != 0)
            return snprintf(err, cap, "%s checkpoint %u hashes to another digest than its trace", tf->profile,
                            (unsigned)tf->ck_steps[i]),
                   -1;
        cJSON *o = add_obj(s, files);
        add_num(s, o, "step", tf->ck_steps[i]);
        add_str(s, o, "file", file);
        add_str(s, o, "sha256", hex);
    }
    return 0;
}

int set_docs_train(cJSON *root, const train_file *tf, const set_sink *out, char *err, size_t cap)
{
    doc_status s = {0};
    add_num(&s, root, "parameters", (double)tf->n_params);
    if (add_tensors(&s, root, tf, err, cap) != 0)
        return -1;
    add_str(&s, root, "corpus_sha256", tf->corpus_sha256);
    add_num(&s, root, "steps", tf->steps);
    cJSON *cks = add_arr(&s, root, "checkpoint_steps");
    for (size_t i = 0; i < tf->n_ck; i++) {
        cJSON *n = cJSON_CreateNumber(tf->ck_steps[i]);
        if (!cks || !n || !cJSON_AddItemToArray(cks, n))
            cJSON_Delete(n), s.oom = 1;
    }
    add_trace(&s, root, tf);
    if (add_checkpoints(&s, root, tf, out, err, cap) != 0)
        return -1;
    if (s.oom)
        return snprintf(err, cap, "train/%s.json: out of memory", tf->profile), -1;
    return 0;
}

static int add_window_state(doc_status *s, cJSON *files, const char *profile, size_t n_params, int adamw,
                            const window_desc *w, char (*digests)[65], const set_sink *out, char *err, size_t cap)
{
    const float *parts[3] = {w->params, w->m, w->v};
    static const char *const kind[3] = {"step", "adam-m", "adam-v"};
    if (w->from > 0 && (!w->params || (adamw && (!w->m || !w->v))))
        return snprintf(err, cap, "window %u of %s has no state", (unsigned)w->from, profile), -1;
    for (int k = 0; w->from > 0 && k < (adamw ? 3 : 1); k++) {
        char file[128], rel[160], hex[65];
        snprintf(file, sizeof file, "%s/%s-%06u.bin", profile, kind[k], (unsigned)w->from);
        snprintf(rel, sizeof rel, "windows/%s", file);
        if (put_state(parts[k], n_params, rel, out, hex, err, cap) != 0)
            return -1;
        if (k == 0 && strcmp(hex, digests[w->from]) != 0)
            return snprintf(err, cap, "%s window state %u is not the trace's step", profile, (unsigned)w->from), -1;
        cJSON *f = add_obj(s, files);
        add_str(s, f, "file", file);
        add_str(s, f, "sha256", hex);
    }
    return 0;
}

int set_docs_windows(cJSON *root, const char *profile, size_t n_params, int adamw, const window_desc *w, size_t n,
                     char (*digests)[65], const set_sink *out, char *err, size_t cap)
{
    doc_status s = {0};
    add_num(&s, root, "parameters", (double)n_params);
    cJSON *arr = add_arr(&s, root, "windows");
    for (size_t i = 0; i < n; i++) {
        cJSON *o = add_obj(&s, arr);
        add_num(&s, o, "from", w[i].from);
        add_num(&s, o, "to", w[i].to);
        cJSON *files = add_arr(&s, o, "state");
        if (add_window_state(&s, files, profile, n_params, adamw, &w[i], digests, out, err, cap) != 0)
            return -1;
    }
    if (s.oom)
        return snprintf(err, cap, "windows/%s.json: out of memory", profile), -1;
    return 0;
}
