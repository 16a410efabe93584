/* localize_mlp13k.c — where an mlp13k run departs (spec §11): the linked
 * reference's state of the departing step, then the op that departs,
 * replayed position by position in the order of §11.6 (then sgd, §7.1), or
 * mlp13k_init tensor by tensor at step 0. Found through its row in
 * levels/runner_profiles.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "isotrain.h"
#include "isotrain_profile.h"
#include "levels/localize_replay.h"

#define P IT_MLP13K_NPARAMS


/* The ops of one position of spec §11.6, in the order the brief lists them,
 * then sgd (§7.1). */
enum { OPS_PER_POS = 10 };
static const char *const pos_ops[OPS_PER_POS] = {
    "embedding_forward", "linear_forward", "tanh", "linear_forward", "softmax_xent_forward",
    "softmax_xent_backward", "linear_backward", "tanh_backward", "linear_backward", "embedding_backward"};


enum { V = IT_MLP13K_VOCAB, D = IT_MLP13K_EMBED, H = IT_MLP13K_HIDDEN, B = IT_MLP13K_BATCH };

/* Replays one linear_forward (§5.2) of in -> out into y. */
static void add_linear_forward(replay *rp, sbuf *kv, const char *op, const char *id, const float *w, const float *b,
                               const float *x, size_t in, size_t out, float *y)
{
    it_linear_forward(w, b, x, in, out, y);
    sbuf_reset(kv);
    kv_int(kv, "in", in);
    kv_int(kv, "out", out);
    fresh_kv_f32(kv, "w", w, out * in);
    fresh_kv_f32(kv, "b", b, out);
    fresh_kv_f32(kv, "x", x, in);
    fresh_want_f32(&rp_add(rp, op, id, kv->p)[0], y, out);
}

/* Replays one accumulating linear_backward (§5.7) of in -> out: records the
 * gradients it accumulates onto (dw, db) as inputs, runs it, and expects
 * the accumulated dw, db and the input gradient dx. dw_before and
 * db_before are scratch of at least out*in and out floats. */
static void add_linear_backward(replay *rp, sbuf *kv, const char *op, const char *id, const float *w, const float *x,
                                const float *dy, size_t in, size_t out, float *dw, float *db, float *dx,
                                float *dw_before, float *db_before)
{
    memcpy(dw_before, dw, out * in * sizeof *dw);
    memcpy(db_before, db, out * sizeof *db);
    it_linear_backward(w, x, dy, in, out, dw, db, dx);
    sbuf_reset(kv);
    kv_int(kv, "in", in);
    kv_int(kv, "out", out);
    fresh_kv_f32(kv, "w", w, out * in);
    fresh_kv_f32(kv, "x", x, in);
    fresh_kv_f32(kv, "dy", dy, out);
    fresh_kv_f32(kv, "dw", dw_before, out * in);
    fresh_kv_f32(kv, "db", db_before, out);
    value *v = rp_add(rp, op, id, kv->p);
    fresh_want_f32(&v[0], dw, out * in);
    fresh_want_f32(&v[1], db, out);
    fresh_want_f32(&v[2], dx, in);
}

/* Builds the replay of training step `step` from the state before it and
 * checks that the recomposition reproduces the library's step. grads_out
 * receives the recomposed gradient. Returns 0 if the recomposition agrees with
 * it_mlp13k_loss_grad bit for bit. */
