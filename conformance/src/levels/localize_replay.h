/* localize_replay.h — the op replay of localization, shared by the profile
 * files (localize_mlp13k.c, localize_addmod113.c, localize_gptchar.c, each
 * found through its row in levels/runner_profiles.c): a list of
 * op requests with the outputs the linked reference expects, sent through
 * one `ops` process. */
#ifndef CONFORM_LOCALIZE_REPLAY_H
#define CONFORM_LOCALIZE_REPLAY_H

#include "levels/localize.h"
#include "levels/runner_profiles.h"
#include "isotrain_profile.h"
#include "fresh/fresh.h"
#include "protocol/ops_engine.h"

typedef struct {
    ops_req *reqs;
    value *wants; /* 4 per request */
    char **ids;
    size_t n, cap;
} replay;

/* Adds a request; returns its 4 expected outputs to fill. */
value *rp_add(replay *rp, const char *op_name, const char *id, const char *kv);
void replay_free(replay *rp);
/* the expected outputs and request keys are written as the fresh cases
 * write theirs (fresh/fresh.h: fresh_want_f32, fresh_kv_f32) */
void kv_int(sbuf *b, const char *key, unsigned long v);
/* One indented line of the localization text. */
void line(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The first differing checkpoint element of step T, its lines and receipt
 * keys (localize.c); returns its flat index, or n when none differs. */
size_t first_difference(sbuf *t, cJSON *j, uint32_t T, const float *iut, const float *ref, size_t n,
                        const it_tensor_info *tensors, size_t ntensors);

/* One `op` request per tensor of p (its init, spec §N.4), expecting ref's
 * values of that tensor. */
void replay_add_init(replay *rp, const it_profile *p, const char *op, const float *ref);

/* Runs rp through one `ops` process (each call `scale` times the case
 * timeout). Returns the first call whose outputs differ (rp->n: none);
 * *res (rp->n rows) and *sum say the rest, *n_unanswered counts the calls
 * answered without outputs, which show nothing. Free with replay_done. */
size_t replay_run(run_ctx *rc, replay *rp, double scale, ops_res **res, ops_summary *sum, size_t *n_unanswered);

/* The line and receipt keys of the first differing op: call i of rp,
 * described as `what`. */
void replay_say_op(sbuf *t, cJSON *j, const char *what, const replay *rp, size_t i, const ops_res *res);

/* The line when no op differs: not possible when some of the n `calls`
 * were not answered, else "none: " and why none is the culprit. */
void replay_say_none(sbuf *t, size_t n_unanswered, size_t n, const char *calls, const ops_summary *sum,
                     const char *none);

/* Frees the replay, its results and summary. */
void replay_done(replay *rp, ops_res *res, ops_summary *sum);

/* What call i of the replay of step T computes, for the line that names it. */
typedef const char *replay_what_fn(uint32_t T, size_t i);

/* replay_run, then the line and keys of the first differing op (what
 * names it), or replay_say_none saying `none` matched (so the defect is in
 * how the IUT keeps its parameters); frees the replay. */
void replay_conclude(run_ctx *rc, replay *rp, double scale, uint32_t T, replay_what_fn *what, const char *none,
                     train_report *rep, cJSON *j);

/* Reads the IUT's checkpoint of `step` from ck_fd: 0, or -1 when it is
 * missing or not exactly 4*n bytes (spec §8.1). */
int load_iut_ckpt(int ck_fd, uint32_t step, float *params, size_t n);

/* One `adamw` request (spec §7.2): element elem's update at step T from
 * its parameter p, gradient g and moments m, v before it, under constants
 * c, whose first five are the request's hyper; expecting the linked
 * reference's p, m, v after it. */
void replay_add_adamw(replay *rp, uint32_t T, size_t elem, const it_adamw_consts *c, const float hyper[5], float p,
                      float g, float m, float v);

/* The options that run the linked reference from a window's start state
 * (o->resume_dir, step o->from) to the state before step T (spec §8.4). */
it_run_options localize_resume_options(const localize_origin *o, uint32_t T);

/* Says the linked reference does not give step T: the vectors' (o NULL),
 * or the window's, resumed from the state of step o->from. */
void localize_ref_disagrees(sbuf *t, cJSON *j, const localize_origin *o, uint32_t T);

#define LOCALIZE_NONE ((size_t)-1)
/* Every profile's middle of localization: ref (the linked reference's state
 * of step T under p) against the vectors' digest (a window: o->digest), then the IUT's checkpoint
 * (read into iut, p->nparams floats) element by element. Returns the first
 * differing flat index (p->nparams: none, or no usable checkpoint), or
 * LOCALIZE_NONE when the reference disagrees with the vectors (said). */
size_t localize_tensors(const train_vec *tv, const it_profile *p, int ck_fd, uint32_t T, const localize_origin *o,
                        const float *ref, float *iut, sbuf *t, cJSON *j);

/* 1 (said in t) when the IUT's ops verb is known to be missing: no op can
 * be named. */
int localize_no_ops(const run_ctx *rc, sbuf *t);

/* The localizers of the profiles (runner_localize_fn, levels/runner_profiles.h). */
runner_localize_fn localize_mlp13k;
runner_localize_fn localize_addmod113;
runner_localize_fn localize_gptchar;

#endif
