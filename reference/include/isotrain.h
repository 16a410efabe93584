/*
 * isotrain.h — the reference implementation of the isotrain specification.
 *
 * Every function below implements one numbered clause of spec/isotrain-spec.md
 * ("spec §N.M" in the comments). The library is portable C11 with no
 * dependency beyond libc, and it computes only with IEEE-754 binary32/binary64
 * +, -, *, / in round-to-nearest-even, so the same inputs give the same output
 * bits on every ISA. Build it with -ffp-contract=off -fno-fast-math (spec §2.4).
 */
#ifndef ISOTRAIN_H
#define ISOTRAIN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define IT_VERSION "1.1.0"      /* version of this reference implementation */
#define IT_SPEC_VERSION "1.1.0" /* version of spec/isotrain-spec.md it implements */

/* ---- spec §2.2: floating-point environment ----------------------------- */

typedef struct {
    int ftz;      /* 1: a product that should be subnormal came out as zero */
    int daz;      /* 1: a subnormal operand was read as zero */
    int rounding; /* 1: the rounding mode is not round-to-nearest-even (spec §2.1) */
} it_fpenv_report;

/* Probes the live FP environment with operations whose exact results are
 * subnormal or fall on/near a rounding boundary. Returns 0 when the process
 * keeps subnormals and rounds to nearest even, -1 otherwise (and fills *out
 * either way when out is not NULL). */
int it_fpenv_probe(it_fpenv_report *out);

/* ---- spec §3: elementary functions --------------------------------------- */

float it_expf(float x);  /* §3.2: correctly rounded e^x */
float it_logf(float x);  /* §3.3: correctly rounded ln x */
float it_tanhf(float x); /* §3.4: tanh as a fixed sequence of primitives */
float it_sqrtf(float x); /* §3.6: correctly rounded square root (integers only) */

/* The same functions over arrays, y[i] = f(x[i]), with the kernel set in use
 * (identical bits on every set; x and y may be the same array). */
void it_expf_array(const float *x, float *y, size_t n);
void it_logf_array(const float *x, float *y, size_t n);
void it_tanhf_array(const float *x, float *y, size_t n);

/* ---- kernel sets (spec §2.4, §4.1) ---------------------------------------
 * portable (the readable definition), and per instruction set sse2, avx,
 * avx2, avx512 (x86_64) or neon (aarch64): the same bits, faster. The best
 * one this CPU runs is used unless ISOTRAIN_KERNELS or it_kernels_select
 * names one. */

/* Selects a set by name ("auto" or NULL: the best available). Returns 0, -1
 * for a name this build does not know, -2 for a set this CPU cannot run. */
int it_kernels_select(const char *name);
/* it_kernels_select(getenv("ISOTRAIN_KERNELS")), unset or empty meaning auto. */
int it_kernels_select_env(void);
/* The name of the set in use. */
const char *it_kernels_name(void);
/* Names of the sets this build has and this CPU runs, worst first; returns
 * how many there are (names[] gets at most cap of them). */
size_t it_kernels_available(const char **names, size_t cap);
/* Every name any build knows, space-separated. */
const char *it_kernels_known(void);

/* ---- spec §4 and §5: reductions and layers ------------------------------- */

/* §4.2: ((+0 + a[0]*b[0]) + a[1]*b[1]) + ... in ascending index. */
float it_dot(const float *a, const float *b, size_t n);

/* §5.1 embedding: out = E[token][0..dim-1]. */
void it_embedding_forward(const float *E, size_t dim, unsigned token, float *out);
/* §5.8 embedding gradient: dE[token][i] = dE[token][i] + dout[i]. */
void it_embedding_backward(float *dE, size_t dim, unsigned token, const float *dout);

/* §5.2 linear: y[o] = dot(W[o][*], x) + b[o]; W is out x in, row-major. */
void it_linear_forward(const float *W, const float *b, const float *x,
                       size_t in, size_t out, float *y);
/* §5.7 linear gradients, accumulated into dW and db (dW[o][i] += dy[o]*x[i],
 * db[o] += dy[o]); dx[i] = sum over ascending o of W[o][i]*dy[o], written
 * (not accumulated) when dx is not NULL. */
void it_linear_backward(const float *W, const float *x, const float *dy,
                        size_t in, size_t out, float *dW, float *db, float *dx);

/* §5.3 / §5.6 tanh layer. */
void it_tanh_forward(const float *x, size_t n, float *y);
void it_tanh_backward(const float *y, const float *dy, size_t n, float *dx);

/* §5.4 softmax + cross-entropy for one position: writes probs[0..n-1] and
 * returns the loss -log p[target]. */
