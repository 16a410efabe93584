/* localize.c — where a training run departs from the reference. Uses the
 * reference library linked into the runner to recompute the state at any
 * step (mlp13k: spec §11), compares it with the IUT's own checkpoint tensor
 * by tensor, and replays the departing step op by op through both the
 * reference and the IUT's `ops` verb (spec/iut-protocol.md P5) to name the
 * first op whose output differs. */
#include "levels/localize.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "isotrain.h"
#include "protocol/ops_engine.h"
#include "core/ulp.h"
#include "levels/localize_replay.h"

#define P IT_MLP13K_NPARAMS

int localize_is_addmod113(const train_vec *tv);
void localize_addmod113(run_ctx *rc, const train_vec *tv, int ck_fd, uint32_t T, const localize_origin *o,
                        train_report *rep, cJSON *j);
static void localize_profile(run_ctx *rc, const train_vec *tv, int ck_fd, uint32_t T, const localize_origin *o,
                             train_report *rep, cJSON *j);

void line(sbuf *b, const char *fmt, ...)
{
    sbuf_adds(b, "    ");
    va_list ap;
    va_start(ap, fmt);
    sbuf_vprintf(b, fmt, ap);
    va_end(ap);
    sbuf_addc(b, '\n');
}

/* The first losses: how far the losses agree with the vectors. Returns the
 * last step S such that every loss 1..S matched (0 if step 1 differs). */
static uint32_t losses_identical_through(const train_vec *tv, const trace_doc *tr)
{
    uint32_t s = 0;
    while (tr && s + 1 < tr->n && s + 1 <= tv->steps && tr->s[s + 1].has_loss &&
           f32_same(tr->s[s + 1].loss, tv->trace[s + 1].loss))
        s++;
    return s;
}

void localize_loss_only(const train_vec *tv, const trace_doc *tr, uint32_t first_loss, train_report *rep)
{
    line(&rep->loc_text, "parameters are identical at every step checked, but the loss bits differ from step %u",
         (unsigned)first_loss);
    line(&rep->loc_text, "(the loss is reported, not trained on: the IUT computes or prints the batch loss differently, spec §11.6)");
    rep->loc_json = cJSON_CreateObject();
    cJSON_AddNumberToObject(rep->loc_json, "first_loss_step", first_loss);
    cJSON_AddNumberToObject(rep->loc_json, "loss_identical_through", losses_identical_through(tv, tr));
}

static int is_mlp13k(const train_vec *tv)
{
    if (strcmp(tv->profile, "mlp13k") != 0 || tv->parameters != P || tv->n_tensors != 5)
        return 0;
    for (size_t t = 0; t < 5; t++)
        if (strcmp(tv->tensors[t].name, it_mlp13k_tensors[t].name) != 0 ||
            tv->tensors[t].offset != it_mlp13k_tensors[t].offset ||
            tv->tensors[t].rows * tv->tensors[t].cols != it_mlp13k_tensors[t].rows * it_mlp13k_tensors[t].cols)
            return 0;
    return 1;
}

/* Reads the IUT's checkpoint of a step (exactly 4*P bytes, spec §8.1). */
static int load_ckpt(int ck_fd, uint32_t step, float *params)
{
    char file[32];
    snprintf(file, sizeof file, "step-%06u.bin", (unsigned)step);
    char *data;
    size_t len;
    char err[256];
    int ok = ck_fd >= 0 && read_file_at(ck_fd, file, 4 * P, RF_NOFOLLOW, &data, &len, err, sizeof err) == 0;
    if (!ok)
        return -1;
    if (len != 4 * P) {
        free(data);
        return -1;
    }
    it_load_f32le((const unsigned char *)data, P, params);
    free(data);
    return 0;
}

static uint32_t bits(float f) { return it_f32_bits(f); }

/* ---- the op-level replay ------------------------------------------------ */

/* The ops of one position of spec §11.6, in the order the brief lists them,
 * then sgd (§7.1). */
enum { OPS_PER_POS = 10 };
/* The checkpoint element where the IUT first departs from the reference, for
 * every profile alike (conformance/README.md "Localization"): the text lines
 * and the receipt's keys (tensor, row, col, flat_index, iut, reference, ulp,
 * differing_elements, max_ulp, ulp_histogram, differing_per_tensor). Returns
 * the flat index, or n when the two are equal bit for bit. */