static int build_replay(replay *rp, const it_mlp13k_recipe *r, const float *params, uint32_t step, float *grads,
                        float *after)
{
    unsigned char xs[B], ys[B];
    it_mlp13k_batch(r, step, xs, ys);
    const float *E = params + IT_MLP13K_OFF_EMBED, *W1 = params + IT_MLP13K_OFF_W1, *b1 = params + IT_MLP13K_OFF_B1,
                *W2 = params + IT_MLP13K_OFF_W2, *b2 = params + IT_MLP13K_OFF_B2;
    float *dE = grads + IT_MLP13K_OFF_EMBED, *dW1 = grads + IT_MLP13K_OFF_W1, *db1 = grads + IT_MLP13K_OFF_B1,
          *dW2 = grads + IT_MLP13K_OFF_W2, *db2 = grads + IT_MLP13K_OFF_B2;
    for (size_t i = 0; i < P; i++)
        grads[i] = 0.0f;
    const float inv = 1.0f / (float)B; /* 0x3c800000: exact */
    /* the accumulated gradients before a backward op: its dw/db inputs */
    static float dW_before[V * H], db_before[V], dE_before[V * D];
    sbuf kv;
    sbuf_init(&kv);
    char id[64];
    for (unsigned p = 0; p < B; p++) {
        float e[D], z1[H], h[H], z2[V], probs[V], loss, dz2[V], dh[H], dz1[H], de[D];
        value *w;
#define ID(k) (snprintf(id, sizeof id, "replay/%u/p%u/%d", (unsigned)step, p, (k)), id)
        /* 1 embedding_forward (§5.1) */
        it_embedding_forward(E, D, xs[p], e);
        sbuf_reset(&kv);
        kv_int(&kv, "dim", D);
        fresh_kv_f32(&kv, "e", E, V * D);
        kv_int(&kv, "token", xs[p]);
        w = rp_add(rp, pos_ops[0], ID(1), kv.p);
        fresh_want_f32(&w[0], e, D);
        /* 2 linear_forward 16 -> 32 (§5.2) */
        add_linear_forward(rp, &kv, pos_ops[1], ID(2), W1, b1, e, D, H, z1);
        /* 3 tanh (§5.3) */
        it_tanh_forward(z1, H, h);
        sbuf_reset(&kv);
        fresh_kv_f32(&kv, "x", z1, H);
        w = rp_add(rp, pos_ops[2], ID(3), kv.p);
        fresh_want_f32(&w[0], h, H);
        /* 4 linear_forward 32 -> 256 */
        add_linear_forward(rp, &kv, pos_ops[3], ID(4), W2, b2, h, H, V, z2);
        /* 5 softmax_xent_forward (§5.4) */
        loss = it_softmax_xent_forward(z2, V, ys[p], probs);
        sbuf_reset(&kv);
        fresh_kv_f32(&kv, "z", z2, V);
        kv_int(&kv, "target", ys[p]);
        w = rp_add(rp, pos_ops[4], ID(5), kv.p);
        fresh_want_f32(&w[0], probs, V);
        fresh_want_f32(&w[1], &loss, 1);
        /* 6 softmax_xent_backward (§5.5) */
        it_softmax_xent_backward(probs, V, ys[p], inv, dz2);
        sbuf_reset(&kv);
        fresh_kv_f32(&kv, "probs", probs, V);
        kv_int(&kv, "target", ys[p]);
        fresh_kv_f32(&kv, "scale", &inv, 1);
        w = rp_add(rp, pos_ops[5], ID(6), kv.p);
        fresh_want_f32(&w[0], dz2, V);
        /* 7 linear_backward 32 -> 256 (§5.7), accumulating */
        add_linear_backward(rp, &kv, pos_ops[6], ID(7), W2, h, dz2, H, V, dW2, db2, dh, dW_before, db_before);
        /* 8 tanh_backward (§5.6) */
        it_tanh_backward(h, dh, H, dz1);
        sbuf_reset(&kv);
        fresh_kv_f32(&kv, "y", h, H);
        fresh_kv_f32(&kv, "dy", dh, H);
        w = rp_add(rp, pos_ops[7], ID(8), kv.p);
        fresh_want_f32(&w[0], dz1, H);
        /* 9 linear_backward 16 -> 32 */
        add_linear_backward(rp, &kv, pos_ops[8], ID(9), W1, e, dz1, D, H, dW1, db1, de, dW_before, db_before);
        /* 10 embedding_backward (§5.8), one position */
        memcpy(dE_before, dE, sizeof dE_before);
        it_embedding_backward(dE, D, xs[p], de);
        sbuf_reset(&kv);
        kv_int(&kv, "dim", D);
        fresh_kv_f32(&kv, "de", dE_before, V * D);
        kv_int(&kv, "tokens", xs[p]);
        fresh_kv_f32(&kv, "dout", de, D);
        w = rp_add(rp, pos_ops[9], ID(10), kv.p);
        fresh_want_f32(&w[0], dE, V * D);
#undef ID
    }
    /* 11 sgd (§7.1) */
    memcpy(after, params, P * sizeof *after);
    it_mlp13k_recipe rr = *r;
    it_sgd_update(after, grads, P, rr.lr);
    sbuf_reset(&kv);
    fresh_kv_f32(&kv, "p", params, P);
    fresh_kv_f32(&kv, "g", grads, P);
    fresh_kv_f32(&kv, "lr", &rr.lr, 1);
    snprintf(id, sizeof id, "replay/%u/sgd", (unsigned)step);
    value *w = rp_add(rp, "sgd", id, kv.p);
    fresh_want_f32(&w[0], after, P);
    sbuf_free(&kv);
    for (size_t i = 0; i < rp->n; i++)
        rp->reqs[i].want = &rp->wants[4 * i];

    /* the recomposition must be the library's own step */
    static float lib_grads[P];
    it_mlp13k_loss_grad(params, xs, ys, B, lib_grads);
    return memcmp(lib_grads, grads, sizeof lib_grads) == 0 ? 0 : -1;
}


