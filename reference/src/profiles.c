/* THE profile table: every profile of the spec as data (isotrain_profile.h).
 * Each column names the clause that fixes it; a profile's name is spelled
 * here and nowhere else in reference/ (the CLI, the MPI trainer and the
 * vector generator look the row up). */
#include <stdio.h>
#include <string.h>

#include "isotrain.h"
#include "isotrain_profile.h"
#include "profile_steps.h"

#define U IT_INIT_UNIFORM
#define C IT_INIT_CONST
#define ONE 0x3f800000u

/* ---- mlp13k (spec §11) ---- */

/* §11.2 checkpoint order; §11.4 init (stream = index); SGD has no decay */
const it_tensor_info it_mlp13k_tensors[5] = {
    {"embed", IT_MLP13K_OFF_EMBED, IT_MLP13K_VOCAB, IT_MLP13K_EMBED, U, ONE, 0},
    {"w1", IT_MLP13K_OFF_W1, IT_MLP13K_HIDDEN, IT_MLP13K_EMBED, U, 0x3e800000u /* 1/sqrt(16) */, 0},
    {"b1", IT_MLP13K_OFF_B1, IT_MLP13K_HIDDEN, 1, C, 0, 0},
    {"w2", IT_MLP13K_OFF_W2, IT_MLP13K_VOCAB, IT_MLP13K_HIDDEN, U, 0x3e3504f3u /* RN(1/sqrt(32)) */, 0},
    {"b2", IT_MLP13K_OFF_B2, IT_MLP13K_VOCAB, 1, C, 0, 0},
};

static const uint32_t mlp13k_checkpoints[] = {50, 100, 150, 200}; /* §11.8 */

const it_profile it_profile_mlp13k = {
    .name = "mlp13k", .since = "1.0.0", .clause = "11",
    .tensors = it_mlp13k_tensors, .ntensors = 5, .nparams = IT_MLP13K_NPARAMS,
    .seed = 0x69736f747261696eull,                  /* §11.1: "isotrain" in ASCII */
    .optimizer = IT_OPT_SGD, .lr_bits = 0x3f000000u, /* §11.1, §7.1: 0.5 */
    .schedule = IT_LR_CONSTANT,
    .corpus = it_mlp13k_corpus, .corpus_len = &it_mlp13k_corpus_len, /* §11.3 */
    .steps = IT_MLP13K_STEPS, .checkpoint_steps = mlp13k_checkpoints, .n_checkpoint_steps = 4,
    .fresh_steps = 20, /* §11.9, P7 */
    .window_steps = 3, /* P7: its steps are cheap */
    .batch_rows = IT_MLP13K_BATCH, .row_noun = "positions",
    .loss_grad = it_mlp13k_step_loss,
};

/* ---- addmod113 (spec §13) ---- */

#define AM_D 0x3e1cc471u /* RN(sqrt(3/128)): uniform with the std of randn/sqrt(128) */
#define AM_U 0x3e261d5fu /* RN(sqrt(3/114)): W_U was randn/sqrt(d_vocab = 114) */

/* §13.2 checkpoint order; §13.4 init (stream = index, biases +0); §13.1:
 * AdamW's decay on every tensor */
const it_tensor_info it_addmod113_tensors[11] = {
    {"w_e", IT_AM_OFF_WE, IT_AM_VOCAB, IT_AM_D, U, AM_D, 1},
    {"w_pos", IT_AM_OFF_WPOS, IT_AM_CTX, IT_AM_D, U, AM_D, 1},
    {"w_q", IT_AM_OFF_WQ, IT_AM_D, IT_AM_D, U, AM_D, 1},
    {"w_k", IT_AM_OFF_WK, IT_AM_D, IT_AM_D, U, AM_D, 1},
    {"w_v", IT_AM_OFF_WV, IT_AM_D, IT_AM_D, U, AM_D, 1},
    {"w_o", IT_AM_OFF_WO, IT_AM_D, IT_AM_D, U, AM_D, 1},
    {"w_in", IT_AM_OFF_WIN, IT_AM_MLP, IT_AM_D, U, AM_D, 1},
    {"b_in", IT_AM_OFF_BIN, IT_AM_MLP, 1, C, 0, 1},
    {"w_out", IT_AM_OFF_WOUT, IT_AM_D, IT_AM_MLP, U, AM_D, 1},
    {"b_out", IT_AM_OFF_BOUT, IT_AM_D, 1, C, 0, 1},
    {"w_u", IT_AM_OFF_WU, IT_AM_MOD, IT_AM_D, U, AM_U, 1},
};