size_t first_difference(sbuf *t, cJSON *j, uint32_t T, const float *iut, const float *ref, size_t n,
                        const it_tensor_info *tensors, size_t ntensors)
{
    ulp_hist h;
    ulp_hist_init(&h);
    size_t first = n, k = 0, tf = 0;
    size_t *per = calloc(ntensors ? ntensors : 1, sizeof *per);
    for (size_t i = 0; i < n; i++) {
        while (k + 1 < ntensors && i >= tensors[k + 1].offset)
            k++;
        uint32_t a = bits(iut[i]), b = bits(ref[i]);
        if (a == b)
            continue;
        ulp_hist_add(&h, a, b);
        if (first == n) {
            first = i;
            tf = k;
        }
        if (per)
            per[k]++;
    }
    if (first == n) {
        line(t, "the checkpoint's values equal the reference's bit for bit (its digest differed?)");
        free(per);
        return n;
    }
    const it_tensor_info *ti = &tensors[tf];
    size_t local = first - ti->offset, row = local / ti->cols, col = local % ti->cols;
    char g[48], w[48];
    f32_describe(bits(iut[first]), g, sizeof g);
    f32_describe(bits(ref[first]), w, sizeof w);
    uint64_t u = ulp_distance(bits(iut[first]), bits(ref[first]));
    line(t, "first differing tensor: %s, element (%zu, %zu) [flat index %zu]: IUT %s, reference %s, %llu ULP", ti->name,
         row, col, first, g, w, (unsigned long long)u);
    sbuf pt, hist;
    sbuf_init(&pt);
    sbuf_init(&hist);
    for (size_t q = 0; q < ntensors && per; q++)
        if (per[q])
            sbuf_printf(&pt, "%s%s: %zu", pt.len ? ", " : "", tensors[q].name, per[q]);
    line(t, "differing elements at step %u: %zu of %zu (%s); max %llu ULP", (unsigned)T, h.differing, n,
         pt.p ? pt.p : "", (unsigned long long)h.max_ulp);
    ulp_hist_text(&h, &hist);
    line(t, "ULP histogram: %s", hist.p ? hist.p : "");
    cJSON_AddStringToObject(j, "tensor", ti->name);
    cJSON_AddNumberToObject(j, "row", (double)row);
    cJSON_AddNumberToObject(j, "col", (double)col);
    cJSON_AddNumberToObject(j, "flat_index", (double)first);
    char hex[16];
    snprintf(hex, sizeof hex, "%08x", (unsigned)bits(iut[first]));
    cJSON_AddStringToObject(j, "iut", hex);
    snprintf(hex, sizeof hex, "%08x", (unsigned)bits(ref[first]));
    cJSON_AddStringToObject(j, "reference", hex);
    cJSON_AddNumberToObject(j, "ulp", (double)u);
    cJSON_AddNumberToObject(j, "differing_elements", (double)h.differing);
    cJSON_AddNumberToObject(j, "max_ulp", (double)h.max_ulp);
    cJSON *hj = cJSON_AddObjectToObject(j, "ulp_histogram");
    cJSON_AddNumberToObject(hj, "1", (double)h.b1);
    cJSON_AddNumberToObject(hj, "2-3", (double)h.b2_3);
    cJSON_AddNumberToObject(hj, "4-15", (double)h.b4_15);
    cJSON_AddNumberToObject(hj, "16-255", (double)h.b16_255);
    cJSON_AddNumberToObject(hj, ">=256", (double)h.b256);
    cJSON_AddNumberToObject(hj, "sign/NaN", (double)h.sign_nan);
    cJSON *pj = cJSON_AddObjectToObject(j, "differing_per_tensor");
    for (size_t q = 0; q < ntensors && per; q++)
        cJSON_AddNumberToObject(pj, tensors[q].name, (double)per[q]);
    sbuf_free(&pt);
    sbuf_free(&hist);
    free(per);
    return first;
}

static const char *const pos_ops[OPS_PER_POS] = {
    "embedding_forward", "linear_forward", "tanh", "linear_forward", "softmax_xent_forward",
    "softmax_xent_backward", "linear_backward", "tanh_backward", "linear_backward", "embedding_backward"};

value *rp_add(replay *rp, const char *op_name, const char *id, const char *kv)
{
    if (rp->n == rp->cap) {
        rp->cap = rp->cap ? 2 * rp->cap : 1024;
        rp->reqs = xrealloc(rp->reqs, rp->cap * sizeof *rp->reqs);
        rp->wants = xrealloc(rp->wants, rp->cap * 4 * sizeof *rp->wants);
        rp->ids = xrealloc(rp->ids, rp->cap * sizeof *rp->ids);
    }
    size_t i = rp->n++;
    rp->ids[i] = xstrdup(id);
    memset(&rp->reqs[i], 0, sizeof rp->reqs[i]);
    const op_def *op = op_find(op_name, strlen(op_name));
    ops_req_set_line(&rp->reqs[i], rp->ids[i], op, kv);
    memset(&rp->wants[4 * i], 0, 4 * sizeof *rp->wants);
    return &rp->wants[4 * i];
}

