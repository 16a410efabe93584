/* runner_profiles.h — the runner's one description of each profile (issue
 * 28): a row holds the reference's row (isotrain_profile.h: the name, the
 * tensors, the optimizer, the fresh-seed run's length, the windows' length,
 * the run loop) and what only the runner does with the profile. Every place
 * in the runner that treats profiles differently looks the row up; a
 * profile's name is spelled only in the reference's table. */
#ifndef CONFORM_RUNNER_PROFILES_H
#define CONFORM_RUNNER_PROFILES_H

#include "isotrain_profile.h"
#include "levels/localize.h"
#include "levels/run_ctx.h"
#include "vectorset/vectors_load.h"

/* Where a run departs at step T (conformance/README.md "Localization"): the
 * tensor, the element and the op, into rep and j. o NULL: a run from step 0
 * under the published seed, against the vectors; else a window's origin
 * (levels/localize.h): the linked reference resumes from its start state
 * under its seed, and step T must hash to o->digest. */
typedef void runner_localize_fn(run_ctx *rc, const train_vec *tv, int ck_fd, uint32_t T, const localize_origin *o,
                                train_report *rep, cJSON *j);

typedef struct {
    const it_profile *ref;       /* the linked reference's row */
    runner_localize_fn *localize; /* its op replay (levels/localize_<profile>.c) */
    /* Its fresh-seed run is the receipt's fresh_train record (spec 1.0's one
     * profile, which `verify` recomputes); every other profile's fresh steps
     * are cases of the fresh level only. */
    int fresh_record;
} runner_profile;

/* The row of tv's profile when the linked reference computes it: its name,
 * parameter count and tensors (name, offset, size) are the reference's row;
 * NULL otherwise. */
const runner_profile *runner_profile_of(const train_vec *tv);

/* The same, with a recipe set's recipe (levels/recipe_level.c): its row
 * of the run loop for the set's one profile. */
const runner_profile *rc_runner_profile(const run_ctx *rc, const train_vec *tv);

/* The names of every row, "a, b and c" (for a message). */
void runner_profile_names(char *buf, size_t cap);

#endif
