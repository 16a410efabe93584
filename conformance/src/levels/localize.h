/* localize.h — saying where a training run departs from the reference
 * (design brief: "the first step whose digest differs, the first tensor and
 * element, the ULP distance, and the first op whose output differs"). */
#ifndef CONFORM_LOCALIZE_H
#define CONFORM_LOCALIZE_H

#include "levels/run_ctx.h"
#include "protocol/trace.h"
#include "vectorset/vectors_load.h"

/* Called by the train level when step first_bad's checkpoint differs from
 * the vectors. ck_fd is the directory of the IUT's checkpoints (train_exec), tr its parsed trace (may be
 * NULL). Fills rep->loc_text and rep->loc_json. */
void localize_train(run_ctx *rc, const train_vec *tv, int ck_fd, const trace_doc *tr, uint32_t first_bad,
                    train_report *rep);

/* Where a window departs (level_windows.c): the linked reference resumes
 * under `seed` from the state of step `from` in `resume_dir` (spec §8.4) to
 * the state before step T, and step T must hash to `digest` (what the
 * window expected). */
typedef struct {
    uint64_t seed;
    const char *resume_dir;
    uint32_t from;
    const char *digest;
} localize_origin;

/* The same tensor, element and op replay as localize_train for step T of a
 * window (T > o->from), into rep->loc_text and rep->loc_json. */
void localize_window(run_ctx *rc, const train_vec *tv, int ck_fd, uint32_t T, const localize_origin *o,
                     train_report *rep);

/* When only losses differ: fills rep with where the loss departs. */
void localize_loss_only(const train_vec *tv, const trace_doc *tr, uint32_t first_loss, train_report *rep);

#endif
