/* localize_gptchar.c — where a gptchar run departs (spec §14): the first
 * step, tensor, element and ULPs against the reference linked into the
 * runner, then the op that departs, replayed in the order a step computes
 * them: gptchar_init (step 0); or block 0's LayerNorm, causal attention,
 * residual add and GELU on the step's first sequence, the whole step's
 * gptchar_loss_grad, the clip, the schedule and the AdamW update of the first
 * differing element. Found through its row in levels/runner_profiles.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/ulp.h"
#include "isotrain.h"
#include "isotrain_profile.h"
#include "levels/localize_replay.h"

enum { GP = IT_GC_NPARAMS, GD = IT_GC_D, GT = IT_GC_CTX, GF = IT_GC_MLP, GH = IT_GC_HEADS, GW = IT_GC_DHEAD };
#define LN_EPS 0x3727c5acu
#define CLIP_EPS 0x358637bdu
#define LR_MAX 0x3b449ba6u

static const it_tensor_info *tensor_of(size_t i)
{
    for (size_t k = 0; k < IT_GC_NTENSORS; k++)
        if (i >= it_gptchar_tensors[k].offset &&
            i < it_gptchar_tensors[k].offset + it_gptchar_tensors[k].rows * it_gptchar_tensors[k].cols)
            return &it_gptchar_tensors[k];
    return &it_gptchar_tensors[IT_GC_NTENSORS - 1];
}

/* the block-0 intermediates of the replayed step, first sequence */
typedef struct {
    float x0[GT * GD], q[GT * GD], k[GT * GD], v[GT * GD], o[GT * GD], h[GT * GF];
} taps;

static void keep(void *ctx, const char *what, int layer, const float *data, size_t n)
{
    taps *t = ctx;
    (void)n;
    float *dst = !strcmp(what, "x0")              ? t->x0
                 : layer != 0                     ? NULL
                 : !strcmp(what, "q")             ? t->q
                 : !strcmp(what, "k")             ? t->k
                 : !strcmp(what, "v")             ? t->v
                 : !strcmp(what, "o")             ? t->o
                 : !strcmp(what, "h")             ? t->h
                                                  : NULL;
    if (dst)
        memcpy(dst, data, (dst == t->h ? GT * GF : GT * GD) * sizeof(float)); /* sequence 0's rows */
}

static const char *const STEP_OPS[] = {"layernorm_forward (spec §5.14) of block 0's ln1",
                                        "causal_attention_forward (spec §5.18) of block 0",
                                        "residual_add (spec §5.13) of block 0",
                                        "gelu_forward (spec §5.16) of block 0",
                                        "gptchar_loss_grad (spec §14.6) over the step's 16 sequences",
                                        "clip_grad_norm (spec §7.3)",
                                        "lr_schedule (spec §7.4)",
                                        "adamw (spec §7.2, §14.7)"};