void want_f32(value *v, const float *x, size_t n)
{
    v->type = VT_F32;
    v->n = n;
    v->v = xmalloc(n * sizeof *v->v);
    for (size_t i = 0; i < n; i++)
        v->v[i] = bits(x[i]);
}

void kv_f32(sbuf *b, const char *key, const float *x, size_t n)
{
    sbuf_printf(b, "%s%s=", b->len ? " " : "", key);
    encode_f32s(b, x, n);
}

void kv_int(sbuf *b, const char *key, unsigned long v)
{
    sbuf_printf(b, "%s%s=%lu", b->len ? " " : "", key, v);
}

enum { V = IT_MLP13K_VOCAB, D = IT_MLP13K_EMBED, H = IT_MLP13K_HIDDEN, B = IT_MLP13K_BATCH };

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
    kv_f32(kv, "w", w, out * in);
    kv_f32(kv, "x", x, in);
    kv_f32(kv, "dy", dy, out);
    kv_f32(kv, "dw", dw_before, out * in);
    kv_f32(kv, "db", db_before, out);
    value *v = rp_add(rp, op, id, kv->p);
    want_f32(&v[0], dw, out * in);
    want_f32(&v[1], db, out);
    want_f32(&v[2], dx, in);
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
        kv_f32(&kv, "e", E, V * D);
        kv_int(&kv, "token", xs[p]);
        w = rp_add(rp, pos_ops[0], ID(1), kv.p);
        want_f32(&w[0], e, D);
        /* 2 linear_forward 16 -> 32 (§5.2) */
        it_linear_forward(W1, b1, e, D, H, z1);
        sbuf_reset(&kv);
        kv_int(&kv, "in", D);
        kv_int(&kv, "out", H);
        kv_f32(&kv, "w", W1, H * D);
        kv_f32(&kv, "b", b1, H);
        kv_f32(&kv, "x", e, D);
        w = rp_add(rp, pos_ops[1], ID(2), kv.p);
        want_f32(&w[0], z1, H);
        /* 3 tanh (§5.3) */
        it_tanh_forward(z1, H, h);
        sbuf_reset(&kv);
        kv_f32(&kv, "x", z1, H);
        w = rp_add(rp, pos_ops[2], ID(3), kv.p);
        want_f32(&w[0], h, H);
        /* 4 linear_forward 32 -> 256 */
        it_linear_forward(W2, b2, h, H, V, z2);
        sbuf_reset(&kv);
        kv_int(&kv, "in", H);
        kv_int(&kv, "out", V);
        kv_f32(&kv, "w", W2, V * H);
        kv_f32(&kv, "b", b2, V);
        kv_f32(&kv, "x", h, H);
        w = rp_add(rp, pos_ops[3], ID(4), kv.p);
        want_f32(&w[0], z2, V);
        /* 5 softmax_xent_forward (§5.4) */
        loss = it_softmax_xent_forward(z2, V, ys[p], probs);
        sbuf_reset(&kv);
        kv_f32(&kv, "z", z2, V);
        kv_int(&kv, "target", ys[p]);
        w = rp_add(rp, pos_ops[4], ID(5), kv.p);
        want_f32(&w[0], probs, V);
        want_f32(&w[1], &loss, 1);
        /* 6 softmax_xent_backward (§5.5) */
        it_softmax_xent_backward(probs, V, ys[p], inv, dz2);
        sbuf_reset(&kv);
        kv_f32(&kv, "probs", probs, V);
        kv_int(&kv, "target", ys[p]);
        kv_f32(&kv, "scale", &inv, 1);
        w = rp_add(rp, pos_ops[5], ID(6), kv.p);
        want_f32(&w[0], dz2, V);
        /* 7 linear_backward 32 -> 256 (§5.7), accumulating */
        add_linear_backward(rp, &kv, pos_ops[6], ID(7), W2, h, dz2, H, V, dW2, db2, dh, dW_before, db_before);
        /* 8 tanh_backward (§5.6) */
        it_tanh_backward(h, dh, H, dz1);
        sbuf_reset(&kv);
        kv_f32(&kv, "y", h, H);
        kv_f32(&kv, "dy", dh, H);
        w = rp_add(rp, pos_ops[7], ID(8), kv.p);
        want_f32(&w[0], dz1, H);
        /* 9 linear_backward 16 -> 32 */
        add_linear_backward(rp, &kv, pos_ops[8], ID(9), W1, e, dz1, D, H, dW1, db1, de, dW_before, db_before);
        /* 10 embedding_backward (§5.8), one position */
        memcpy(dE_before, dE, sizeof dE_before);
        it_embedding_backward(dE, D, xs[p], de);
        sbuf_reset(&kv);
        kv_int(&kv, "dim", D);
        kv_f32(&kv, "de", dE_before, V * D);
        kv_int(&kv, "tokens", xs[p]);
        kv_f32(&kv, "dout", de, D);
        w = rp_add(rp, pos_ops[9], ID(10), kv.p);
        want_f32(&w[0], dE, V * D);
