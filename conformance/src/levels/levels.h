/* levels.h — what `run` (cli/run.c) calls, in order: the greeting, then each
 * level. Each fills the shared run_ctx (run_ctx.h); none calls back into the
 * command. */
#ifndef CONFORM_LEVELS_LEVELS_H
#define CONFORM_LEVELS_LEVELS_H

#include "levels/run_ctx.h"

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

#endif
