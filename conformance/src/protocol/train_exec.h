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

/* A recipe run (P7 1.3.0: `train --recipe FILE` in place of --profile): the
 * files the recipe needs (itself and its corpus, at their paths relative to
 * the vector set), given as the verified bytes the runner holds, so the IUT
 * reads what the manifest pinned; recipe_rel is the recipe among them. They
 * are written under WORKDIR/set and the IUT gets `--recipe WORKDIR/set/REL`. */
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
/* What a run trains (P7): a profile by name, or a recipe (1.3.0). */
typedef struct {
    const char *profile;
    const train_recipe *recipe; /* not NULL: `--recipe`, and profile is unused */
} train_what;

/* One training run, every kind the runner makes (P7). */
typedef struct {
    train_what what;
    uint32_t steps;                 /* --steps N */
    const char *seed;               /* --seed S (spec 1.1.0), or NULL: the profile's seed */
    uint32_t from;                  /* resumed from the state of this step (spec §8.4), else 0 */
    const char *const *state_files; /* that state's n_state files, each <= ck_size bytes; */
    size_t n_state;                 /*   0: a run from step 0 */
    const char *state_steps;        /* --state-steps LIST (P7 1.2.0), or NULL */
    uint64_t ck_size;               /* P8: every checkpoint is exactly 4*P bytes */
    double timeout;                 /* seconds, from the IUT's start (P8) */
} train_request;

/* Runs `CMD train --profile P|--recipe FILE --steps N --trace T
 * --checkpoint-dir D --checkpoint-steps all`, with `--seed S`, `--resume DIR
 * --from-step FROM` (the state files copied into the work directory first,
 * so the IUT never touches the vector set's) and `--state-steps LIST` as q
 * asks. Every file is read after the IUT's process tree is gone, relative to
 * directory descriptors, never through a link, and capped (P8): the trace at
 * 1 MiB, each checkpoint at q->ck_size bytes; the trace is parsed from step
 * q->from on. Returns 0, or -1 (with err) if no work directory could be
 * made; a failed IUT is described in x, not an error. */
int train_exec_run(const char *cmd, const train_request *q, train_exec *x, char *err, size_t cap);
/* 1 if the IUT declined the run (P7): it started and ended by itself with a
 * non-zero status, no signal, no time-out, not killed by the runner. What
 * the refusal means (not implemented, a FAIL) is the level's to judge. */
int train_exec_refused(const train_exec *x);
/* Removes the directory unless keep; frees everything. */
void train_exec_free(train_exec *x, int keep);

#endif