/* The lines and receipt keys of the first differing op of the replay of
 * step `step`: call `first` of rp, named by its position and its place in
 * it (or sgd, the last call), then its first differing output element, the
 * later calls that differ too and the earlier ones not answered. */
static void say_first_op(sbuf *t, cJSON *j, const replay *rp, const ops_res *res, size_t first,
                         size_t unanswered_before, uint32_t step)
{
    const ops_req *q = &rp->reqs[first];
    const ops_res *x = &res[first];
    int is_sgd = first == rp->n - 1;
    unsigned pos = (unsigned)(first / OPS_PER_POS), k = (unsigned)(first % OPS_PER_POS) + 1;
    cJSON *o = cJSON_AddObjectToObject(j, "first_op");
    cJSON_AddStringToObject(o, "op", q->op->name);
    cJSON_AddStringToObject(o, "call", rp->ids[first]);
    if (is_sgd) {
        line(t, "first differing op: sgd (spec §7.1), after all 64 positions of step %u", (unsigned)step);
    } else {
        line(t, "first differing op: %s (spec §%s) at position %u of step %u (op %u of %d in that position)",
             q->op->name, q->op->clause, pos, (unsigned)step, k, OPS_PER_POS);
        cJSON_AddNumberToObject(o, "position", pos);
        cJSON_AddNumberToObject(o, "op_in_position", k);
    }
    if (x->has_diff) {
        char g[48], w[48];
        const op_field *f = &q->op->out[x->diff_key];
        f32_describe((uint32_t)x->got, g, sizeof g);
        f32_describe((uint32_t)x->want, w, sizeof w);
        line(t, "  output %s[%zu]: IUT %s, reference %s, %llu ULP (%zu of %zu elements of %s differ)",
             f->key, x->diff_index, g, w, (unsigned long long)x->diff_ulp, x->diff_count,
             q->want[x->diff_key].n, f->key);
        cJSON_AddStringToObject(o, "output", f->key);
        cJSON_AddNumberToObject(o, "element", (double)x->diff_index);
        char hex[16];
        snprintf(hex, sizeof hex, "%08x", (unsigned)x->got);
        cJSON_AddStringToObject(o, "iut", hex);
        snprintf(hex, sizeof hex, "%08x", (unsigned)x->want);
        cJSON_AddStringToObject(o, "reference", hex);
        cJSON_AddNumberToObject(o, "ulp", x->diff_ulp == UINT64_MAX ? -1.0 : (double)x->diff_ulp);
        cJSON_AddNumberToObject(o, "differing_elements", (double)x->diff_count);
    } else {
        line(t, "  %s", x->reason);
        cJSON_AddStringToObject(o, "reason", x->reason);
    }
    size_t later = 0;
    for (size_t i = first + 1; i < rp->n; i++)
        later += res[i].v == V_FAIL;
    if (later)
        line(t, "  (%zu later op calls of the step differ too)", later);
    if (unanswered_before)
        line(t, "  (%zu earlier op calls were not answered: an earlier op may differ too)", unanswered_before);
}

/* Runs the replay through the IUT's ops verb and reports the first op whose
 * output differs. */