float it_softmax_xent_forward(const float *logits, size_t n, unsigned target, float *probs);
/* §5.5 gradient of scale * loss with respect to the logits. */
void it_softmax_xent_backward(const float *probs, size_t n, unsigned target, float scale,
                              float *dlogits);

/* §7.1 plain SGD: p[i] = p[i] - lr*g[i], ascending i. */
void it_sgd_update(float *p, const float *g, size_t n, float lr);

/* ---- spec §6: random numbers --------------------------------------------- */

/* §6.1: one Philox4x32-10 block. */
void it_philox4x32_10(const uint32_t ctr[4], const uint32_t key[2], uint32_t out[4]);
/* §6.2: the index-th 32-bit word of stream `stream` under `seed`. */
uint32_t it_rng_u32(uint64_t seed, uint32_t stream, uint64_t index);
/* §6.3: a word to the binary32 value ((r >> 8) - 2^23) * 2^-23, in [-1, 1). */
float it_u32_to_symmetric(uint32_t r);
/* §6.4: floor(r * n / 2^32), a value in [0, n). */
uint32_t it_u32_below(uint32_t r, uint32_t n);

/* ---- spec §8: checkpoint bytes and digests ------------------------------- */

typedef struct {
    uint32_t h[8];
    uint64_t length; /* bytes hashed so far */
    unsigned char block[64];
    size_t used;
} it_sha256_ctx;

void it_sha256_init(it_sha256_ctx *c);
void it_sha256_update(it_sha256_ctx *c, const void *data, size_t len);
void it_sha256_final(it_sha256_ctx *c, unsigned char digest[32]);
void it_sha256(const void *data, size_t len, unsigned char digest[32]);
/* Lowercase hex, 64 characters and a NUL. */
void it_hex(const unsigned char *bytes, size_t len, char *out);

/* §8.1: n binary32 values as 4n little-endian bytes, whatever the host's order. */
void it_store_f32le(const float *src, size_t n, unsigned char *dst);
void it_load_f32le(const unsigned char *src, size_t n, float *dst);
/* §8.2: lowercase hex SHA-256 of it_store_f32le(params). */
void it_params_digest(const float *params, size_t n, char hex[65]);

/* Bit pattern helpers (binary32 <-> uint32), endian-neutral. */
uint32_t it_f32_bits(float f);
float it_f32_from_bits(uint32_t u);

/* ---- spec §11: profile mlp13k -------------------------------------------- */

enum {
    IT_MLP13K_VOCAB = 256,
    IT_MLP13K_EMBED = 16,
    IT_MLP13K_HIDDEN = 32,
    IT_MLP13K_BATCH = 64,
    IT_MLP13K_STEPS = 200,
    /* Offsets of each tensor in the flat parameter vector (§11.2). */
    IT_MLP13K_OFF_EMBED = 0,
    IT_MLP13K_OFF_W1 = IT_MLP13K_OFF_EMBED + IT_MLP13K_VOCAB * IT_MLP13K_EMBED,
    IT_MLP13K_OFF_B1 = IT_MLP13K_OFF_W1 + IT_MLP13K_HIDDEN * IT_MLP13K_EMBED,
    IT_MLP13K_OFF_W2 = IT_MLP13K_OFF_B1 + IT_MLP13K_HIDDEN,
    IT_MLP13K_OFF_B2 = IT_MLP13K_OFF_W2 + IT_MLP13K_VOCAB * IT_MLP13K_HIDDEN,
    IT_MLP13K_NPARAMS = IT_MLP13K_OFF_B2 + IT_MLP13K_VOCAB /* 13,088 */
};

typedef struct {
    const char *name;   /* spec name, e.g. "embed" */
    size_t offset;      /* first element in the flat parameter vector */
    size_t rows, cols;  /* row-major shape; cols == 1 for a vector */
} it_tensor_info;

/* The five tensors of mlp13k in checkpoint order (§11.2). */
extern const it_tensor_info it_mlp13k_tensors[5];

typedef struct {
    uint64_t seed;          /* §11.1's by default; any u64 for a fresh-seed run
                               (iut-protocol P7 --seed): init and sampling */
    float lr;               /* §11.1 */
    const unsigned char *corpus;
    size_t corpus_len;
} it_mlp13k_recipe;

/* The recipe of the profile as the spec fixes it. */
it_mlp13k_recipe it_mlp13k_default_recipe(void);

/* The corpus bytes of §11.3 (compiled in from spec/corpus/mlp13k.txt). */
extern const unsigned char it_mlp13k_corpus[];
extern const size_t it_mlp13k_corpus_len;

