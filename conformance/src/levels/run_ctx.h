/* run_ctx.h — the state of one `isotrain-conform run`: configuration, the
 * verified vector set, the IUT's self-description, every case's verdict,
 * level verdicts, localization findings and timings. The levels fill it; the
 * summary, the receipt and JUnit read it. */
#ifndef CONFORM_LEVELS_RUN_CTX_H
#define CONFORM_LEVELS_RUN_CTX_H

#include <cjson/cJSON.h>
#include <stdio.h>

#include "core/options.h"
#include "vectorset/manifest.h"
#include "protocol/ops_engine.h"
#include "core/results.h"
#include "core/util.h"
#include "vectorset/vectors_load.h"
#include "vectorset/official.h"
#include "host/hostinfo.h"
#include "verdict/scope.h"
#include "verdict/requirements.h"
#include "verdict/run_outcome.h"
#include "protocol/iut_target.h"

typedef struct {
    char *key, *val;
} kvpair;

/* One profile's training run (train level). */
typedef struct {
    char *profile;
    uint32_t steps_requested, steps_in_vectors;
    char status[320];   /* how the train process ended */
    char *failure;      /* P7 "failure=<name> step=<t>" from stderr, if any */
    char *stderr_tail, *stdout_tail;
    char *problem;      /* why the run case failed, NULL if it passed */
    int first_bad_step; /* first step whose parameters differ, -1 if none */
    sbuf loc_text;      /* localization, human-readable */
    cJSON *loc_json;    /* localization, for the receipt */
    double seconds;
    char *work_dir;     /* kept with --keep-work */
    /* every step as this run produced it (loss bits, the runner's SHA-256),
     * so `verify` can check each step's verdict against the vectors */
    struct step_seen {
        int reached, has_loss, present;
        uint32_t loss;
        char sha256[65];
    } *steps_seen;
    size_t n_steps_seen;
    /* The vectors' checkpoint steps as this run produced them (the host
     * matrix compares these across hosts): n_ck entries. */
    struct ck_seen {
        uint32_t step;
        int reached;      /* the trace reached the step */
        int has_loss;     /* step > 0 */
        uint32_t loss;
        int present;      /* the checkpoint file exists with 4*P bytes */
        char sha256[65];  /* the runner's hash of the file ("" if absent) */
        int same;         /* equals the vectors' digest */
    } *ck;
    size_t n_ck;
} train_report;

typedef struct {
    const conform_args *a;
    FILE *out;
    double t_start;
    char started_utc[32];
    manifest_info man;
    vector_set vs;
    results res;
    /* P2 hello */
    int hello_ok;
    char *hello_line, *iut_name, *iut_version, *iut_spec;
    char *hello_problem;
    /* `CMD info` (not part of the protocol; recorded when it answers) */
    char *info_status;
    kvpair *info;
    size_t n_info;
    /* stderr lines of hello/info that say "warning" (an emulator's, e.g.
     * QEMU's "TCG doesn't support requested feature"), for the receipt */
    char **emu_warnings;
    size_t n_emu_warnings;
    /* levels */
    level_verdict lv_ops, lv_train;
    char *ops_note, *train_note;
    double t_manifest, t_load, t_hello, t_ops, t_train, t_total;
    ops_summary ops_sum;
    int ops_ran;
    train_report *trains;
    size_t n_trains;
    char *warnings[16];
    size_t n_warnings;
    /* trust (conformance/README.md "Verdicts"): the pinned set this run is
     * against (NULL: UNOFFICIAL), the run seed of the fresh cases, the IUT
     * binary as hashed before anything ran, the derived verdict */
    const official_set *official;
    uint64_t run_seed;
    int train_seed;          /* hello advertised train_seed=1 (P7, spec 1.1.0) */
    iut_binary bin_before;
    level_verdict lv_fresh;
    char *fresh_note;
    double t_fresh;
    /* the fresh-seed training run, step by step, for the receipt and verify */
    struct fresh_step {
        uint32_t step;
        int reached, has_loss, ref_has_loss;
        uint32_t loss, ref_loss;
        char sha256[65], ref_sha256[65];
    } *fresh_steps;
    size_t n_fresh_steps;
    int fresh_train_ran;
    size_t n_fresh_ops;
    run_verdict verdict;
    /* the spec version certified and what it requires (after hello) */
    req_ctx req;
    /* the level each profile reached (verdict/run_outcome.h) */
    reached_level *reached;
    size_t n_reached;
    /* the argv form's target (protocol/iut_target.h): the bound subject;
     * NULL for the shell form (subject unbound) */
    iut_target *target;
    /* the time-out calibration (levels/time_budget.h): the linked
     * reference's seconds per step of each profile, measured once a run */
    struct step_cost {
        char profile[32];
        double step_s; /* < 0: the runner links no reference for it */
    } costs[8];
    size_t n_costs;
    /* a recipe set (vectorset/recipe_set.h; man.recipe_path not NULL): the
     * recipe's name, the profile its traces carry (levels/recipe_level.c) */
    char *recipe_name;
    /* the recipe as the linked reference reads it and its row of the run
     * loop (isotrain_gpt.h): what the fresh-seed run and the fresh windows
     * of a recipe set are computed with */
    struct it_gpt_recipe_ctx *recipe;
    /* the op set a recipe set's ops come from (vectorset/ops_base.h) */
    char *ops_dir, ops_digest[65];
    /* the key a recipe set's MANIFEST.json.sig verifies with ("" unsigned) */
    char recipe_signer[64];
} run_ctx;

void run_warn(run_ctx *rc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Frees a recipe (levels/recipe_level.c); NULL is nothing. */
void recipe_ctx_free(struct it_gpt_recipe_ctx *c);

/* Frees everything the run holds (not rc itself). */
void run_ctx_free(run_ctx *rc);

/* Effective time-outs (P8 defaults times --slowdown). */
double rc_timeout_case(const run_ctx *rc);
double rc_timeout_run(const run_ctx *rc);

#endif
