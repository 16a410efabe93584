/*
 * isotrain_profile.h — a profile is a row of a table (spec §11, §13, §14),
 * and every profile trains through one run loop (spec §8.3-§8.4, §9, §10).
 *
 * A row says everything the spec's profile section fixes: the tensors in
 * checkpoint order (shape, init and decay as columns, isotrain.h's
 * it_tensor_info), the optimizer and its constants, the schedule, the data,
 * the default steps and checkpoints, the fresh-seed length, the resume
 * windows of the vectors, and the one function that is the profile's own:
 * the loss and gradient of a step. The run loop (run.c) does the rest for
 * every row: the FP-environment probe, init or resume, the trace header and
 * lines, the §10 checks, the update, the files of a step.
 *
 * Adding a profile: one loss_grad function (and a workspace if it needs
 * one) and one row in profiles.c.
 */
#ifndef ISOTRAIN_PROFILE_H
#define ISOTRAIN_PROFILE_H

#include "isotrain.h"
#include "isotrain_reduce.h"

typedef enum { IT_OPT_SGD, IT_OPT_ADAMW } it_optimizer;             /* §7.1, §7.2 */
typedef enum { IT_LR_CONSTANT, IT_LR_WARMUP_LINEAR } it_lr_schedule_kind; /* §7.4 */

/* A window of the vector set: resumed from the state of `from`, to `to`. */
typedef struct {
    uint32_t from, to;
} it_window;

/* The state of a run: the caller's arrays (nparams each; m and v only for
 * AdamW, NULL for SGD) and where the run stands. */
typedef struct {
    float *params, *grads, *m, *v;
    it_adamw_clock clock; /* AdamW's running products (§7.2) */
    uint32_t step;        /* updates applied so far */
    float last_loss;      /* the last step's loss, before its update */
    float last_lr;        /* the last update's learning rate (§7.4) */
    float last_norm;      /* the last gradient's global norm before clipping (§7.3) */
    size_t bad_index;     /* with IT_ERR_NONFINITE_PARAM: the flat index */
} it_train_state;

/* What a caller may choose about a run beside the options of it_run_options:
 * it_train_config_default gives the profile's own. */
typedef struct {
    uint64_t seed;               /* the profile's, or a fresh seed (§11.9, P7 --seed) */
    float lr;                    /* the constant lr of an unscheduled profile, else the peak */
    const unsigned char *corpus; /* the profile's corpus (NULL: it has none) */
    size_t corpus_len;
    unsigned threads;            /* threads over independent outputs: speed, never bits */
    int eval;                    /* write the profile's optional evaluation fields (§13.7) */
} it_train_config;

typedef struct it_profile it_profile;

/* What a profile's functions see of a run. */
typedef struct {
    const it_profile *profile;
    const it_train_config *cfg;
    it_train_state *s;
    const it_reducer *rd; /* never NULL: it_reducer_local when the caller gave none */
    void *work;           /* the profile's workspace, from work_new */
} it_train_run;

