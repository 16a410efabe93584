/* train/<profile>.json and its checkpoint files (vectors/FORMAT.md §3), the
 * same writer for every profile. */
#include <string.h>

#include "mv.h"

void emit_train_file(const train_file *tf)
{
    cJSON *root = json_header("isotrain-train-vectors-v1", "profile", tf->profile, tf->clause);
    add_num(root, "parameters", (double)tf->n_params);
    cJSON *tensors = checked(cJSON_AddArrayToObject(root, "tensors"));
    size_t offset = 0;
    for (size_t t = 0; t < tf->n_tensors; t++) {
        const it_tensor_info *ti = &tf->tensors[t];
        require(ti->offset == offset, "tensor %s of %s is not contiguous", ti->name, tf->profile);
        cJSON *o = checked(cJSON_CreateObject());
        add_str(o, "name", ti->name);
        add_num(o, "rows", (double)ti->rows);
        add_num(o, "cols", (double)ti->cols);
        add_num(o, "offset", (double)ti->offset);
        cJSON_AddItemToArray(tensors, o);
        offset += ti->rows * ti->cols;
    }
    require(offset == tf->n_params, "the tensors of %s sum to %zu", tf->profile, offset);
    add_str(root, "corpus_sha256", tf->corpus_sha256);
    add_num(root, "steps", tf->steps);
    cJSON *cks = checked(cJSON_AddArrayToObject(root, "checkpoint_steps"));
    for (size_t i = 0; i < tf->n_ck; i++)
        cJSON_AddItemToArray(cks, checked(cJSON_CreateNumber(tf->ck_steps[i])));
    cJSON *trace = checked(cJSON_AddArrayToObject(root, "trace"));
    for (uint32_t t = 0; t <= tf->steps; t++) {
        cJSON *o = checked(cJSON_CreateObject());
        add_num(o, "step", t);
        if (t > 0) {
            char bits[9];
            snprintf(bits, sizeof bits, "%08x", (unsigned)tf->loss_bits[t]);
            add_str(o, "loss", bits);
        }
        add_str(o, "digest", tf->digests[t]);
        cJSON_AddItemToArray(trace, o);
    }
    cJSON *files = checked(cJSON_AddArrayToObject(root, "checkpoints"));
    unsigned char *bytes = malloc(4 * tf->n_params);
    if (!bytes)
        die("out of memory");
    for (size_t i = 0; i < tf->n_ck; i++) {
        char rel[96], file[64], hex[65];
        unsigned char d[32];
        snprintf(file, sizeof file, "%s/step-%06u.bin", tf->profile, (unsigned)tf->ck_steps[i]);
        snprintf(rel, sizeof rel, "train/%s", file);
        it_store_f32le(tf->ck_params[i], tf->n_params, bytes);
        it_sha256(bytes, 4 * tf->n_params, d);
        it_hex(d, 32, hex);
        require(strcmp(hex, tf->digests[tf->ck_steps[i]]) == 0,
                "%s checkpoint %u hashes to another digest than its trace", tf->profile, (unsigned)tf->ck_steps[i]);
        emit(rel, bytes, 4 * tf->n_params);
        cJSON *o = checked(cJSON_CreateObject());
        add_num(o, "step", tf->ck_steps[i]);
        add_str(o, "file", file);
        add_str(o, "sha256", hex);
        cJSON_AddItemToArray(files, o);
    }
    free(bytes);
    char rel[96];
    snprintf(rel, sizeof rel, "train/%s.json", tf->profile);
    emit_json(rel, root);
}

/* windows/<profile>.json and the state files of each window start
 * (FORMAT.md §6): a window from step 0 needs none. */
void emit_windows(const char *profile, size_t n_params, int adamw, const window_desc *w, size_t n,
                  const char *(*digest)(uint32_t step))
{
    cJSON *root = json_header("isotrain-window-vectors-v1", "profile", profile, "8.4");
    add_num(root, "parameters", (double)n_params);
    cJSON *arr = checked(cJSON_AddArrayToObject(root, "windows"));
    unsigned char *bytes = malloc(4 * n_params);
    if (!bytes)
        die("out of memory");
    for (size_t i = 0; i < n; i++) {
        cJSON *o = checked(cJSON_CreateObject());
        add_num(o, "from", w[i].from);
        add_num(o, "to", w[i].to);
        cJSON *files = checked(cJSON_AddArrayToObject(o, "state"));
        const float *parts[3] = {w[i].params, w[i].m, w[i].v};
        static const char *const kind[3] = {"step", "adam-m", "adam-v"};
        require(w[i].from == 0 || w[i].params, "window %u of %s has no state", (unsigned)w[i].from, profile);
        for (int k = 0; w[i].from > 0 && k < (adamw ? 3 : 1); k++) {
            char file[96], rel[128], hex[65];
            unsigned char d[32];
            snprintf(file, sizeof file, "%s/%s-%06u.bin", profile, kind[k], (unsigned)w[i].from);
            snprintf(rel, sizeof rel, "windows/%s", file);
            it_store_f32le(parts[k], n_params, bytes);
            it_sha256(bytes, 4 * n_params, d);
            it_hex(d, 32, hex);
            if (k == 0)
                require(strcmp(hex, digest(w[i].from)) == 0, "%s window state %u is not the trace's step",
                        profile, (unsigned)w[i].from);
            emit(rel, bytes, 4 * n_params);
            cJSON *f = checked(cJSON_CreateObject());
            add_str(f, "file", file);
            add_str(f, "sha256", hex);
            cJSON_AddItemToArray(files, f);
        }
        cJSON_AddItemToArray(arr, o);
    }
    free(bytes);
    char rel[96];
    snprintf(rel, sizeof rel, "windows/%s.json", profile);
    emit_json(rel, root);
}