static void op_replay(run_ctx *rc, const it_mlp13k_recipe *r, const float *before, uint32_t step, train_report *rep,
                      cJSON *j)
{
    if (rc->ops_ran && rc->ops_sum.verb_unsupported) {
        line(&rep->loc_text, "first differing op: op-level localization not possible: the IUT does not implement the ops verb (exit status 64, P1)");
        cJSON_AddStringToObject(j, "op_note", "not possible: the IUT does not implement the ops verb");
        return;
    }
    static float grads[P], after[P];
    replay rp;
    memset(&rp, 0, sizeof rp);
    if (build_replay(&rp, r, before, step, grads, after) != 0) {
        line(&rep->loc_text, "first differing op: not localized: the runner's op-by-op recomposition does not reproduce the linked reference's step (runner bug)");
        cJSON_AddStringToObject(j, "op_note", "runner recomposition disagrees with the library");
        replay_free(&rp);
        return;
    }
    ops_res *res = xcalloc(rp.n, sizeof *res);
    ops_summary sum;
    double t0 = now_s();
    for (size_t i = 0; i < rp.n; i++)
        rp.reqs[i].timeout = rc_timeout_case(rc);
    ops_progress prog = {rc->out, 60.0, "op replay"};
    ops_engine_run(rc->a->iut, rp.reqs, rp.n, rc_timeout_run(rc), res, &sum, &prog);
    double secs = now_s() - t0;
    cJSON_AddNumberToObject(j, "op_replay_calls", (double)rp.n);
    cJSON_AddNumberToObject(j, "op_replay_seconds", secs);
    if (sum.verb_unsupported) {
        line(&rep->loc_text, "first differing op: op-level localization not possible: the IUT does not implement the ops verb (exit status 64, P1)");
        cJSON_AddStringToObject(j, "op_note", "not possible: the IUT does not implement the ops verb");
    } else {
        /* a call that was not answered with outputs (unsupported, an error
         * answer such as a lookup miss, no answer at all) shows nothing: only
         * a replay where every call was answered may say "every op matches" */
        size_t first = rp.n, unanswered = 0, unanswered_before = 0, errors = 0;
        const char *first_unanswered = NULL;
        for (size_t i = 0; i < rp.n; i++) {
            int not_answered = res[i].v == V_SKIP || res[i].v == V_ERROR ||
                               (res[i].v == V_FAIL && !res[i].has_diff && res[i].reason &&
                                !strncmp(res[i].reason, "the IUT answered error=", 23));
            if (not_answered) {
                unanswered++;
                errors += res[i].v == V_ERROR;
                unanswered_before += first == rp.n;
                if (!first_unanswered)
                    first_unanswered = res[i].reason;
            } else if (res[i].v == V_FAIL && first == rp.n)
                first = i;
        }
        if (first == rp.n && unanswered) {
            line(&rep->loc_text,
                 "first differing op: op-level localization not possible: %zu of %zu op calls of step %u were not answered with outputs (first: %s)",
                 unanswered, rp.n, (unsigned)step, first_unanswered ? first_unanswered : "?");
            if (unanswered < rp.n)
                line(&rep->loc_text, "  (the %zu answered calls match the reference; the unanswered ones show nothing)",
                     rp.n - unanswered);
            cJSON *o = cJSON_AddObjectToObject(j, "op_localization");
            cJSON_AddBoolToObject(o, "possible", 0);
            cJSON_AddNumberToObject(o, "calls", (double)rp.n);
            cJSON_AddNumberToObject(o, "unanswered", (double)unanswered);
            cJSON_AddStringToObject(j, "op_note", "op-level localization not possible: op calls were not answered");
        } else if (first == rp.n) {
            line(&rep->loc_text,
                 "first differing op: none. Every op of step %u (%zu calls: 64 positions x 10 ops, then sgd) matches the reference on the reference's inputs.",
                 (unsigned)step, rp.n);
            line(&rep->loc_text,
                 "  The defect is outside the ops: in how the IUT composes them, keeps its state, or writes its checkpoint.");
            cJSON_AddStringToObject(j, "op_note", "every op matches: the defect is outside the ops");
        } else
            say_first_op(&rep->loc_text, j, &rp, res, first, unanswered_before, step);
        if (errors && sum.problem)
            line(&rep->loc_text, "  ops process: %s", sum.problem);
    }
    for (size_t i = 0; i < rp.n; i++)
        ops_res_free(&res[i]);
    free(res);
    ops_summary_free(&sum);
    replay_free(&rp);
}