struct it_profile {
    const char *name;    /* the spec's name of the profile (the only place it is spelled) */
    const char *since;   /* the spec version it arrived in (§1.4) */
    const char *clause;  /* its section of the spec, e.g. "11" */
    const it_tensor_info *tensors; /* checkpoint order (§N.2) */
    size_t ntensors, nparams;
    uint64_t seed;       /* §N.1 */
    /* §7 and §N.1: the optimizer and its constants, binary32 bit patterns */
    it_optimizer optimizer;
    uint32_t lr_bits, beta1_bits, beta2_bits, eps_bits, wd_bits;
    uint32_t clip_max_bits, clip_eps_bits; /* §7.3; clip_max_bits 0: no clipping */
    it_lr_schedule_kind schedule;          /* §7.4 */
    uint32_t warmup;
    uint32_t schedule_length;              /* §7.4's S (§16.2); 0: the row's steps */
    /* §N.3: the data */
    const unsigned char *corpus; /* NULL: the profile generates its data */
    const size_t *corpus_len;
    /* §N.1, §N.8, §11.9, P7: steps, the checkpoints of the default run, the
     * fresh-seed run's length, the vector set's resume windows and the
     * length of the windows the runner draws */
    uint32_t steps;
    const uint32_t *checkpoint_steps;
    size_t n_checkpoint_steps;
    uint32_t fresh_steps;
    uint32_t window_steps; /* P7 "The runner's windows": steps of each window the runner draws */
    const it_window *windows;
    size_t n_windows;
    /* the rows of a step's batch (what a data-parallel run splits, §15) */
    size_t batch_rows;
    const char *row_noun;
    int threaded; /* --threads applies (§13.5: outputs split over threads) */
    /* the evaluation steps of the optional trace fields (§13.7), or none */
    const uint32_t *eval_steps;
    size_t n_eval_steps;
    /* The profile's own code. work_new: its workspace for this run's rows
     * (NULL hook: none; a NULL result: out of memory). loss_grad: the loss
     * of step `step` (1-based) in *loss and its gradient in s->grads,
     * every sum through run->rd. trace_extra: the evaluation fields of the
     * current state (" key=value..."), at an evaluation step. */
    void *(*work_new)(const it_train_run *run);
    void (*work_free)(void *work);
    it_status (*loss_grad)(const it_train_run *run, uint32_t step, float *loss);
    void (*trace_extra)(const it_train_run *run, char *buf, size_t cap);
};

/* The table (profiles.c), in the order the spec introduced them. */
extern const it_profile *const it_profiles[];
extern const size_t it_n_profiles;
extern const it_profile it_profile_mlp13k, it_profile_addmod113, it_profile_gptchar;

/* The row named `name`, or NULL. */
const it_profile *it_profile_find(const char *name);
/* The names of every row, joined by sep ("mlp13k, addmod113, gptchar"). */
void it_profile_names(const char *sep, char *buf, size_t cap);

it_train_config it_train_config_default(const it_profile *p);

/* A state whose arrays are allocated for p (NULL: out of memory), and its
 * release. */
it_train_state *it_train_state_new(const it_profile *p);
void it_train_state_free(it_train_state *s);

/* Step 0: the init of the profile's tensors under cfg->seed, moments +0. */
void it_train_start(const it_profile *p, const it_train_config *cfg, it_train_state *s);

/* Writes the message (printf's fmt) into err (cap bytes) and returns status. */
int it_errf(char *err, size_t cap, int status, const char *fmt, ...)
#if defined(__MINGW32__)
    /* the Windows build's vsnprintf is MinGW's C99 one (mk/cross.mk
     * __USE_MINGW_ANSI_STDIO), which reads %zu; "printf" would check msvcrt's */
    __attribute__((format(gnu_printf, 4, 5)))
#elif defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* spec §2.1-§2.2: IT_OK, or IT_ERR_FPENV with what the probe found in err. */
it_status it_fpenv_check(char *err, size_t cap);

/* THE run loop, every profile (spec §9, §10, §8.3-§8.4): probes the FP
 * environment, starts from step 0 or resumes from o->resume_dir, writes the
 * trace and the files of each step, runs to o->steps with every step's sums
 * through rd (NULL: it_reducer_local). On failure err says why. */
it_status it_train_run_profile(const it_profile *p, const it_train_config *cfg, const it_run_options *o,
                               const it_reducer *rd, it_train_state *s, char *err, size_t cap);

/* One step (loss, §10 check, update, §10 check) on a run whose workspace
 * the caller holds. */
it_status it_train_step(const it_train_run *run);

/* One step outside a run (a workspace of its own for the step). */
it_status it_train_step_alone(const it_profile *p, const it_train_config *cfg, it_train_state *s);

/* The failure of a run as iut-protocol P7 reports it: the step it failed in
 * (the loss of step+1, a parameter after step's update, 0 for the FP
 * environment); 0 when st is not a run failure. */
int it_train_failure_step(it_status st, const it_train_state *s, uint32_t *step);

#endif
