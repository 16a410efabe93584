/* fresh_windows.h — windows the IUT cannot have precomputed (DESIGN.md
 * "Windows must be earned"; spec/iut-protocol.md P7 "The runner's windows",
 * 1.2.1). Per profile, a training seed and three window starts are drawn
 * from the run seed, one in each third of the profile's run; the reference
 * linked into the runner trains under that seed to each start and writes
 * the state there (spec §8.3); the IUT resumes from it, and its every step
 * is compared with the linked reference's continuation. No window ends on a
 * state that ships: nothing under a seed other than the published one does.
 * The draw is a pure function of (run seed, profile, steps), so `matrix`
 * recomputes which windows a receipt must hold. */
#ifndef CONFORM_FRESH_WINDOWS_H
#define CONFORM_FRESH_WINDOWS_H

#include <stddef.h>
#include <stdint.h>

#include "isotrain_profile.h"

enum { FRESH_WINDOWS = 3 };

typedef struct {
    uint64_t seed; /* the windows' training seed, never the published one */
    uint32_t len;  /* steps per window */
    uint32_t from[FRESH_WINDOWS], to[FRESH_WINDOWS];
} fresh_window_plan;

/* The windows of `profile` (a run of `steps` steps) under run_seed: 0, or
 * -1 when the runner knows no window length for the profile or the run is
 * too short for three windows. */
int fresh_windows_plan(uint64_t run_seed, const char *profile, uint32_t steps, fresh_window_plan *p);
/* The same for windows of len steps drawn on the stream "windows/NAME",
 * never under the seed `published` (whose states ship): what a row the
 * profile table does not hold (a recipe's, isotrain_gpt.h) is planned with. */
int fresh_windows_plan_len(uint64_t run_seed, const char *name, uint32_t len, uint32_t steps, uint64_t published,
                           fresh_window_plan *p);
/* A recipe's (spec §16): over the recipe's whole run (its `steps`, whatever
 * the set's length), windows of the family's length (gptchar's row: the
 * family at §14's values), never under the recipe's own seed, whose states
 * the set ships. The runner draws them (levels/level_windows.c) and `matrix`
 * recomputes them (report/matrix/receipt_trust.c) with this one function. */
int fresh_windows_plan_recipe(uint64_t run_seed, uint32_t recipe_steps, uint64_t recipe_seed, fresh_window_plan *p);

/* One step of the linked reference's continuation: loss bits (step > from)
 * and the parameters' digest. */
typedef struct {
    int has_loss;
    uint32_t loss;
    char digest[65];
} fresh_wstep;

/* Trains the plan's seed to the last start with the CPU's fastest kernel set
 * (a start state needs no proof, only freshness), writes each start's state
 * into dir (spec §8.3 file names), then resumes each window with the
 * portable kernels (the readable definition) and fills want[w][0..len]
 * (index = step - from). Returns 0, or -1 with err. */
int fresh_windows_reference(const it_profile *row, const fresh_window_plan *p, const char *dir,
                            fresh_wstep *want[FRESH_WINDOWS], char *err, size_t cap);

/* Removes what fresh_windows_reference wrote, and dir. */
void fresh_windows_cleanup(const it_profile *row, const fresh_window_plan *p, const char *dir);

/* The state file names of step k in dir (1 for SGD, 3 for AdamW profiles);
 * returns how many were written into names (each freed by the caller). */
size_t fresh_windows_state_files(const it_profile *row, const char *dir, uint32_t k, char *names[3]);

#endif