/* §11.4 initial parameters. */
void it_mlp13k_init(const it_mlp13k_recipe *r, float *params);
/* §11.5: the (input, target) byte pairs of training step `step` (1-based). */
void it_mlp13k_batch(const it_mlp13k_recipe *r, uint32_t step,
                     unsigned char xs[IT_MLP13K_BATCH], unsigned char ys[IT_MLP13K_BATCH]);
/* §11.6: mean loss of the batch; grads (IT_MLP13K_NPARAMS values) are
 * overwritten with its gradient. */
float it_mlp13k_loss_grad(const float *params, const unsigned char *xs,
                          const unsigned char *ys, size_t batch, float *grads);

/* ---- spec §5.9-§5.12, §6.5, §7.2, §13: profile addmod113 ------------------ */

/* §5.9 / §5.10: relu(x) = +0 if x <= 0 (IEEE), else x (NaN passes through);
 * the backward selects dy where x > 0 and +0 elsewhere (relu'(0) = 0). */
void it_relu_forward(const float *x, size_t n, float *y);
void it_relu_backward(const float *x, const float *dy, size_t n, float *dx);

/* §5.11: attention of one query over T keys for H heads of width dh. q is
 * H*dh, k and v are T x (H*dh) (position-major, head h at columns h*dh...).
 * Writes the weights w (H x T) and z (H*dh, heads concatenated). */
void it_attention_forward(const float *q, const float *k, const float *v, size_t T, size_t H, size_t dh,
                          float scale, float *w, float *z);
/* §5.12: given w, dz (H*dh): dq (H*dh), dk and dv (T x H*dh), written. */
void it_attention_backward(const float *q, const float *k, const float *v, const float *w, const float *dz,
                           size_t T, size_t H, size_t dh, float scale, float *dq, float *dk, float *dv);

/* §7.2 AdamW. */
typedef struct {
    float lr, beta1, beta2, eps, decay; /* decay = 1 - lr*wd, one rounding */
    float one_minus_beta1, one_minus_beta2;
} it_adamw_consts;
typedef struct {
    float beta1_pow, beta2_pow; /* running products beta^t (§7.2), 1 at t = 0 */
    uint32_t t;
} it_adamw_clock;
/* Advances the clock to step t+1 and returns the two bias corrections. */
void it_adamw_tick(const it_adamw_consts *c, it_adamw_clock *k, float *bc1, float *bc2);
/* One element-wise update of n parameters with moments m, v (§7.2). */
void it_adamw_update(const it_adamw_consts *c, float bc1, float bc2, float *p, const float *g, float *m,
                     float *v, size_t n);

enum {
    IT_AM_MOD = 113,           /* the modulus and the number of labels */
    IT_AM_VOCAB = 114,         /* tokens 0..112 and '=' (113) */
    IT_AM_EQ = 113,
    IT_AM_CTX = 3,             /* [a, b, =] */
    IT_AM_D = 128,             /* d_model */
    IT_AM_HEADS = 4,
    IT_AM_DHEAD = 32,
    IT_AM_MLP = 512,
    IT_AM_PAIRS = 113 * 113,   /* 12,769 */
    IT_AM_NTRAIN = 3831,
    IT_AM_NTEST = IT_AM_PAIRS - IT_AM_NTRAIN, /* 8,938 */
    IT_AM_STEPS = 300,
    IT_AM_OFF_WE = 0,
    IT_AM_OFF_WPOS = IT_AM_OFF_WE + IT_AM_VOCAB * IT_AM_D,
    IT_AM_OFF_WQ = IT_AM_OFF_WPOS + IT_AM_CTX * IT_AM_D,
    IT_AM_OFF_WK = IT_AM_OFF_WQ + IT_AM_D * IT_AM_D,
    IT_AM_OFF_WV = IT_AM_OFF_WK + IT_AM_D * IT_AM_D,
    IT_AM_OFF_WO = IT_AM_OFF_WV + IT_AM_D * IT_AM_D,
    IT_AM_OFF_WIN = IT_AM_OFF_WO + IT_AM_D * IT_AM_D,
    IT_AM_OFF_BIN = IT_AM_OFF_WIN + IT_AM_MLP * IT_AM_D,
    IT_AM_OFF_WOUT = IT_AM_OFF_BIN + IT_AM_MLP,
    IT_AM_OFF_BOUT = IT_AM_OFF_WOUT + IT_AM_D * IT_AM_MLP,
    IT_AM_OFF_WU = IT_AM_OFF_BOUT + IT_AM_D,
    IT_AM_NPARAMS = IT_AM_OFF_WU + IT_AM_MOD * IT_AM_D /* 226,688 */
};

