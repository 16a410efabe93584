/* scope.h — the overall verdict of a run and its scope (conformance/README.md
 * "Verdicts"). One function derives it from facts that both `run` (from what
 * ran) and `verify` (from a receipt's own case list and options) can fill, so
 * a receipt's verdict can be recomputed by anyone holding it. */
#ifndef CONFORM_VERDICT_SCOPE_H
#define CONFORM_VERDICT_SCOPE_H

#include <stddef.h>

#include "core/results.h"
#include "verdict/requirements.h"

enum { SCOPE_MAX_REASONS = 24 };

/* Exit codes of `run`; 2 stays "bad usage, refused vectors, I/O". */
enum { EXIT_PASS = 0, EXIT_FAIL = 1, EXIT_PARTIAL = 3, EXIT_UNOFFICIAL = 4, EXIT_REPRODUCTION = 5, EXIT_RECIPE_PASS = 6 };

typedef struct {
    int hello_ok;
    const char *level;     /* --level: ops, train or all */
    size_t n_filters;      /* --filter groups given */
    const char *profile;   /* --profile, NULL if none */
    int profile_excludes;  /* --profile left a profile of the set unrun */
    long steps;            /* --steps, -1 if none */
    long set_steps;        /* the fewest steps of a selected profile in the set */
    int official;          /* the set's manifest digest is pinned (vectorset/official.c) */
    const char *manifest_digest;
    /* per level: the cases of "ops", "train" and "fresh" (results.h) */
    tally ops, train, fresh, protocol;
    /* the first skipped required case of each level, for the reason text */
    const char *first_skip_id[3], *first_skip_reason[3];
    /* the first failed or errored case, in case order (the closing line names it) */
    const char *first_bad_id, *first_bad_reason;
    /* the spec versions (verdict/requirements.h); NULL: not known (no version reason) */
    const req_ctx *req;
    const results *res; /* the case list (scope_facts_from_results) */
    /* trust (conformance/README.md "What a receipt proves"): the fresh-case
     * seed came from the caller (--seed: a reproduction, never a
     * certification); the subject is bound (the argv form) or why not; the
     * golden vectors were left out (--fresh-only) */
    int seed_given;
    const char *seed;
    int subject_unbound;
    int fresh_only;
    int interrupted;      /* the runner got this signal (P8): ERROR, exit 128 + it */
    /* a recipe set's recipe digest (vectorset/recipe_set.h), NULL for an
     * official set: its certification is the recipe's run (the train
     * level), worded "PASS (recipe sha256:HEX)", never the official PASS */
    const char *recipe_sha256;
} scope_facts;

typedef struct {
    const char *word; /* PASS, FAIL, PARTIAL, UNOFFICIAL, REPRODUCTION, ERROR (interrupted), or
                       * "PASS (recipe sha256:HEX)" (in word_own) */
    char *word_own;
    int exit_code;
    char *reasons[SCOPE_MAX_REASONS]; /* why this is not a full certification */
    size_t n_reasons;
    char *first_failure; /* FAIL: "ID: reason" of the first failed case, NULL otherwise */
} run_verdict;

/* The reason a shell-form run gives (the closing line, the receipt). */
#define SCOPE_SUBJECT_UNBOUND "subject unbound (shell form): --iut runs a shell command, whose program the runner cannot bind; --iut-exec binds it"
/* What verify and matrix say of a REPRODUCTION. */
#define SCOPE_NOT_EVIDENCE "not certification evidence: the fresh-case seed was chosen by the caller (--seed)"

/* The verdict table of conformance/README.md, "Verdicts". */
void scope_verdict(const scope_facts *f, run_verdict *out);
void run_verdict_free(run_verdict *v);

/* Fills the tallies and first skipped cases of f from a case list. */
void scope_facts_from_results(scope_facts *f, const results *r);

#endif