/* Builds the replay of step T from the reference's state before it. */
static void build(replay *rp, uint64_t seed, uint32_t T, const it_gptchar_state *before, size_t elem)
{
    sbuf kv;
    sbuf_init(&kv);
    char id[96];
    static uint32_t x[IT_GC_ROWS], y[IT_GC_ROWS];
    static float grads[GP];
    static taps tp;
    it_gptchar_batch(seed, T, x, y);
    float loss = it_gptchar_loss_grad_tap(before->params, x, y, IT_GC_SEQS, grads, keep, &tp);
    const float *b0 = before->params + IT_GC_OFF_H0;
    const float eps = it_f32_from_bits(LN_EPS), c = 0.25f;
    /* block 0's ln1 on the first sequence */
    static float y1[GT * GD], xh[GD], mean[GT], rstd[GT], w[GT * GH * GT], z[GT * GD], r[GT * GD], g[GT * GF];
    for (size_t i = 0; i < GT; i++)
        it_layernorm_forward(tp.x0 + i * GD, b0 + IT_GC_B_LN1_W, b0 + IT_GC_B_LN1_B, GD, eps, y1 + i * GD, xh, &mean[i],
                             &rstd[i]);
    kv_int(&kv, "n", GD);
    fresh_kv_f32(&kv, "x", tp.x0, GT * GD);
    fresh_kv_f32(&kv, "w", b0 + IT_GC_B_LN1_W, GD);
    fresh_kv_f32(&kv, "b", b0 + IT_GC_B_LN1_B, GD);
    fresh_kv_f32(&kv, "eps", &eps, 1);
    snprintf(id, sizeof id, "replay/%u/ln1", (unsigned)T);
    value *v = rp_add(rp, "layernorm_forward", id, kv.p);
    fresh_want_f32(&v[0], y1, GT * GD), fresh_want_f32(&v[1], mean, GT), fresh_want_f32(&v[2], rstd, GT);
    /* its causal attention */
    it_causal_attention_forward(tp.q, tp.k, tp.v, GT, GH, GW, c, w, z);
    sbuf_reset(&kv);
    sbuf_printf(&kv, "heads=%d width=%d", GH, GW);
    fresh_kv_f32(&kv, "c", &c, 1);
    fresh_kv_f32(&kv, "q", tp.q, GT * GD);
    fresh_kv_f32(&kv, "k", tp.k, GT * GD);
    fresh_kv_f32(&kv, "v", tp.v, GT * GD);
    snprintf(id, sizeof id, "replay/%u/attention", (unsigned)T);
    v = rp_add(rp, "causal_attention_forward", id, kv.p);
    fresh_want_f32(&v[0], w, GT * GH * GT), fresh_want_f32(&v[1], z, GT * GD);
    /* the residual add of the attention branch */
    it_residual_add(tp.x0, tp.o, GT * GD, r);
    sbuf_reset(&kv);
    fresh_kv_f32(&kv, "x", tp.x0, GT * GD);
    fresh_kv_f32(&kv, "y", tp.o, GT * GD);
    snprintf(id, sizeof id, "replay/%u/residual", (unsigned)T);
    fresh_want_f32(&rp_add(rp, "residual_add", id, kv.p)[0], r, GT * GD);
    /* GELU of the MLP's pre-activations */
    it_gelu_forward(tp.h, GT * GF, g);
    sbuf_reset(&kv);
    fresh_kv_f32(&kv, "x", tp.h, GT * GF);
    snprintf(id, sizeof id, "replay/%u/gelu", (unsigned)T);
    fresh_want_f32(&rp_add(rp, "gelu_forward", id, kv.p)[0], g, GT * GF);
    /* the step's loss and gradient */
    sbuf_reset(&kv);
    fresh_kv_f32(&kv, "params", before->params, GP);
    fresh_kv_dec(&kv, "x", x, IT_GC_ROWS);
    fresh_kv_dec(&kv, "y", y, IT_GC_ROWS);
    snprintf(id, sizeof id, "replay/%u/loss_grad", (unsigned)T);
    v = rp_add(rp, "gptchar_loss_grad", id, kv.p);
    fresh_want_f32(&v[0], &loss, 1), fresh_want_f32(&v[1], grads, GP);
    /* the clip of that gradient */
    static float clipped[GP];
    memcpy(clipped, grads, sizeof clipped);
    const float mx = 1.0f, ce = it_f32_from_bits(CLIP_EPS);
    float norm = it_clip_grad_norm(clipped, GP, mx, ce);
    sbuf_reset(&kv);
    fresh_kv_f32(&kv, "g", grads, GP);
    fresh_kv_f32(&kv, "max_norm", &mx, 1);
    fresh_kv_f32(&kv, "eps", &ce, 1);
    snprintf(id, sizeof id, "replay/%u/clip", (unsigned)T);
    v = rp_add(rp, "clip_grad_norm", id, kv.p);
    fresh_want_f32(&v[0], clipped, GP), fresh_want_f32(&v[1], &norm, 1);
    /* the step's learning rate */
    const float lr_max = it_f32_from_bits(LR_MAX);
    float lr = it_lr_schedule(T, IT_GC_WARMUP, IT_GC_STEPS, lr_max);
    sbuf_reset(&kv);
    sbuf_printf(&kv, "step=%u warmup=%d total=%d", (unsigned)T, IT_GC_WARMUP, IT_GC_STEPS);
    fresh_kv_f32(&kv, "lr_max", &lr_max, 1);
    snprintf(id, sizeof id, "replay/%u/lr", (unsigned)T);
    fresh_want_f32(&rp_add(rp, "lr_schedule", id, kv.p)[0], &lr, 1);
    /* the update of the first differing element (§14.7: decay on the matrices only) */
    const it_tensor_info *ti = tensor_of(elem);
    size_t nl = strlen(ti->name);
    int decayed = ti->cols > 1 && !(nl >= 2 && !strcmp(ti->name + nl - 2, "_b"));
    const float wd = it_f32_from_bits(0x3dcccccdu), lr_wd = lr * wd;
    const float hyper[5] = {lr, it_f32_from_bits(0x3f666666u), it_f32_from_bits(0x3f733333u),
                            it_f32_from_bits(0x322bcc77u), decayed ? 1.0f - lr_wd : 1.0f};
    it_adamw_consts ac = {hyper[0], hyper[1], hyper[2], hyper[3], hyper[4], 1.0f - hyper[1], 1.0f - hyper[2]};
    replay_add_adamw(rp, T, elem, &ac, hyper, before->params[elem], clipped[elem], before->m[elem], before->v[elem]);
    sbuf_free(&kv);
}

