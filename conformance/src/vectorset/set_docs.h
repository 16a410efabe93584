/* set_docs.h — the training file (vectors/FORMAT.md §3) and the windows
 * file (§6) of a vector set, built once for both of their writers: the
 * official sets' generator (reference/tools/make_vectors) and the runner's
 * recipe sets (cli/vectors.c). Two writers of one format drift apart; one
 * builder cannot, and `make check-vectors` holds it to the committed bytes.
 *
 * The caller makes the document's root with its header (schema, versions,
 * profile, clause, generator: those differ between the two writers) and
 * emits it; the builder adds the rest and writes each state file through
 * the caller's sink. Only isotrain.h and cJSON are used, so the generator
 * links this file without the runner's other layers. */
#ifndef ISOTRAIN_CONFORM_SET_DOCS_H
#define ISOTRAIN_CONFORM_SET_DOCS_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "isotrain.h"

/* Where a state file goes: rel inside the set; 0, or -1 with the sink's
 * own error. */
typedef struct {
    int (*put)(void *ctx, const char *rel, const void *data, size_t len);
    void *ctx;
} set_sink;

typedef struct {
    const char *profile; /* train/<profile>.json and train/<profile>/ */
    const it_tensor_info *tensors;
    size_t n_tensors, n_params;
    const char *corpus_sha256; /* the profile's data (FORMAT.md §3) */
    uint32_t steps;
    const uint32_t *loss_bits; /* [steps + 1], index 0 unused */
    char (*digests)[65];       /* [steps + 1] */
    const uint32_t *ck_steps;
    size_t n_ck;
    const float *const *ck_params; /* the parameters of each checkpoint step */
} train_file;

/* Adds §3's fields after root's header and writes each checkpoint's file;
 * a checkpoint whose bytes hash to another digest than the trace's is an
 * error (the two are one run). 0, or -1 with err. */
int set_docs_train(cJSON *root, const train_file *tf, const set_sink *out, char *err, size_t cap);

typedef struct {
    uint32_t from, to;
    const float *params, *m, *v; /* the state of step `from`; NULL for from = 0 */
} window_desc;

/* Adds §6's fields after root's header and writes each start's state
 * files (the parameters, and AdamW's moments when adamw); a window from
 * step 0 needs none. digests[from] is the trace's digest the start's
 * parameters must hash to. 0, or -1 with err. */
int set_docs_windows(cJSON *root, const char *profile, size_t n_params, int adamw, const window_desc *w, size_t n,
                     char (*digests)[65], const set_sink *out, char *err, size_t cap);

#endif
