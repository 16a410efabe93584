/* localize.c — where a training run departs from the reference, for every
 * profile: the first step, the losses, then the profile's localizer (its row
 * in levels/runner_profiles.c) recomputes the state with the reference linked
 * into the runner, and the helpers here compare it with the IUT's own
 * checkpoint tensor by tensor (first_difference) and replay the departing
 * step op by op through the IUT's `ops` verb (spec/iut-protocol.md P5) to
 * name the first op whose output differs. */
#include "levels/localize.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "isotrain.h"
#include "isotrain_profile.h"
#include "protocol/ops_engine.h"
#include "core/ulp.h"
#include "levels/localize_replay.h"

#include "levels/runner_profiles.h"

/* The profile's localizer, found through its row (o: a window's origin, or
 * NULL for a run from step 0 under the published seed). */
static void localize_profile(run_ctx *rc, const train_vec *tv, int ck_fd, uint32_t T, const localize_origin *o,
                             train_report *rep, cJSON *j)
{
    const runner_profile *row = runner_profile_of(tv);
    if (!row || !row->localize) {
        char names[128];
        runner_profile_names(names, sizeof names);
        line(&rep->loc_text,
             "tensor/op localization: the runner's linked reference implements %s only; profile %s is not recomputed",
             names, tv->profile);
        return;
    }
    row->localize(rc, tv, ck_fd, T, o, rep, j);
}

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

static uint32_t bits(float f) { return it_f32_bits(f); }

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

