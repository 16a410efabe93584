/* Profile mlp13k's own groups: init (spec 11.4), batch (11.5), loss_grad
 * (11.6), and train/mlp13k.json (11.8). */
#include "mv.h"

/* ---- groups: init (11.4), batch (11.5), loss_grad (11.6) ------------------------------------------- */

void gen_init(void)
{
    group g;
    group_begin(&g, "init", "11.4");
    static const char *why[5] = {
        "stream 0, uniform in [-1, 1) times 1.0",
        "stream 1, uniform in [-1, 1) times 0.25 (1/sqrt(16), exact)",
        "all +0",
        "stream 3, uniform in [-1, 1) times RN(1/sqrt(32)) = 0x3e3504f3",
        "all +0",
    };
    for (int t = 0; t < 5; t++) {
        const it_tensor_info *ti = &it_mlp13k_tensors[t];
        op_case(&g, "mlp13k_init", FL(TYPICAL),
                VALS(IN_NAME("tensor", ti->name), OUT_F32("values", hist[0] + ti->offset, ti->rows * ti->cols)),
                say("initial %s (%zu x %zu): %s", ti->name, ti->rows, ti->cols, why[t]));
    }
    group_end(&g);
}

void gen_batch(void)
{
    group g;
    group_begin(&g, "batch", "11.5");
    static const uint32_t steps[4] = {1, 2, 100, 200};
    for (int i = 0; i < 4; i++) {
        uint32_t t = steps[i];
        op_case(&g, "mlp13k_batch", FL(TYPICAL),
                VALS(IN_INT("step", t), OUT_BYTES("x", batch_x[t], B), OUT_BYTES("y", batch_y[t], B)),
                say("the (input, target) bytes of step %u%s", (unsigned)t,
                    t == 1     ? " (the first batch; sampling words 0..63)"
                    : t == 200 ? " (the last step of the profile)"
                               : ""));
    }
    group_end(&g);
}

static float lg_case(group *g, const float *params, const unsigned char *xs, const unsigned char *ys, size_t m,
                     unsigned flags, const char *why)
{
    static float grads[NP];
    float loss = it_mlp13k_loss_grad(params, xs, ys, m, grads);
    require(m <= B, "batch too large");
    op_case(g, "mlp13k_loss_grad", flags,
            VALS(IN_F32("params", params, NP), IN_BYTES("x", xs, m), IN_BYTES("y", ys, m), OUT_F1("loss", loss),
                 OUT_F32("grads", grads, NP)),
            why);
    return loss;
}

void gen_loss_grad(void)
{
    group g;
    group_begin(&g, "loss_grad", "11.6");
    static float grads[NP];
    float loss = lg_case(&g, hist[0], batch_x[1], batch_y[1], B, FL(TYPICAL),
                         "the initial parameters and the step-1 batch: the first gradient of the profile");
    require(U(loss) == loss_bits[1], "loss_grad step 1 disagrees with the trace");
    loss = lg_case(&g, hist[5], batch_x[6], batch_y[6], B, FL(TYPICAL),
                   "the parameters after 5 steps and the step-6 batch");
    require(U(loss) == loss_bits[6], "loss_grad step 6 disagrees with the trace");
    /* batch size 3: scale RN(1/3) is inexact; pick the first 3 consecutive
     * positions of step 1 where loss_sum * RN(1/3) differs from loss_sum / 3 */
    for (int p = 0; p + 3 <= B; p++) {
        float sum = run_positions(hist[0], batch_x[1] + p, batch_y[1] + p, 3, 3, grads, NULL);
        if (U(sum * (1.0f / 3.0f)) == U(sum / 3.0f))
            continue;
        rebuild_loss_grad(hist[0], batch_x[1] + p, batch_y[1] + p, 3, NULL, grads);
        lg_case(&g, hist[0], batch_x[1] + p, batch_y[1] + p, 3, FL(EDGE), say("batch size 3 (positions %d..%d of step 1, initial parameters): scale is RN(1/3), inexact, and the "
                "loss is loss_sum * RN(1/3), which here differs from loss_sum / 3",
                p, p + 2));
        group_end(&g);
        return;
    }
    die("no 3-position window of step 1 separates loss_sum * RN(1/3) from loss_sum / 3");
}
/* ---- train/mlp13k.json and the checkpoints (FORMAT.md section 3) ---- */

void gen_train(void)
{
    static const uint32_t ck_steps[5] = {0, 50, 100, 150, 200};
    const float *ck_params[5];
    for (int i = 0; i < 5; i++)
        ck_params[i] = hist[ck_steps[i]];
    unsigned char d[32];
    char corpus_hex[65];
    it_sha256(recipe.corpus, recipe.corpus_len, d);
    it_hex(d, 32, corpus_hex);
    const train_file tf = {it_profile_mlp13k.name, it_mlp13k_tensors, 5, NP, corpus_hex, STEPS, loss_bits, digests,
                           ck_steps, 5, ck_params};
    emit_train_file(&tf, it_profile_mlp13k.clause);
}
