/* levels.h — what `run` (cli/run.c) calls, in order: the greeting, then each
 * level. Each fills the shared run_ctx (run_ctx.h); none calls back into the
 * command. */
#ifndef CONFORM_LEVELS_LEVELS_H
#define CONFORM_LEVELS_LEVELS_H

#include "levels/run_ctx.h"
#include "protocol/train_exec.h"

/* P2: hello (and `info` for the receipt). Returns 0 if hello passed. */
int hello_run(run_ctx *rc);
/* 1 when hello (P2) carries the word, e.g. "train_resume=1". */
int hello_advertises(const char *hello, const char *word);
/* The ops level over the vector set (P3-P6, P8). */
void level_ops_run(run_ctx *rc);
/* The train level for every selected profile (P7, P8). */
void level_train_run(run_ctx *rc);
/* The windows of one profile (spec §8.4; level_windows.c), with --windows. */
void level_windows_run(run_ctx *rc, const train_vec *tv);
/* Fresh cases drawn from the run seed (conformance/README.md "Fresh cases"):
 * per selected op group, and a fresh-seed training run. */
void level_fresh_run(run_ctx *rc);
/* A recipe set (levels/recipe_level.c): the recipe the manifest pinned,
 * read by the linked reference's strict reader; 0, or -1 with its message
 * (naming the file and field) in err. */
int recipe_set_open(run_ctx *rc, char *err, size_t cap);
/* A recipe set's op vectors (vectorset/ops_base.h): the family's groups of
 * the pinned set at --ops-vectors or its default place, into rc->vs; 0, or
 * -1 once refused (the problems on stderr, the refusal on rc->out). */
int recipe_ops_open(run_ctx *rc);
/* The files a recipe run is given (recipe_level.c): the set's files
 * outside train/ and windows/ (the recipe and its corpus), verified; the
 * caller frees rec->files. */
void recipe_inputs(const run_ctx *rc, train_recipe *rec);
/* The corpus digest the recipe names (spec §16.1), or NULL outside a
 * recipe set. */
const unsigned char *recipe_corpus_sha256(const run_ctx *rc);
/* The fresh case fresh/<recipe>/corpus-digest (levels/recipe_refusal.c):
 * the recipe with its corpus altered must be refused (P7 1.3.0). */
void recipe_refusal_run(run_ctx *rc, const train_vec *tv);
/* Runs the IUT's training of tv as q asks (train_exec_run): what it trains
 * is tv's profile, or in a recipe set the recipe (the recipe and its corpus
 * given as the manifest verified them); every checkpoint is capped at 4*P
 * bytes; a q.timeout of 0 is the profile's budget for the steps run
 * (levels/time_budget.h). */
int rc_train_run(run_ctx *rc, const train_vec *tv, train_request q, train_exec *x, char *err, size_t cap);

#endif
