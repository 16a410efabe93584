/* The profile's own code the rows of profiles.c point to: each profile's
 * loss and gradient of a step (and its workspace, its evaluation fields),
 * in <profile>_train.c. */
#ifndef IT_PROFILE_STEPS_H
#define IT_PROFILE_STEPS_H

#include <stddef.h>

#include "isotrain_profile.h"

it_status it_mlp13k_step_loss(const it_train_run *run, uint32_t step, float *loss);

void *it_addmod113_run_work_new(const it_train_run *run);
void it_addmod113_run_work_free(void *work);
it_status it_addmod113_step_loss(const it_train_run *run, uint32_t step, float *loss);
void it_addmod113_trace_eval(const it_train_run *run, char *buf, size_t cap);

void *it_gptchar_run_work_new(const it_train_run *run);
void it_gptchar_run_work_free(void *work);
it_status it_gptchar_step_loss(const it_train_run *run, uint32_t step, float *loss);

/* typed_state.c: where a typed state of isotrain.h keeps each field of
 * it_train_state (offsetof into it, or IT_NO_FIELD), in this order:
 * params, grads, m, v, clock, step, last_loss, last_lr, last_norm, bad_index */
#define IT_TYPED_FIELDS 10
#define IT_NO_FIELD ((size_t)-1)
typedef struct {
    size_t at[IT_TYPED_FIELDS];
} it_typed_layout;

/* it_train_start, it_train_step_alone, it_train_run_profile and
 * it_train_step (run->s replaced) on the typed state s */
void it_typed_start(const it_profile *p, const it_typed_layout *L, const it_train_config *c, void *s);
it_status it_typed_step(const it_profile *p, const it_typed_layout *L, const it_train_config *c, void *s);
it_status it_typed_run(const it_profile *p, const it_typed_layout *L, const it_train_config *c,
                       const it_run_options *o, const it_reducer *rd, void *s, char *err, size_t cap);
it_status it_typed_step_run(const it_train_run *run, const it_typed_layout *L, void *s);

#endif