static const char *gc_what(uint32_t T, size_t i) { return T == 0 ? "gptchar_init (spec §14.4)" : STEP_OPS[i]; }

static void op_replay(run_ctx *rc, uint64_t seed, uint32_t T, const it_gptchar_state *before, size_t elem,
                      train_report *rep, cJSON *j)
{
    replay rp;
    memset(&rp, 0, sizeof rp);
    if (T == 0) {
        static float init[GP];
        it_gptchar_init(IT_GC_SEED, init);
        replay_add_init(&rp, &it_profile_gptchar, "gptchar_init", init);
    } else
        build(&rp, seed, T, before, elem);
    replay_conclude(rc, &rp, 4, T, gc_what,
                    T == 0 ? "gptchar_init matches for every tensor"
                           : "every op of the step and that element's update match",
                    rep, j);
}

void localize_gptchar(run_ctx *rc, const train_vec *tv, int ck_fd, uint32_t T, const localize_origin *o,
                      train_report *rep, cJSON *j)
{
    sbuf *t = &rep->loc_text;
    static it_gptchar_state s, before;
    static float iut[GP];
    const it_gptchar_recipe r = {o ? o->seed : IT_GC_SEED};
    int lib_ok = 1;
    if (o) { /* a window: the state of step T - 1 resumed from the window's (spec §8.4) */
        char err[256];
        const it_run_options ro = localize_resume_options(o, T);
        lib_ok = T > o->from && it_gptchar_run(&r, &ro, &s, err, sizeof err) == IT_OK;
        memcpy(&before, &s, sizeof before);
        lib_ok = lib_ok && it_gptchar_step(&r, &s) == IT_OK;
    } else {
        it_gptchar_start(&r, &s);
        memcpy(&before, &s, sizeof before);
        for (uint32_t k = 1; k <= T; k++) {
            memcpy(&before, &s, sizeof before);
            if (it_gptchar_step(&r, &s) != IT_OK)
                break;
        }
    }
    if (!lib_ok) {
        localize_ref_disagrees(t, j, o, T);
        return;
    }
    size_t first = localize_tensors(tv, &it_profile_gptchar, ck_fd, T, o, s.params, iut, t, j);
    if (first == LOCALIZE_NONE || localize_no_ops(rc, t))
        return;
    if (T > 0)
        line(t, "replaying step %u from the reference's state at step %u (the last step whose digest matched):",
             (unsigned)T, (unsigned)T - 1);
    op_replay(rc, r.seed, T, &before, first == GP ? 0 : first, rep, j);
}