#undef ID
    }
    /* 11 sgd (§7.1) */
    memcpy(after, params, P * sizeof *after);
    it_mlp13k_recipe rr = *r;
    it_sgd_update(after, grads, P, rr.lr);
    sbuf_reset(&kv);
    kv_f32(&kv, "p", params, P);
    kv_f32(&kv, "g", grads, P);
    kv_f32(&kv, "lr", &rr.lr, 1);
    snprintf(id, sizeof id, "replay/%u/sgd", (unsigned)step);
    value *w = rp_add(rp, "sgd", id, kv.p);
    want_f32(&w[0], after, P);
    sbuf_free(&kv);
    for (size_t i = 0; i < rp->n; i++)
        rp->reqs[i].want = &rp->wants[4 * i];

    /* the recomposition must be the library's own step */
    static float lib_grads[P];
    it_mlp13k_loss_grad(params, xs, ys, B, lib_grads);
    return memcmp(lib_grads, grads, sizeof lib_grads) == 0 ? 0 : -1;
}

void replay_free(replay *rp)
{
    for (size_t i = 0; i < rp->n; i++) {
        free(rp->reqs[i].line);
        free(rp->ids[i]);
        for (size_t k = 0; k < 4; k++)
            value_free(&rp->wants[4 * i + k]);
    }
    free(rp->reqs);
    free(rp->wants);
    free(rp->ids);
    memset(rp, 0, sizeof *rp);
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
        } else {
            const ops_req *q = &rp.reqs[first];
            const ops_res *x = &res[first];
            int is_sgd = first == rp.n - 1;
            unsigned pos = (unsigned)(first / OPS_PER_POS), k = (unsigned)(first % OPS_PER_POS) + 1;
            cJSON *o = cJSON_AddObjectToObject(j, "first_op");
            cJSON_AddStringToObject(o, "op", q->op->name);
            cJSON_AddStringToObject(o, "call", rp.ids[first]);
            if (is_sgd) {
                line(&rep->loc_text, "first differing op: sgd (spec §7.1), after all 64 positions of step %u",
                     (unsigned)step);
            } else {
                line(&rep->loc_text, "first differing op: %s (spec §%s) at position %u of step %u (op %u of %d in that position)",
                     q->op->name, q->op->clause, pos, (unsigned)step, k, OPS_PER_POS);
                cJSON_AddNumberToObject(o, "position", pos);
                cJSON_AddNumberToObject(o, "op_in_position", k);
            }
            if (x->has_diff) {
                char g[48], w[48];
                const op_field *f = &q->op->out[x->diff_key];
                f32_describe((uint32_t)x->got, g, sizeof g);
                f32_describe((uint32_t)x->want, w, sizeof w);
                line(&rep->loc_text, "  output %s[%zu]: IUT %s, reference %s, %llu ULP (%zu of %zu elements of %s differ)",
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
                line(&rep->loc_text, "  %s", x->reason);
                cJSON_AddStringToObject(o, "reason", x->reason);
            }
            size_t later = 0;
            for (size_t i = first + 1; i < rp.n; i++)
                later += res[i].v == V_FAIL;
            if (later)
                line(&rep->loc_text, "  (%zu later op calls of the step differ too)", later);
            if (unanswered_before)
                line(&rep->loc_text, "  (%zu earlier op calls were not answered: an earlier op may differ too)",
                     unanswered_before);
        }
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
    for (size_t t = 0; t < 5; t++) {
        const it_tensor_info *ti = &it_mlp13k_tensors[t];
        char kv[64], id[64];
        snprintf(kv, sizeof kv, "tensor=%s", ti->name);
        snprintf(id, sizeof id, "replay/0/init/%s", ti->name);
        value *w = rp_add(&rp, "mlp13k_init", id, kv);
        want_f32(&w[0], ref + ti->offset, ti->rows * ti->cols);
    }
    for (size_t i = 0; i < rp.n; i++) {
        rp.reqs[i].want = &rp.wants[4 * i];
        rp.reqs[i].timeout = rc_timeout_case(rc);
    }
    ops_res res[5];
    ops_summary sum;
    ops_progress prog = {rc->out, 60.0, "op replay"};
    ops_engine_run(rc->a->iut, rp.reqs, rp.n, rc_timeout_run(rc), res, &sum, &prog);
    int found = 0, unanswered = 0;
    for (size_t i = 0; i < rp.n; i++)
        unanswered += res[i].v == V_SKIP || res[i].v == V_ERROR ||
                      (res[i].v == V_FAIL && !res[i].has_diff && res[i].reason &&
                       !strncmp(res[i].reason, "the IUT answered error=", 23));
    for (size_t i = 0; i < rp.n && !found; i++)
        if (res[i].v == V_FAIL && (res[i].has_diff || !res[i].reason ||
                                   strncmp(res[i].reason, "the IUT answered error=", 23) != 0)) {
            line(&rep->loc_text, "first differing op: mlp13k_init (spec §11.4) of tensor %s: %s",
                 it_mlp13k_tensors[i].name, res[i].reason);
            cJSON_AddStringToObject(j, "op_note", res[i].reason);
            found = 1;
        }
    if (!found && unanswered)
        line(&rep->loc_text, "first differing op: op-level localization not possible: %d of 5 mlp13k_init calls were not answered with outputs%s",
             unanswered, sum.verb_unsupported ? " (the IUT does not implement ops)" : "");
    else if (!found)
        line(&rep->loc_text, "first differing op: none: mlp13k_init matches for every tensor; the defect is in how the IUT stores or writes its initial parameters");
    for (size_t i = 0; i < rp.n; i++)
        ops_res_free(&res[i]);
    ops_summary_free(&sum);
    replay_free(&rp);
}