void kv_int(sbuf *b, const char *key, unsigned long v)
{
    sbuf_printf(b, "%s%s=%lu", b->len ? " " : "", key, v);
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

void replay_add_init(replay *rp, const it_profile *p, const char *op, const float *ref)
{
    for (size_t t = 0; t < p->ntensors; t++) {
        const it_tensor_info *ti = &p->tensors[t];
        char kv[96], id[96];
        snprintf(kv, sizeof kv, "tensor=%s", ti->name);
        snprintf(id, sizeof id, "replay/0/init/%s", ti->name);
        fresh_want_f32(&rp_add(rp, op, id, kv)[0], ref + ti->offset, ti->rows * ti->cols);
    }
}

/* A call answered without outputs (skipped, an error, an error answer such
 * as a lookup miss) shows nothing. */
static int unanswered(const ops_res *r)
{
    return r->v == V_SKIP || r->v == V_ERROR ||
           (r->v == V_FAIL && !r->has_diff && r->reason && !strncmp(r->reason, "the IUT answered error=", 23));
}

size_t replay_run(run_ctx *rc, replay *rp, double scale, ops_res **res, ops_summary *sum, size_t *n_unanswered)
{
    for (size_t i = 0; i < rp->n; i++) {
        rp->reqs[i].want = &rp->wants[4 * i];
        rp->reqs[i].timeout = rc_timeout_case(rc) * scale;
    }
    *res = xcalloc(rp->n ? rp->n : 1, sizeof **res);
    ops_progress prog = {rc->out, 60.0, "op replay"};
    ops_engine_run(rc->a->iut, rp->reqs, rp->n, rc_timeout_run(rc), *res, sum, &prog);
    size_t first = rp->n;
    *n_unanswered = 0;
    for (size_t i = 0; i < rp->n; i++) {
        int no_output = unanswered(&(*res)[i]);
        *n_unanswered += no_output;
        if (first == rp->n && (*res)[i].v == V_FAIL && !no_output)
            first = i;
    }
    return first;
}

void replay_say_op(sbuf *t, cJSON *j, const char *what, const replay *rp, size_t i, const ops_res *res)
{
    line(t, "first differing op: %s [%s]: %s", what, rp->ids[i], res[i].reason);
    cJSON_AddStringToObject(j, "op", rp->reqs[i].op->name);
    cJSON_AddStringToObject(j, "op_note", res[i].reason);
}

void replay_say_none(sbuf *t, size_t n_unanswered, size_t n, const char *calls, const ops_summary *sum,
                     const char *none)
{
    if (n_unanswered)
        line(t, "first differing op: op-level localization not possible: %zu of %zu %s were not answered with outputs%s",
             n_unanswered, n, calls, sum->verb_unsupported ? " (the IUT does not implement ops)" : "");
    else
        line(t, "first differing op: none: %s", none);
}

void replay_done(replay *rp, ops_res *res, ops_summary *sum)
{
    for (size_t i = 0; i < rp->n; i++)
        ops_res_free(&res[i]);
    free(res);
    ops_summary_free(sum);
    replay_free(rp);
}

void replay_conclude(run_ctx *rc, replay *rp, double scale, uint32_t T, replay_what_fn *what, const char *none,
                     train_report *rep, cJSON *j)
{
    ops_res *res;
    ops_summary sum;
    size_t unanswered, i = replay_run(rc, rp, scale, &res, &sum, &unanswered);
    if (i < rp->n)
        replay_say_op(&rep->loc_text, j, what(T, i), rp, i, res);
    else {
        char why[256];
        snprintf(why, sizeof why, "%s; the defect is in how the IUT stores, updates or writes its parameters", none);
        replay_say_none(&rep->loc_text, unanswered, rp->n, "calls", &sum, why);
    }
    replay_done(rp, res, &sum);
}

void replay_add_adamw(replay *rp, uint32_t T, size_t elem, const it_adamw_consts *c, const float hyper[5], float p,
                      float g, float m, float v)
{
    it_adamw_clock k = {1.0f, 1.0f, 0};
    float bc1 = 0, bc2 = 0, p1 = p, m1 = m, v1 = v;
    for (uint32_t s = 0; s < T; s++)
        it_adamw_tick(c, &k, &bc1, &bc2);
    it_adamw_update(c, bc1, bc2, &p1, &g, &m1, &v1, 1);
    sbuf kv;
    sbuf_init(&kv);
    fresh_kv_f32(&kv, "p", &p, 1);
    fresh_kv_f32(&kv, "g", &g, 1);
    fresh_kv_f32(&kv, "m", &m, 1);
    fresh_kv_f32(&kv, "v", &v, 1);
    kv_int(&kv, "t", T);
    fresh_kv_f32(&kv, "hyper", hyper, 5);
    char id[96];
    snprintf(id, sizeof id, "replay/%u/adamw/%zu", (unsigned)T, elem);
    value *w = rp_add(rp, "adamw", id, kv.p);
    fresh_want_f32(&w[0], &p1, 1);
    fresh_want_f32(&w[1], &m1, 1);
    fresh_want_f32(&w[2], &v1, 1);
    sbuf_free(&kv);
}

it_run_options localize_resume_options(const localize_origin *o, uint32_t T)
{
    it_run_options ro;
    memset(&ro, 0, sizeof ro);
    ro.steps = T - 1;
    ro.resume_dir = o->resume_dir;
    ro.from_step = o->from;
    return ro;
}

/* Reads the IUT's checkpoint of a step: exactly 4*n bytes (spec §8.1). */
int load_iut_ckpt(int ck_fd, uint32_t step, float *params, size_t n)
{
    char file[32], err[256], *data;
    size_t len;
    snprintf(file, sizeof file, "step-%06u.bin", (unsigned)step);
    if (ck_fd < 0 || read_file_at(ck_fd, file, 4 * n, RF_NOFOLLOW, &data, &len, err, sizeof err) != 0)
        return -1;
    int ok = len == 4 * n;
    if (ok)
        it_load_f32le((const unsigned char *)data, n, params);
    free(data);
    return ok ? 0 : -1;
}

void localize_ref_disagrees(sbuf *t, cJSON *j, const localize_origin *o, uint32_t T)
{
    if (o)
        line(t, "tensor/op localization: not possible: the reference linked into the runner, resumed from the window's state of step %u, does not give the window's step %u",
             (unsigned)o->from, (unsigned)T);
    else
        line(t, "tensor/op localization: not possible: the reference linked into the runner does not reproduce the vectors at step %u (runner and vector set of different spec versions?)",
             (unsigned)T);
    cJSON_AddStringToObject(j, "note", "linked reference disagrees with the vectors");
}

size_t localize_tensors(const train_vec *tv, const it_profile *p, int ck_fd, uint32_t T, const localize_origin *o,
                        const float *ref, float *iut, sbuf *t, cJSON *j)
{
    char dig[65];
    it_params_digest(ref, p->nparams, dig);
    if (strcmp(dig, o ? o->digest : tv->trace[T].digest) != 0) {
        localize_ref_disagrees(t, j, o, T);
        return LOCALIZE_NONE;
    }
    if (load_iut_ckpt(ck_fd, T, iut, p->nparams) == 0)
        return first_difference(t, j, T, iut, ref, p->nparams, p->tensors, p->ntensors);
    line(t, "first differing tensor: unknown: the IUT's checkpoint of step %u is missing or not exactly %zu bytes",
         (unsigned)T, 4 * p->nparams);
    return p->nparams;
}

int localize_no_ops(const run_ctx *rc, sbuf *t)
{
    if (!rc->ops_ran || !rc->ops_sum.verb_unsupported)
        return 0;
    line(t, "first differing op: op-level localization not possible: the IUT does not implement the ops verb (exit status 64, P1)");
    return 1;
}

/* Design brief, "When something differs, say where": step, then what the
 * profile's localizer says (tensor and element, ULP distances, the op replay
 * through P5). */
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