static const uint32_t addmod113_checkpoints[] = {100, 200, 300}; /* §13.8 */
static const uint32_t addmod113_evals[] = {0, 100, 200, 300};    /* §13.7 */
static const it_window addmod113_windows[] = {{0, 1}, {150, 151}, {299, 300}}; /* vectors 1.2.0 */

const it_profile it_profile_addmod113 = {
    .name = "addmod113", .since = "1.1.0", .clause = "13",
    .tensors = it_addmod113_tensors, .ntensors = 11, .nparams = IT_AM_NPARAMS,
    .seed = IT_AM_SEED,
    /* §13.1: AdamW, lr RN(1e-3), betas RN(0.9), RN(0.98), eps RN(1e-8), wd 1 */
    .optimizer = IT_OPT_ADAMW, .lr_bits = 0x3a83126fu, .beta1_bits = 0x3f666666u, .beta2_bits = 0x3f7ae148u,
    .eps_bits = 0x322bcc77u, .wd_bits = ONE,
    .schedule = IT_LR_CONSTANT,
    .steps = IT_AM_STEPS, .checkpoint_steps = addmod113_checkpoints, .n_checkpoint_steps = 3,
    .fresh_steps = 3, /* §11.9, P7 */
    .window_steps = 1, /* P7: one step is a full batch of 3,831 pairs */
    .windows = addmod113_windows, .n_windows = 3,
    .batch_rows = IT_AM_NTRAIN, .row_noun = "pairs", .threaded = 1,
    .eval_steps = addmod113_evals, .n_eval_steps = 4,
    .work_new = it_addmod113_run_work_new, .work_free = it_addmod113_run_work_free,
    .loss_grad = it_addmod113_step_loss, .trace_extra = it_addmod113_trace_eval,
};

/* ---- gptchar (spec §14) ---- */

/* §14.2 checkpoint order; §14.4 init: LayerNorm gains 1, biases +0, the
 * rest uniform; §14.7: decay on wte, wpe and the linear weights only */