/* Design brief, "When something differs, say where": step, tensor and
 * element (spec §11.2 tensors, §8.1 bytes), ULP distances, then the op
 * replay of spec §11.6 through P5. */
void localize_train(run_ctx *rc, const train_vec *tv, int ck_fd, const trace_doc *tr, uint32_t first_bad,
                    train_report *rep)
{
    sbuf *t = &rep->loc_text;
    cJSON *j = cJSON_CreateObject();
    rep->loc_json = j;
    uint32_t T = first_bad;
    line(t, "first step whose parameters differ: %u (its checkpoint does not hash to the vectors' digest)", (unsigned)T);
    cJSON_AddNumberToObject(j, "first_step", T);
    if (tr) {
        uint32_t S = losses_identical_through(tv, tr);
        cJSON_AddNumberToObject(j, "loss_identical_through", S);
        if (T > 0 && S >= T) {
            line(t, "loss bits identical through step %u while parameters differ from step %u", (unsigned)S, (unsigned)T);
            line(t, "  (the printed losses alone would not show this run is different)");
        } else if (S + 1 < tr->n)
            line(t, "loss bits identical through step %u; the loss first differs at step %u", (unsigned)S, (unsigned)S + 1);
    }
    localize_profile(rc, tv, ck_fd, T, NULL, rep, j);
}

void localize_not_reproduced(sbuf *t, cJSON *j, const localize_origin *o, uint32_t T)
{
    if (o)
        line(t, "tensor/op localization: not possible: the reference linked into the runner, resumed from the window's state of step %u, does not give the window's step %u",
             (unsigned)o->from, (unsigned)T);
    else
        line(t, "tensor/op localization: not possible: the reference linked into the runner does not reproduce the vectors at step %u (runner and vector set of different spec versions?)",
             (unsigned)T);
    cJSON_AddStringToObject(j, "note", "linked reference disagrees with the vectors");
}

