/* train_exec.h — one training run of an IUT (spec/iut-protocol.md P7) in a
 * fresh temporary directory, with every step checkpointed, the P8 caps
 * watched while it runs, the trace parsed strictly and every checkpoint file
 * hashed by the runner. Shared by the train level and `repeat`. */
#ifndef CONFORM_TRAIN_EXEC_H
#define CONFORM_TRAIN_EXEC_H

#include <stdint.h>

#include "protocol/iut_process.h"
#include "protocol/trace.h"

typedef struct {
    int present;     /* a directory entry of that name exists */
    uint64_t size;
    char sha256[65]; /* "" unless the file was read */
    char *problem;   /* why it was not read: a link, a FIFO, over the cap ... */
} ckpt_file;

typedef struct {
    char *dir, *trace_path, *ckdir;
    int ck_fd;             /* the checkpoint directory as opened after the run
                            * (never through a link), -1 if it could not be */
    uint32_t steps;
    uint32_t from;         /* a resumed run's first step (spec §8.4), else 0 */
    int started;
    iut_result r;
    int trace_exists;      /* a directory entry trace.txt exists */
    int trace_read;        /* a regular file within the cap, read */
    int trace_ok;          /* read and parsed without error (it may still be short) */
    char trace_err[512];   /* why not: not a regular file, over the cap, or the
                            * parse error naming the line */
    trace_doc tr;
    ckpt_file *ck;         /* steps + 1 entries */
    char *failure;         /* "failure=<name> step=<t>" from stderr (P7) */
} train_exec;

/* Runs `CMD train --profile P --steps N --trace T --checkpoint-dir D
 * --checkpoint-steps all`. Every file is read after the IUT's process tree
 * is gone, relative to directory descriptors, never through a link, and
 * capped (P8): the trace at 1 MiB, each checkpoint at ck_size bytes. Returns 0, or -1 (with err) if no temporary
 * directory could be made; a failed IUT is described in x, not an error. */
int train_exec_run(const char *cmd, const char *profile, uint32_t steps, uint64_t ck_size, double timeout,
                   train_exec *x, char *err, size_t cap);
/* The same with `--seed S` (P7, spec 1.1.0) when seed is not NULL. */
int train_exec_run_seed(const char *cmd, const char *profile, uint32_t steps, const char *seed, uint64_t ck_size,
                        double timeout, train_exec *x, char *err, size_t cap);
/* The same resumed from a state (spec §8.4, P7 1.2.0): the n_state files
 * (the state of step `from`, each at most ck_size bytes) are copied into the
 * work directory and passed as `--resume DIR --from-step FROM`; the trace is
 * parsed from step `from` on. With n_state 0 it is train_exec_run_seed. */
int train_exec_run_resume(const char *cmd, const char *profile, uint32_t steps, const char *seed, uint32_t from,
                          const char *const *state_files, size_t n_state, uint64_t ck_size, double timeout,
                          train_exec *x, char *err, size_t cap);
/* The same from step 0 with `--state-steps LIST` (P7 1.2.0): the IUT also
 * writes its complete state (spec §8.3) at those steps into the checkpoint
 * directory (x->ckdir), for the runner to resume it from its own state. */
int train_exec_run_states(const char *cmd, const char *profile, uint32_t steps, const char *seed,
                          const char *state_steps, uint64_t ck_size, double timeout, train_exec *x, char *err,
                          size_t cap);
/* A recipe run (P7 1.3.0: `train --recipe FILE` in place of --profile): the
 * files the recipe needs (itself and its corpus, at their paths relative to
 * the vector set), given as the verified bytes the runner holds, so the IUT
 * reads what the manifest pinned; recipe_rel is the recipe among them. */
typedef struct {
    const char *rel;
    const unsigned char *data;
    size_t len;
} train_input;
typedef struct {
    const char *recipe_rel;
    const train_input *files;
    size_t n_files;
} train_recipe;
/* train_exec_run with `--recipe WORKDIR/set/RECIPE_REL` (the files written
 * under WORKDIR/set first) in place of `--profile`. */
int train_exec_run_recipe(const char *cmd, const train_recipe *rec, uint32_t steps, uint64_t ck_size, double timeout,
                          train_exec *x, char *err, size_t cap);
/* What a run trains (P7): a profile by name, or a recipe (1.3.0). */
typedef struct {
    const char *profile;
    const train_recipe *recipe; /* not NULL: `--recipe`, and profile is unused */
} train_what;
/* The one general form of the runs above: from step 0 (n_state 0) or
 * resumed from the state of step `from`, with `--seed` when seed is not
 * NULL and `--state-steps` when state_steps is not NULL. */
int train_exec_run_what(const char *cmd, const train_what *w, uint32_t steps, const char *seed, uint32_t from,
                        const char *const *state_files, size_t n_state, const char *state_steps, uint64_t ck_size,
                        double timeout, train_exec *x, char *err, size_t cap);
/* 1 if the IUT declined the run (P7): it started and ended by itself with a
 * non-zero status, no signal, no time-out, not killed by the runner. What
 * the refusal means (not implemented, a FAIL) is the level's to judge. */
int train_exec_refused(const train_exec *x);
/* Removes the directory unless keep; frees everything. */
void train_exec_free(train_exec *x, int keep);

#endif