/* Step 0 differs: the init of spec §11.4, tensor by tensor, via mlp13k_init. */
static void init_replay(run_ctx *rc, const float *ref, train_report *rep, cJSON *j)
{
    replay rp;
    memset(&rp, 0, sizeof rp);
    replay_add_init(&rp, &it_profile_mlp13k, "mlp13k_init", ref);
    ops_res *res;
    ops_summary sum;
    size_t unanswered, i = replay_run(rc, &rp, 1, &res, &sum, &unanswered);
    if (i < rp.n) {
        line(&rep->loc_text, "first differing op: mlp13k_init (spec §11.4) of tensor %s: %s",
             it_mlp13k_tensors[i].name, res[i].reason);
        cJSON_AddStringToObject(j, "op_note", res[i].reason);
    } else
        replay_say_none(&rep->loc_text, unanswered, rp.n, "mlp13k_init calls", &sum,
                        "mlp13k_init matches for every tensor; the defect is in how the IUT stores or writes its "
                        "initial parameters");
    replay_done(&rp, res, &sum);
}

/* The state before step T and after it, as the linked reference computes
 * them: from step 0 under the published seed (o NULL), or resumed under
 * o->seed from the state of step o->from in o->resume_dir (spec §8.4; a
 * window, level_windows.c). 0, or -1 when the reference could not run. */
static int mlp13k_states(const localize_origin *o, uint32_t T, it_mlp13k_recipe *r, it_mlp13k_state *s, float *before)
{
    *r = it_mlp13k_default_recipe();
    if (o) {
        char err[256];
        const it_run_options ro = localize_resume_options(o, T);
        r->seed = o->seed;
        if (T == 0 || T <= o->from || it_mlp13k_run(r, &ro, s, err, sizeof err) != IT_OK)
            return -1;
        memcpy(before, s->params, sizeof s->params);
        return it_mlp13k_step(r, s) == IT_OK ? 0 : -1;
    }
    it_mlp13k_start(r, s);
    memcpy(before, s->params, sizeof s->params);
    for (uint32_t k = 0; k < T; k++) {
        memcpy(before, s->params, sizeof s->params);
        if (it_mlp13k_step(r, s) != IT_OK)
            return -1;
    }
    return 0;
}

/* Design brief, "When something differs, say where": tensor and element
 * (spec §11.2 tensors, §8.1 bytes), ULP distances, then the op replay of
 * spec §11.6 through P5. */
void localize_mlp13k(run_ctx *rc, const train_vec *tv, int ck_fd, uint32_t T, const localize_origin *o,
                     train_report *rep, cJSON *j)
{
    sbuf *t = &rep->loc_text;
    it_mlp13k_recipe r;
    static it_mlp13k_state s;
    static float before[P], iut[P];
    int lib_ok = mlp13k_states(o, T, &r, &s, before) == 0;
    char dig_prev[65];
    it_params_digest(before, P, dig_prev);
    /* from step 0 the state before T is the vectors' too; a window's is checked by its step T alone */
    if (!lib_ok || (!o && T > 0 && strcmp(dig_prev, tv->trace[T - 1].digest) != 0)) {
        localize_ref_disagrees(t, j, o, T);
        return;
    }
    /* tensor and element */
    if (localize_tensors(tv, &it_profile_mlp13k, ck_fd, T, o, s.params, iut, t, j) == LOCALIZE_NONE)
        return;
    /* the op that departs */
    if (T == 0) {
        init_replay(rc, s.params, rep, j);
        return;
    }
    static float iut_prev[P];
    if (load_iut_ckpt(ck_fd, T - 1, iut_prev, P) == 0 && memcmp(iut_prev, before, sizeof before) == 0)
        line(t, "replaying step %u from the last matching state (step %u, identical in the IUT and the reference):",
             (unsigned)T, (unsigned)T - 1);
    else
        line(t, "replaying step %u from the reference's state at step %u (the IUT's own checkpoint of it is unusable):",
             (unsigned)T, (unsigned)T - 1);
    op_replay(rc, &r, before, T, rep, j);
}