void localize_window(run_ctx *rc, const train_vec *tv, int ck_fd, uint32_t T, const localize_origin *o,
                     train_report *rep)
{
    cJSON *j = cJSON_CreateObject();
    rep->loc_json = j;
    line(&rep->loc_text, "first step whose parameters differ: %u (window from step %u)", (unsigned)T, (unsigned)o->from);
    cJSON_AddNumberToObject(j, "first_step", T);
    cJSON_AddNumberToObject(j, "window_from", o->from);
    localize_profile(rc, tv, ck_fd, T, o, rep, j);
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
        it_run_options ro;
        memset(&ro, 0, sizeof ro);
        r->seed = o->seed;
        ro.steps = T - 1;
        ro.resume_dir = o->resume_dir;
        ro.from_step = o->from;
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

static void localize_profile(run_ctx *rc, const train_vec *tv, int ck_fd, uint32_t T, const localize_origin *o,
                             train_report *rep, cJSON *j)
{
    sbuf *t = &rep->loc_text;
    if (localize_is_addmod113(tv)) {
        localize_addmod113(rc, tv, ck_fd, T, o, rep, j);
        return;
    }
    if (localize_is_gptchar(tv)) {
        localize_gptchar(rc, tv, ck_fd, T, o, rep, j);
        return;
    }
    if (!is_mlp13k(tv)) {
        line(t, "tensor/op localization: the runner's linked reference implements mlp13k, addmod113 and gptchar only; profile %s is not recomputed",
             tv->profile);
        return;
    }
    it_mlp13k_recipe r;
    static it_mlp13k_state s;
    static float before[P], iut[P];
    int lib_ok = mlp13k_states(o, T, &r, &s, before) == 0;
    char dig[65], dig_prev[65];
    it_params_digest(s.params, P, dig);
    it_params_digest(before, P, dig_prev);
    if (!lib_ok || strcmp(dig, o ? o->digest : tv->trace[T].digest) != 0 ||
        (!o && T > 0 && strcmp(dig_prev, tv->trace[T - 1].digest) != 0)) {
        localize_not_reproduced(t, j, o, T);
        return;
    }
    /* tensor and element */
    if (load_ckpt(ck_fd, T, iut) != 0) {
        line(t, "first differing tensor: unknown: the IUT's checkpoint of step %u is missing or not exactly %d bytes",
             (unsigned)T, 4 * P);
    } else {
        first_difference(t, j, T, iut, s.params, P, it_mlp13k_tensors, 5);
    }
    /* the op that departs */
    if (T == 0) {
        init_replay(rc, s.params, rep, j);
        return;
    }
    static float iut_prev[P];
    if (load_ckpt(ck_fd, T - 1, iut_prev) == 0 && memcmp(iut_prev, before, sizeof before) == 0)
        line(t, "replaying step %u from the last matching state (step %u, identical in the IUT and the reference):",
             (unsigned)T, (unsigned)T - 1);
    else
        line(t, "replaying step %u from the reference's state at step %u (the IUT's own checkpoint of it is unusable):",
             (unsigned)T, (unsigned)T - 1);
    op_replay(rc, &r, before, T, rep, j);
}

/* ---- profile addmod113 (spec §13) ------------------------------------------
 * The same questions as for mlp13k: the first step, tensor, element and ULPs
 * against the linked reference, then the op that departs: addmod113_init
 * (step 0), or the step's addmod113_loss_grad over the full batch and the
 * adamw update of the first differing element. */

#define AMP ((size_t)IT_AM_NPARAMS)

int localize_is_addmod113(const train_vec *tv)
{
    if (strcmp(tv->profile, "addmod113") != 0 || tv->parameters != AMP || tv->n_tensors != 11)
        return 0;
    for (size_t t = 0; t < 11; t++)
        if (strcmp(tv->tensors[t].name, it_addmod113_tensors[t].name) != 0 ||
            tv->tensors[t].offset != it_addmod113_tensors[t].offset)
            return 0;
    return 1;
}

static int load_ckpt_am(int ck_fd, uint32_t step, float *params)
{
    char file[32], err[256], *data;
    size_t len;
    snprintf(file, sizeof file, "step-%06u.bin", (unsigned)step);
    if (ck_fd < 0 || read_file_at(ck_fd, file, 4 * AMP, RF_NOFOLLOW, &data, &len, err, sizeof err) != 0)
        return -1;
    int ok = len == 4 * AMP;
    if (ok)
        it_load_f32le((const unsigned char *)data, AMP, params);
    free(data);
    return ok ? 0 : -1;
}

static void am_op_replay(run_ctx *rc, uint32_t T, const float *before, const float *grads, float loss,
                         const float *m_prev, const float *v_prev, size_t elem, const uint32_t *perm,
                         const float *init, train_report *rep, cJSON *j)
{
    replay rp;
    memset(&rp, 0, sizeof rp);
    sbuf kv;
    sbuf_init(&kv);
    char id[96];
    if (T == 0) {
        for (size_t t = 0; t < 11; t++) {
            const it_tensor_info *ti = &it_addmod113_tensors[t];
            sbuf_free(&kv);
            sbuf_init(&kv);
            sbuf_printf(&kv, "tensor=%s", ti->name);
            snprintf(id, sizeof id, "replay/0/init/%s", ti->name);
            want_f32(&rp_add(&rp, "addmod113_init", id, kv.p)[0], init + ti->offset, ti->rows * ti->cols);
        }
    } else {
        kv_f32(&kv, "params", before, AMP);
        sbuf_adds(&kv, " pairs=");
        for (size_t i = 0; i < IT_AM_NTRAIN; i++)
            sbuf_printf(&kv, "%s%08x", i ? "," : "", (unsigned)perm[i]);
        snprintf(id, sizeof id, "replay/%u/loss_grad", (unsigned)T);
        value *w = rp_add(&rp, "addmod113_loss_grad", id, kv.p);
        want_f32(&w[0], &loss, 1);
        want_f32(&w[1], grads, AMP);
        /* the update of one element, from the reference's moments before it */
        const float hyper[5] = {it_f32_from_bits(0x3a83126f), it_f32_from_bits(0x3f666666),
                                it_f32_from_bits(0x3f7ae148), it_f32_from_bits(0x322bcc77),
                                it_f32_from_bits(0x3f7fbe77)};
        it_adamw_consts c = {hyper[0], hyper[1], hyper[2], hyper[3], hyper[4], it_f32_from_bits(0x3dccccd0),
                             it_f32_from_bits(0x3ca3d700)};
        it_adamw_clock k = {1.0f, 1.0f, 0};
        float bc1 = 0, bc2 = 0, p = before[elem], m = m_prev[elem], v = v_prev[elem];
        for (uint32_t s = 0; s < T; s++)
            it_adamw_tick(&c, &k, &bc1, &bc2);
        it_adamw_update(&c, bc1, bc2, &p, &grads[elem], &m, &v, 1);
        sbuf_free(&kv);
        sbuf_init(&kv);
        kv_f32(&kv, "p", &before[elem], 1);
        kv_f32(&kv, "g", &grads[elem], 1);
        kv_f32(&kv, "m", &m_prev[elem], 1);
        kv_f32(&kv, "v", &v_prev[elem], 1);
        kv_int(&kv, "t", T);
        kv_f32(&kv, "hyper", hyper, 5);
        snprintf(id, sizeof id, "replay/%u/adamw/%zu", (unsigned)T, elem);
        w = rp_add(&rp, "adamw", id, kv.p);
        want_f32(&w[0], &p, 1);
        want_f32(&w[1], &m, 1);
        want_f32(&w[2], &v, 1);
    }
    sbuf_free(&kv);
    for (size_t i = 0; i < rp.n; i++) {
        rp.reqs[i].want = &rp.wants[4 * i];
        rp.reqs[i].timeout = rc_timeout_case(rc) * 4;
    }
    ops_res *res = xcalloc(rp.n, sizeof *res);
    ops_summary sum;
    ops_progress prog = {rc->out, 60.0, "op replay"};
    ops_engine_run(rc->a->iut, rp.reqs, rp.n, rc_timeout_run(rc), res, &sum, &prog);
    int found = 0, unanswered = 0;
    for (size_t i = 0; i < rp.n; i++)
        unanswered += res[i].v == V_SKIP || res[i].v == V_ERROR ||
                      (res[i].v == V_FAIL && !res[i].has_diff && res[i].reason &&
                       !strncmp(res[i].reason, "the IUT answered error=", 23));
    for (size_t i = 0; i < rp.n && !found; i++)
        if (res[i].v == V_FAIL && (res[i].has_diff || !res[i].reason ||
                                   strncmp(res[i].reason, "the IUT answered error=", 23) != 0)) {
            const char *what = T == 0 ? "addmod113_init (spec §13.4)"
                               : i == 0 ? "addmod113_loss_grad (spec §13.5) over the 3,831 training pairs"
                                        : "adamw (spec §7.2)";
            line(&rep->loc_text, "first differing op: %s [%s]: %s", what, rp.ids[i], res[i].reason);
            cJSON_AddStringToObject(j, "op", rp.reqs[i].op->name);
            cJSON_AddStringToObject(j, "op_note", res[i].reason);
            found = 1;
        }
    if (!found && unanswered)
        line(&rep->loc_text, "first differing op: op-level localization not possible: %d of %zu calls were not answered with outputs%s",
             unanswered, rp.n, sum.verb_unsupported ? " (the IUT does not implement ops)" : "");
    else if (!found)
        line(&rep->loc_text, "first differing op: none: %s; the defect is in how the IUT stores, updates or writes its parameters",
             T == 0 ? "addmod113_init matches for every tensor" : "the step's loss, gradient and that element's update match");
    for (size_t i = 0; i < rp.n; i++)
        ops_res_free(&res[i]);
    free(res);
    ops_summary_free(&sum);
    replay_free(&rp);
}

void localize_addmod113(run_ctx *rc, const train_vec *tv, int ck_fd, uint32_t T, const localize_origin *o,
                        train_report *rep, cJSON *j)
{
    sbuf *t = &rep->loc_text;
    static float params[IT_AM_NPARAMS], before[IT_AM_NPARAMS], grads[IT_AM_NPARAMS], m[IT_AM_NPARAMS],
        v[IT_AM_NPARAMS], m_prev[IT_AM_NPARAMS], v_prev[IT_AM_NPARAMS], iut[IT_AM_NPARAMS], init[IT_AM_NPARAMS];
    static uint32_t perm[IT_AM_PAIRS];
    static it_addmod113_state rs;
    it_adamw_consts c = {it_f32_from_bits(0x3a83126f), it_f32_from_bits(0x3f666666), it_f32_from_bits(0x3f7ae148),
                         it_f32_from_bits(0x322bcc77), it_f32_from_bits(0x3f7fbe77), it_f32_from_bits(0x3dccccd0),
                         it_f32_from_bits(0x3ca3d700)};
    it_adamw_clock k = {1.0f, 1.0f, 0};
    const uint64_t seed = o ? o->seed : IT_AM_SEED;
    it_addmod113_permutation(seed, perm);
    it_addmod113_init(seed, params);
    memcpy(init, params, sizeof init);
    memset(m, 0, sizeof m);
    memset(v, 0, sizeof v);
    int lib_ok = 1;
    if (o) { /* a window: the state of step T - 1 resumed from the window's (spec §8.4) */
        char err[256];
        it_run_options ro;
        memset(&ro, 0, sizeof ro);
        ro.steps = T - 1;
        ro.resume_dir = o->resume_dir;
        ro.from_step = o->from;
        const it_addmod113_recipe ar = {seed, 2, 0};
        lib_ok = T > o->from && it_addmod113_run(&ar, &ro, &rs, err, sizeof err) == IT_OK;
        memcpy(params, rs.params, sizeof params);
        memcpy(m, rs.m, sizeof m);
        memcpy(v, rs.v, sizeof v);
    }
    float loss = 0.0f;
    memcpy(before, params, sizeof before);
    for (uint32_t s = 1; s <= T && lib_ok; s++) { /* the linked reference, two threads: same bits as one */
        float bc1, bc2;
        it_adamw_tick(&c, &k, &bc1, &bc2);
        if (o && s < T)
            continue; /* the clock only: the state of T - 1 is resumed */
        memcpy(before, params, sizeof before);
        memcpy(m_prev, m, sizeof m);
        memcpy(v_prev, v, sizeof v);
        loss = it_addmod113_loss_grad(params, perm, IT_AM_NTRAIN, grads, 2);
        it_adamw_update(&c, bc1, bc2, params, grads, m, v, AMP);
    }
    char dig[65];
    it_params_digest(params, AMP, dig);
    if (!lib_ok || strcmp(dig, o ? o->digest : tv->trace[T].digest) != 0) {
        localize_not_reproduced(t, j, o, T);
        return;
    }
    size_t first = AMP;
    if (load_ckpt_am(ck_fd, T, iut) != 0) {
        line(t, "first differing tensor: unknown: the IUT's checkpoint of step %u is missing or not exactly %zu bytes",
             (unsigned)T, 4 * AMP);
    } else {
        first = first_difference(t, j, T, iut, params, AMP, it_addmod113_tensors, 11);
    }
    if (rc->ops_ran && rc->ops_sum.verb_unsupported) {
        line(t, "first differing op: op-level localization not possible: the IUT does not implement the ops verb (exit status 64, P1)");
        return;
    }
    if (T > 0)
        line(t, "replaying step %u from the reference's state at step %u (the last step whose digest matched):",
             (unsigned)T, (unsigned)T - 1);
    am_op_replay(rc, T, before, grads, loss, m_prev, v_prev, first == AMP ? 0 : first, perm, init, rep, j);
}
