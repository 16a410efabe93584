/* The profile's own code the rows of profiles.c point to: each profile's
 * loss and gradient of a step (and its workspace, its evaluation fields),
 * in <profile>_train.c. */
#ifndef IT_PROFILE_STEPS_H
#define IT_PROFILE_STEPS_H

#include "isotrain_profile.h"

it_status it_mlp13k_step_loss(const it_train_run *run, uint32_t step, float *loss);

void *it_addmod113_run_work_new(const it_train_run *run);
void it_addmod113_run_work_free(void *work);
it_status it_addmod113_step_loss(const it_train_run *run, uint32_t step, float *loss);
void it_addmod113_trace_eval(const it_train_run *run, char *buf, size_t cap);

void *it_gptchar_run_work_new(const it_train_run *run);
void it_gptchar_run_work_free(void *work);
it_status it_gptchar_step_loss(const it_train_run *run, uint32_t step, float *loss);

#endif