/* The eleven tensors of addmod113 in checkpoint order (§13.2). */
extern const it_tensor_info it_addmod113_tensors[11];
#define IT_AM_SEED 0x69736f747261696eull /* §13.1, the same as mlp13k's */

/* §13.3: the permutation of the 12,769 pair indices a*113+b; the first
 * 3,831 are the training set in training order, the rest the test set. */
void it_addmod113_permutation(uint64_t seed, uint32_t perm[IT_AM_PAIRS]);
/* §13.4 */
void it_addmod113_init(uint64_t seed, float *params);
/* §13.5: mean loss of the pairs (indices a*113+b) with its gradient
 * (written, IT_AM_NPARAMS values), on `threads` threads (outputs split,
 * never a sum). */
float it_addmod113_loss_grad(const float *params, const uint32_t *pairs, size_t n, float *grads, unsigned threads);
/* §13.7: SUM of the per-pair losses times `scale`, and how many pairs have
 * the label as their first maximal logit. */
void it_addmod113_eval(const float *params, const uint32_t *pairs, size_t n, float scale, float *loss,
                       uint32_t *correct, unsigned threads);
/* The position-2 values of one pair (for the op vectors and localization):
 * logits (113) and the per-pair loss. */
float it_addmod113_pair_forward(const float *params, uint32_t pair, float *logits);

typedef struct {
    uint64_t seed;
    unsigned threads; /* 1 by default; any count gives the same bits */
    int eval;         /* write §13.7's optional evaluation keys (1 by default) */
} it_addmod113_recipe;

typedef struct {
    float params[IT_AM_NPARAMS], grads[IT_AM_NPARAMS], m[IT_AM_NPARAMS], v[IT_AM_NPARAMS];
    uint32_t perm[IT_AM_PAIRS];
    it_adamw_clock clock;
    uint32_t step;
    float last_loss;
    size_t bad_index;
} it_addmod113_state;

/* ---- spec §9 and §10: training runs ------------------------------------- */

typedef enum {
    IT_OK = 0,
    IT_ERR_NONFINITE_LOSS,   /* §10: loss is NaN or infinite */
    IT_ERR_NONFINITE_PARAM,  /* §10: a parameter became NaN or infinite */
    IT_ERR_FPENV,            /* §2.2: FTZ/DAZ detected at start-up */
    IT_ERR_IO,               /* trace or checkpoint could not be written */
    IT_ERR_ARG               /* invalid argument */
} it_status;

const char *it_status_name(it_status s);

typedef struct {
    float params[IT_MLP13K_NPARAMS];
    float grads[IT_MLP13K_NPARAMS];
    uint32_t step;       /* updates applied so far */
    float last_loss;     /* loss of the last step's batch, before its update */
    size_t bad_index;    /* with IT_ERR_NONFINITE_PARAM: the flat index */
} it_mlp13k_state;

void it_mlp13k_start(const it_mlp13k_recipe *r, it_mlp13k_state *s);
/* One training step (§11.6-§11.7). */
it_status it_mlp13k_step(const it_mlp13k_recipe *r, it_mlp13k_state *s);

/* §9: one trace line for the state, e.g.
 * "step=1 loss=0x40b1a2c3 loss_dec=5.55... digest=<64 hex>\n"; step 0 has no loss. */
void it_trace_line(const it_mlp13k_state *s, char *buf, size_t cap);

typedef struct {
    uint32_t steps;              /* number of updates to run */
    FILE *trace;                 /* NULL: no trace */
    const char *checkpoint_dir;  /* NULL: no checkpoint files */
    const uint32_t *checkpoint_steps; /* steps to write (0 = init) */
    size_t n_checkpoint_steps;
} it_run_options;

/* Runs addmod113 (§13.8) with the same options; the trace's eval fields
 * (§13.7) are written at every checkpoint step of the profile's list. */
it_status it_addmod113_run(const it_addmod113_recipe *r, const it_run_options *o, it_addmod113_state *s,
                           char *err, size_t cap);

/* Runs the profile; on failure writes a message to err (cap bytes). */
it_status it_mlp13k_run(const it_mlp13k_recipe *r, const it_run_options *o,
                        it_mlp13k_state *s, char *err, size_t cap);

/* ---- host description (for `isotrain info`) ------------------------------ */

const char *it_host_isa(void);         /* e.g. "x86_64", "aarch64", "s390x" */
const char *it_host_endianness(void);  /* "little" or "big" */
const char *it_host_os(void);          /* "linux", "windows", "macos", "freebsd" or "unknown" */
/* Writes a space-separated list of relevant CPU features the process sees. */
void it_host_cpu_features(char *buf, size_t cap);
void it_host_cpu_model(char *buf, size_t cap);

#endif
