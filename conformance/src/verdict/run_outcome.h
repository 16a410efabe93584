/* run_outcome.h — the verdict of one run from what ran: the facts the
 * verdict table (verdict/scope.h) reads, and the level each selected profile
 * reached. `run` calls these once its levels are done; they read the run's
 * parts, never the run's state (levels/run_ctx.h), so the verdict stays below
 * the levels that feed it. */
#ifndef CONFORM_VERDICT_RUN_OUTCOME_H
#define CONFORM_VERDICT_RUN_OUTCOME_H

#include <stdint.h>

#include "core/options.h"
#include "core/results.h"
#include "vectorset/vectors_load.h"
#include "verdict/requirements.h"
#include "verdict/scope.h"

/* What one run did, as the verdict needs it. */
typedef struct {
    int hello_ok;
    level_verdict lv_ops; /* the ops process misbehaved around its cases: L_ERROR */
    int official;         /* the set's manifest digest is pinned */
    int subject_unbound;  /* the shell form */
    uint64_t run_seed;
    const conform_args *a;
    const vector_set *vs;
    const char *manifest_digest;
    const char *recipe_sha256; /* a recipe set's recipe (its verdict names it), or NULL */
    req_ctx *req; /* after hello: the spec version judged by */
    results *res; /* every case (req_apply sets their required flags) */
} run_outcome;

/* The level one profile reached: "none", "ops" or "train". */
typedef struct {
    const char *profile, *level;
} reached_level;

/* The overall verdict and its scope; marks every case required or not. */
void run_outcome_verdict(const run_outcome *o, run_verdict *out);
/* The level each selected profile reached (conformance/README.md
 * "Verdicts"); *out is the caller's to free. Returns how many. */
size_t run_outcome_reached(const run_outcome *o, reached_level **out);
/* "train" when every profile reached the same level, else "mlp13k train,
 * addmod113 none" (the caller frees it). */
char *run_outcome_reached_text(const reached_level *r, size_t n);

#endif
