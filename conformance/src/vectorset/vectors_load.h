/* vectors_load.h — the loader of a vector set (vectors/FORMAT.md §1-§3). It
 * is also the lint: every rule of FORMAT.md it checks becomes a problem
 * naming the file, the JSON path and what was expected. */
#ifndef CONFORM_VECTORS_LOAD_H
#define CONFORM_VECTORS_LOAD_H

#include <stddef.h>
#include <stdint.h>

#include "vectorset/manifest.h"
#include "protocol/optable.h"
#include "core/problems.h"
#include "protocol/line_codec.h"

typedef struct {
    const op_def *op;
    char *id; /* "<group>/<tc_id>", the case id on the wire (FORMAT.md §2) */
    unsigned tc_id;
    char *comment;
    char **flags;
    size_t n_flags;
    char *in_raw[8]; /* P4 strings, in op_def order, sent as they are */
    value out[4];    /* expected outputs, in op_def order */
} op_case;

typedef struct {
    char *group, *file, *spec_clause;
    char *spec_version; /* the file's own: the version that introduced the group (FORMAT.md §1) */
    op_case *cases;
    size_t n_cases;
} op_group;

typedef struct {
    char *name;
    uint64_t rows, cols, offset;
} tensor_desc;

typedef struct {
    uint32_t step;
    int has_loss;
    uint32_t loss;
    char digest[65];
} trace_vec;

typedef struct {
    uint32_t step;
    char *file; /* path relative to train/ */
    char sha256[65];
} ckpt_vec;

typedef struct {
    char *profile, *file, *spec_clause;
    char *spec_version; /* the file's own: the version that introduced the profile */
    uint64_t parameters;
    tensor_desc *tensors;
    size_t n_tensors;
    char corpus_sha256[65];
    uint32_t steps;
    uint32_t *ck_steps;
    size_t n_ck;
    trace_vec *trace; /* steps + 1 entries, index = step */
    ckpt_vec *ckpts;  /* n_ckpts entries (n_ck in a valid set) */
    size_t n_ckpts;
} train_vec;

/* FORMAT.md §6 (v1.2.0): a window from the golden state of step `from` to
 * step `to`; the state files are paths relative to windows/ (none from 0). */
typedef struct {
    uint32_t from, to;
    size_t n_files;
    char *files[3];
    char sha256[3][65];
} window_vec;

typedef struct {
    char *profile;
    uint64_t parameters;
    window_vec *w;
    size_t n;
} window_set;

typedef struct {
    char *dir;
    char *spec_version, *vector_version;
    op_group *groups;
    size_t n_groups;
    train_vec *trains;
    size_t n_trains;
    window_set *windows; /* windows/<profile>.json, FORMAT.md §6 */
    size_t n_windows;
    size_t n_files; /* vector files loaded */
} vector_set;

/* The windows of a profile, or NULL. */
const window_set *vectors_windows(const vector_set *vs, const char *profile);

/* FORMAT.md §1-§3: loads and validates every ops/<group>.json and
 * train/<profile>.json of dir (and each train file's checkpoints). m, when
 * not NULL, is the verified manifest whose versions every file must carry.
 * Returns the number of problems added to pr; the set is usable only when 0. */
size_t vectors_load(const char *dir, const manifest_info *m, vector_set *vs, problems *pr);
void vectors_free(vector_set *vs);

/* 1 if the case carries the flag. */
int op_case_has_flag(const op_case *c, const char *flag);
/* The train vectors of a profile, or NULL. */
const train_vec *vectors_train(const vector_set *vs, const char *profile);

#endif
