/* localize_addmod113.c — where an addmod113 run departs (spec §13): the
 * same questions as for mlp13k, the first step, tensor, element and ULPs
 * against the linked reference, then the op that departs: addmod113_init
 * (step 0), or the step's addmod113_loss_grad over the full batch and the
 * adamw update of the first differing element. Found through its row in
 * levels/runner_profiles.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "isotrain.h"
#include "isotrain_profile.h"
#include "levels/localize_replay.h"

#define AMP ((size_t)IT_AM_NPARAMS)

static const char *am_what(uint32_t T, size_t i)
{
    return T == 0 ? "addmod113_init (spec §13.4)"
           : i == 0 ? "addmod113_loss_grad (spec §13.5) over the 3,831 training pairs"
                    : "adamw (spec §7.2)";
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
        replay_add_init(&rp, &it_profile_addmod113, "addmod113_init", init);
    } else {
        fresh_kv_f32(&kv, "params", before, AMP);
        sbuf_adds(&kv, " pairs=");
        for (size_t i = 0; i < IT_AM_NTRAIN; i++)
            sbuf_printf(&kv, "%s%08x", i ? "," : "", (unsigned)perm[i]);
        snprintf(id, sizeof id, "replay/%u/loss_grad", (unsigned)T);
        value *w = rp_add(&rp, "addmod113_loss_grad", id, kv.p);
        fresh_want_f32(&w[0], &loss, 1);
        fresh_want_f32(&w[1], grads, AMP);
        /* the update of one element, from the reference's moments before it */
        const float hyper[5] = {it_f32_from_bits(0x3a83126f), it_f32_from_bits(0x3f666666),
                                it_f32_from_bits(0x3f7ae148), it_f32_from_bits(0x322bcc77),
                                it_f32_from_bits(0x3f7fbe77)};
        it_adamw_consts c = {hyper[0], hyper[1], hyper[2], hyper[3], hyper[4], it_f32_from_bits(0x3dccccd0),
                             it_f32_from_bits(0x3ca3d700)};
        replay_add_adamw(&rp, T, elem, &c, hyper, before[elem], grads[elem], m_prev[elem], v_prev[elem]);
    }
    sbuf_free(&kv);
    replay_conclude(rc, &rp, 4, T, am_what,
                    T == 0 ? "addmod113_init matches for every tensor"
                           : "the step's loss, gradient and that element's update match",
                    rep, j);
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
        const it_run_options ro = localize_resume_options(o, T);
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
    if (!lib_ok) {
        localize_ref_disagrees(t, j, o, T);
        return;
    }
    size_t first = localize_tensors(tv, &it_profile_addmod113, ck_fd, T, o, params, iut, t, j);
    if (first == LOCALIZE_NONE || localize_no_ops(rc, t))
        return;
    if (T > 0)
        line(t, "replaying step %u from the reference's state at step %u (the last step whose digest matched):",
             (unsigned)T, (unsigned)T - 1);
    am_op_replay(rc, T, before, grads, loss, m_prev, v_prev, first == AMP ? 0 : first, perm, init, rep, j);
}
