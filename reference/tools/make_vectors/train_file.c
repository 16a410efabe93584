/* train/<profile>.json and windows/<profile>.json with their state files
 * (vectors/FORMAT.md §3, §6): the header is the generator's, the rest is
 * the one builder the runner's recipe sets use too (vectorset/set_docs.c). */
#include "mv.h"

static int put(void *ctx, const char *rel, const void *data, size_t len)
{
    (void)ctx;
    emit(rel, data, len); /* dies on a failed write */
    return 0;
}

static const set_sink sink = {put, NULL};

void emit_train_file(const train_file *tf, const char *clause)
{
    char err[512];
    cJSON *root = json_header("isotrain-train-vectors-v1", "profile", tf->profile, clause);
    if (set_docs_train(root, tf, &sink, err, sizeof err) != 0)
        die("%s", err);
    char rel[96];
    snprintf(rel, sizeof rel, "train/%s.json", tf->profile);
    emit_json(rel, root);
}

void emit_windows(const char *profile, size_t n_params, int adamw, const window_desc *w, size_t n,
                  char (*digests)[65])
{
    char err[512];
    cJSON *root = json_header("isotrain-window-vectors-v1", "profile", profile, "8.4");
    if (set_docs_windows(root, profile, n_params, adamw, w, n, digests, &sink, err, sizeof err) != 0)
        die("%s", err);
    char rel[96];
    snprintf(rel, sizeof rel, "windows/%s.json", profile);
    emit_json(rel, root);
}