#define GC_BLOCK(l)                                                                                             \
    {"h" #l "_ln1_w", IT_GC_OFF_H0 + (l)*IT_GC_BLOCK + IT_GC_B_LN1_W, IT_GC_D, 1, C, ONE, 0},                 \
        {"h" #l "_ln1_b", IT_GC_OFF_H0 + (l)*IT_GC_BLOCK + IT_GC_B_LN1_B, IT_GC_D, 1, C, 0, 0},               \
        {"h" #l "_q_w", IT_GC_OFF_H0 + (l)*IT_GC_BLOCK + IT_GC_B_Q_W, IT_GC_D, IT_GC_D, U, GC_8, 1},          \
        {"h" #l "_q_b", IT_GC_OFF_H0 + (l)*IT_GC_BLOCK + IT_GC_B_Q_B, IT_GC_D, 1, C, 0, 0},                   \
        {"h" #l "_k_w", IT_GC_OFF_H0 + (l)*IT_GC_BLOCK + IT_GC_B_K_W, IT_GC_D, IT_GC_D, U, GC_8, 1},          \
        {"h" #l "_k_b", IT_GC_OFF_H0 + (l)*IT_GC_BLOCK + IT_GC_B_K_B, IT_GC_D, 1, C, 0, 0},                   \
        {"h" #l "_v_w", IT_GC_OFF_H0 + (l)*IT_GC_BLOCK + IT_GC_B_V_W, IT_GC_D, IT_GC_D, U, GC_8, 1},          \
        {"h" #l "_v_b", IT_GC_OFF_H0 + (l)*IT_GC_BLOCK + IT_GC_B_V_B, IT_GC_D, 1, C, 0, 0},                   \
        {"h" #l "_o_w", IT_GC_OFF_H0 + (l)*IT_GC_BLOCK + IT_GC_B_O_W, IT_GC_D, IT_GC_D, U, GC_8, 1},          \
        {"h" #l "_o_b", IT_GC_OFF_H0 + (l)*IT_GC_BLOCK + IT_GC_B_O_B, IT_GC_D, 1, C, 0, 0},                   \
        {"h" #l "_ln2_w", IT_GC_OFF_H0 + (l)*IT_GC_BLOCK + IT_GC_B_LN2_W, IT_GC_D, 1, C, ONE, 0},             \
        {"h" #l "_ln2_b", IT_GC_OFF_H0 + (l)*IT_GC_BLOCK + IT_GC_B_LN2_B, IT_GC_D, 1, C, 0, 0},               \
        {"h" #l "_fc_w", IT_GC_OFF_H0 + (l)*IT_GC_BLOCK + IT_GC_B_FC_W, IT_GC_MLP, IT_GC_D, U, GC_8, 1},      \
        {"h" #l "_fc_b", IT_GC_OFF_H0 + (l)*IT_GC_BLOCK + IT_GC_B_FC_B, IT_GC_MLP, 1, C, 0, 0},               \
        {"h" #l "_proj_w", IT_GC_OFF_H0 + (l)*IT_GC_BLOCK + IT_GC_B_PROJ_W, IT_GC_D, IT_GC_MLP, U, GC_16, 1}, \
        {"h" #l "_proj_b", IT_GC_OFF_H0 + (l)*IT_GC_BLOCK + IT_GC_B_PROJ_B, IT_GC_D, 1, C, 0, 0}
#define GC_8 0x3e000000u  /* 1/sqrt(64) = 2^-3: q, k, v, o, fc */
#define GC_16 0x3d800000u /* 1/sqrt(256) = 2^-4: proj */

const it_tensor_info it_gptchar_tensors[IT_GC_NTENSORS] = {
    {"wte", IT_GC_OFF_WTE, IT_GC_VOCAB, IT_GC_D, U, 0x3d000000u /* 2^-5 */, 1},
    {"wpe", IT_GC_OFF_WPE, IT_GC_CTX, IT_GC_D, U, 0x3c800000u /* 2^-6 */, 1},
    GC_BLOCK(0),
    GC_BLOCK(1),
    {"lnf_w", IT_GC_OFF_LNF_W, IT_GC_D, 1, C, ONE, 0},
    {"lnf_b", IT_GC_OFF_LNF_B, IT_GC_D, 1, C, 0, 0},
};

static const uint32_t gptchar_checkpoints[] = {100, 200, 300, 400, 500}; /* §14.8 */
static const it_window gptchar_windows[] = {{0, 3}, {250, 253}, {497, 500}}; /* vectors 1.2.0 */

const it_profile it_profile_gptchar = {
    .name = "gptchar", .since = "1.2.0", .clause = "14",
    .tensors = it_gptchar_tensors, .ntensors = IT_GC_NTENSORS, .nparams = IT_GC_NPARAMS,
    .seed = IT_GC_SEED,
    /* §14.1: AdamW, peak lr RN(3e-3), betas RN(0.9), RN(0.95), eps RN(1e-8),
     * wd RN(0.1); §7.3 clip to norm 1 with eps RN(1e-6); §7.4 warmup-cosine */
    .optimizer = IT_OPT_ADAMW, .lr_bits = 0x3b449ba6u, .beta1_bits = 0x3f666666u, .beta2_bits = 0x3f733333u,
    .eps_bits = 0x322bcc77u, .wd_bits = 0x3dcccccdu, .clip_max_bits = ONE, .clip_eps_bits = 0x358637bdu,
    .schedule = IT_LR_WARMUP_LINEAR, .warmup = IT_GC_WARMUP,
    .corpus = it_gptchar_corpus, .corpus_len = &it_gptchar_corpus_len, /* §14.3 */
    .steps = IT_GC_STEPS, .checkpoint_steps = gptchar_checkpoints, .n_checkpoint_steps = 5,
    .fresh_steps = 53, /* §11.9, P7: past the 50 warm-up steps into the decay (§14.1, §7.4) */
    .window_steps = 3, /* P7: three steps cross a clipping decision or two */
    .windows = gptchar_windows, .n_windows = 3,
    .batch_rows = IT_GC_SEQS, .row_noun = "sequences", .threaded = 1,
    .work_new = it_gptchar_run_work_new, .work_free = it_gptchar_run_work_free,
    .loss_grad = it_gptchar_step_loss,
};

const it_profile *const it_profiles[] = {&it_profile_mlp13k, &it_profile_addmod113, &it_profile_gptchar};
const size_t it_n_profiles = sizeof it_profiles / sizeof it_profiles[0];

const it_profile *it_profile_find(const char *name)
{
    for (size_t i = 0; name && i < it_n_profiles; i++)
        if (strcmp(it_profiles[i]->name, name) == 0)
            return it_profiles[i];
    return NULL;
}

void it_profile_names(const char *sep, char *buf, size_t cap)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < it_n_profiles && used < cap; i++) {
        int n = snprintf(buf + used, cap - used, "%s%s", i ? sep : "", it_profiles[i]->name);
        if (n < 0)
            return;
        used += (size_t)n;
    }
}
