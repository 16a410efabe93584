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

#define IT_VERSION "1.2.0"      /* version of this reference implementation */
#define IT_SPEC_VERSION "1.3.0" /* version of spec/isotrain-spec.md it implements (1.3.0: the GPT family, §16) */

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

/* §5.4 softmax + cross-entropy for one position (probs may be logits): writes probs[0..n-1] and
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
/* The compression in use: "portable" (FIPS 180-4 as written, sha256.c),
 * "sha-ni" (x86 SHA extensions) or "armv8-sha2"; the instructions are used
 * with every kernel set but portable, when the CPU has them (same bits). */
const char *it_sha256_name(void);
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

/* How a tensor starts (§11.4, §13.4, §14.4): uniform on [-c, c), u(word)
 * times c with the words of stream = the tensor's checkpoint index (§6.3),
 * or c in every element. */
typedef enum { IT_INIT_CONST = 0, IT_INIT_UNIFORM = 1 } it_init_kind;

typedef struct {
    const char *name;   /* spec name, e.g. "embed" */
    size_t offset;      /* first element in the flat parameter vector */
    size_t rows, cols;  /* row-major shape; cols == 1 for a vector */
    it_init_kind init;  /* the profile's init clause */
    uint32_t init_bits; /* c, as binary32 bits */
    int decay;          /* §7.2: AdamW's weight decay applies to it */
} it_tensor_info;

/* The initial parameters of a profile's tensors as their init columns say
 * (the tensors cover params without gaps). */
void it_tensors_init(const it_tensor_info *tensors, size_t ntensors, uint64_t seed, float *params);

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

/* The same two computations with the buffers of every activation and
 * gradient allocated once, up front (about 22 KB per pair): a run allocates
 * one workspace and no step allocates (spec §13.8). A batch of more than
 * max_pairs pairs runs in chunks of max_pairs, each gradient SUM resumed
 * from the partial the chunk before stored (spec §4.1): the same bits as
 * it_addmod113_loss_grad / it_addmod113_eval (which allocate a workspace
 * per call). One workspace serves one call at a time. NULL: out of memory. */
typedef struct it_addmod113_work it_addmod113_work;
it_addmod113_work *it_addmod113_work_new(size_t max_pairs);
void it_addmod113_work_free(it_addmod113_work *w);
float it_addmod113_loss_grad_work(it_addmod113_work *w, const float *params, const uint32_t *pairs, size_t n,
                                  float *grads, unsigned threads);
void it_addmod113_eval_work(it_addmod113_work *w, const float *params, const uint32_t *pairs, size_t n, float scale,
                            float *loss, uint32_t *correct, unsigned threads);

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

/* ---- spec §5.13-§5.20, §7.3, §7.4, §14: profile gptchar (1.2.0) -------- */

/* §5.13: y[i] = x[i] + branch[i] (the residual stream is the left operand). */
void it_residual_add(const float *x, const float *branch, size_t n, float *y);
/* §5.14 LayerNorm of one row of n: y, the normalized row xhat, the mean and
 * rstd = 1 / sqrt(var + eps) (mean may be NULL). */
void it_layernorm_forward(const float *x, const float *w, const float *b, size_t n, float eps, float *y,
                          float *xhat, float *mean, float *rstd);
/* §5.15: dw, db accumulated (one term each), dx written. */
void it_layernorm_backward(const float *xhat, float rstd, const float *w, const float *dy, size_t n, float *dw,
                           float *db, float *dx);
/* §5.16 / §5.17: GELU, tanh form; the backward takes the forward input. */
void it_gelu_forward(const float *x, size_t n, float *y);
void it_gelu_backward(const float *x, const float *dy, size_t n, float *dx);
/* §5.18: causal self-attention over T positions; q, k, v, z are T x (H*dh)
 * position-major, w is T x H x T (+0 at the masked keys). */
void it_causal_attention_forward(const float *q, const float *k, const float *v, size_t T, size_t H, size_t dh,
                                 float scale, float *w, float *z);
/* §5.19: dq, dk, dv (T x H*dh), written. */
void it_causal_attention_backward(const float *q, const float *k, const float *v, const float *w,
                                  const float *dz, size_t T, size_t H, size_t dh, float scale, float *dq,
                                  float *dk, float *dv);
/* The same two with the caller's scratch, never allocating (the two above
 * allocate it per call and abort without it): wp holds H*T floats, dkp and
 * dvp T*H*dh each. The same bits. */
void it_causal_attention_forward_scratch(const float *q, const float *k, const float *v, size_t T, size_t H,
                                         size_t dh, float scale, float *w, float *z, float *wp);
void it_causal_attention_backward_scratch(const float *q, const float *k, const float *v, const float *w,
                                          const float *dz, size_t T, size_t H, size_t dh, float scale, float *dq,
                                          float *dk, float *dv, float *wp, float *dkp, float *dvp);
/* §5.20: the gradient of a tied embedding E (V x dim): the output side first,
 * dE[v][c] = SUM over rows r of dlogits[r][v] * f[r][c], then the input side
 * scatter-added (§5.8) row by row in ascending r. Written into dE. */
void it_tied_embedding_grad(const float *f, const float *dlogits, const uint32_t *tokens, const float *dx,
                            size_t n, size_t V, size_t dim, float *dE);
/* §7.3: clips g in place to global norm max_norm; returns the norm. */
float it_clip_grad_norm(float *g, size_t n, float max_norm, float eps);
/* §7.3 over the concatenation of count tensors (g[i], n[i] elements each,
 * in that order) without forming it: the same bits as it_clip_grad_norm of
 * the concatenation (a framework's parameters are separate tensors). */
float it_clip_grad_norm_tensors(size_t count, float *const *g, const size_t *n, float max_norm, float eps);
/* §7.4: the learning rate of step t (1-based) of `total` steps. */
float it_lr_schedule(uint32_t t, uint32_t warmup, uint32_t total, float lr_max);

enum {
    IT_GC_VOCAB = 63,   /* distinct bytes of spec/corpus/gptchar.txt (§14.3) */
    IT_GC_D = 64,
    IT_GC_HEADS = 4,
    IT_GC_DHEAD = 16,
    IT_GC_MLP = 256,
    IT_GC_CTX = 32,     /* T */
    IT_GC_LAYERS = 2,
    IT_GC_SEQS = 16,    /* sequences per step */
    IT_GC_ROWS = IT_GC_SEQS * IT_GC_CTX, /* 512 positions per step */
    IT_GC_STEPS = 500,
    IT_GC_WARMUP = 50,
    IT_GC_NTENSORS = 2 + 16 * IT_GC_LAYERS + 2,
    /* offsets within a block (§14.2) */
    IT_GC_B_LN1_W = 0,
    IT_GC_B_LN1_B = IT_GC_B_LN1_W + IT_GC_D,
    IT_GC_B_Q_W = IT_GC_B_LN1_B + IT_GC_D,
    IT_GC_B_Q_B = IT_GC_B_Q_W + IT_GC_D * IT_GC_D,
    IT_GC_B_K_W = IT_GC_B_Q_B + IT_GC_D,
    IT_GC_B_K_B = IT_GC_B_K_W + IT_GC_D * IT_GC_D,
    IT_GC_B_V_W = IT_GC_B_K_B + IT_GC_D,
    IT_GC_B_V_B = IT_GC_B_V_W + IT_GC_D * IT_GC_D,
    IT_GC_B_O_W = IT_GC_B_V_B + IT_GC_D,
    IT_GC_B_O_B = IT_GC_B_O_W + IT_GC_D * IT_GC_D,
    IT_GC_B_LN2_W = IT_GC_B_O_B + IT_GC_D,
    IT_GC_B_LN2_B = IT_GC_B_LN2_W + IT_GC_D,
    IT_GC_B_FC_W = IT_GC_B_LN2_B + IT_GC_D,
    IT_GC_B_FC_B = IT_GC_B_FC_W + IT_GC_MLP * IT_GC_D,
    IT_GC_B_PROJ_W = IT_GC_B_FC_B + IT_GC_MLP,
    IT_GC_B_PROJ_B = IT_GC_B_PROJ_W + IT_GC_D * IT_GC_MLP,
    IT_GC_BLOCK = IT_GC_B_PROJ_B + IT_GC_D, /* 49,984 */
    IT_GC_OFF_WTE = 0,
    IT_GC_OFF_WPE = IT_GC_OFF_WTE + IT_GC_VOCAB * IT_GC_D,
    IT_GC_OFF_H0 = IT_GC_OFF_WPE + IT_GC_CTX * IT_GC_D,
    IT_GC_OFF_LNF_W = IT_GC_OFF_H0 + IT_GC_LAYERS * IT_GC_BLOCK,
    IT_GC_OFF_LNF_B = IT_GC_OFF_LNF_W + IT_GC_D,
    IT_GC_NPARAMS = IT_GC_OFF_LNF_B + IT_GC_D /* 106,176 */
};
#define IT_GC_SEED 0x69736f747261696eull /* §14.1, the same as mlp13k's */

/* The 36 tensors of gptchar in checkpoint order (§14.2). */
extern const it_tensor_info it_gptchar_tensors[IT_GC_NTENSORS];
/* The corpus of §14.3 (compiled in from spec/corpus/gptchar.txt). */
extern const unsigned char it_gptchar_corpus[];
extern const size_t it_gptchar_corpus_len;
/* §14.3: the vocabulary (distinct bytes ascending) and each byte's token
 * (-1 for a byte not in it); returns V. */
size_t it_gptchar_vocab(unsigned char bytes[256], int token_of[256]);
/* §14.4 */
void it_gptchar_init(uint64_t seed, float *params);
/* §14.5: the input and target tokens of step t (1-based): IT_GC_SEQS
 * sequences of IT_GC_CTX tokens, row-major. */
void it_gptchar_batch(uint64_t seed, uint32_t step, uint32_t x[IT_GC_ROWS], uint32_t y[IT_GC_ROWS]);
/* §14.6: mean loss over nseq sequences (x, y: nseq x IT_GC_CTX tokens) and
 * its gradient (written, IT_GC_NPARAMS values); s = 1 / (nseq * T). */
float it_gptchar_loss_grad(const float *params, const uint32_t *x, const uint32_t *y, size_t nseq, float *grads);
/* The same, handing the intermediates of §14.6 to tap as they are made (for
 * the vectors and the runner's localization): "x0", then per block l "ln1",
 * "q", "k", "v", "att" (nseq x T x H x T), "z", "o", "xmid", "ln2", "h", "xout",
 * then "lnf", "probs", "dlogits" and "dx0" (layer -1), row-major over rows. */
typedef void (*it_gptchar_tap)(void *ctx, const char *what, int layer, const float *data, size_t n);
float it_gptchar_loss_grad_tap(const float *params, const uint32_t *x, const uint32_t *y, size_t nseq, float *grads,
                               it_gptchar_tap tap, void *ctx);

typedef struct {
    uint64_t seed;
} it_gptchar_recipe;

typedef struct {
    float params[IT_GC_NPARAMS], grads[IT_GC_NPARAMS], m[IT_GC_NPARAMS], v[IT_GC_NPARAMS];
    it_adamw_clock clock;
    uint32_t step;
    float last_loss, last_norm, last_lr;
    size_t bad_index;
} it_gptchar_state;
/* ---- batched layers over rows (spec §4.1, §4.5, §5, §7) --------------------
 * The building blocks both profiles are made of, for other trainers too
 * (the PyTorch adapter calls them on tensor storage; a data-parallel trainer
 * continues one rank's partial gradient sums on the next rank).
 *
 * Matrices are row-major, each with a leading dimension ld: element (r, c)
 * of X is X[r*ldx + c], and ldx >= the number of columns (ld = 0 is allowed
 * only where a comment says so). A row is one position or one batch element;
 * every "SUM over rows" below runs over the rows in ascending order, exactly
 * spec §4.5's order for the weight gradients.
 *
 * threads: how many threads may compute this call's independent outputs (0
 * and 1: only the calling thread). Every count gives the same bits: threads
 * split different outputs (rows of Y or dX, rows of dW, elements), never
 * one sum (spec §4.1). The extra threads are a pool started on first use,
 * kept for the life of the process, probed for FTZ/DAZ when they start
 * (spec §2.2: a pool whose probe fails is never used), at most 64 in all;
 * one call at a time uses them, and a call that finds them busy (another
 * thread's call, or a call from inside a share) computes all its shares on
 * its own thread: the same bits, only slower. Builds without POSIX threads
 * (Windows) always compute on the calling thread.
 *
 * Each returns 0, or -1 when an argument is invalid (a leading dimension
 * smaller than its row, a NULL matrix with a non-zero size, a token not
 * below the vocabulary), in which case nothing was written. */

/* §5.2, §4.5 Y = X Wᵀ + b: Y[r][o] = SUM over i = 0..in-1 of X[r][i]*W[o][i],
 * then + b[o] (after the whole sum) when b is not NULL. W is out x in,
 * row-major (the layout of the checkpoint), b has out elements. */
int it_rows_linear_forward(size_t rows, size_t in, size_t out, const float *X, size_t ldx, const float *W,
                           const float *b, float *Y, size_t ldy, unsigned threads);

/* §5.7, §4.5 dX = dY W: dX[r][i] = SUM over o = 0..out-1 of dY[r][o]*W[o][i],
 * a fresh sum (written, not accumulated). */
int it_rows_linear_backward_input(size_t rows, size_t in, size_t out, const float *dY, size_t lddy, const float *W,
                                  float *dX, size_t lddx, unsigned threads);

/* §5.7, §4.5, §4.1 the parameter gradients, CONTINUED from the partial sums
 * stored in dW (out x in) and db (out; NULL: no bias): for each row r in
 * ascending order, dW[o][i] = dW[o][i] + dY[r][o]*X[r][i] and
 * db[o] = db[o] + dY[r][o]. Start from +0 (zero dW and db) for a fresh sum.
 * A sum may be suspended and resumed (spec §4.1): calling this for rows
 * [0, k) and then for rows [k, n) on the stored result gives the bits of
 * one call for [0, n), for every k, so the rows may be split across calls,
 * processes or MPI ranks that pass dW and db on in row order. Adding two
 * partial sums that each started from +0 does not give those bits. */
int it_rows_linear_backward_params(size_t rows, size_t in, size_t out, const float *dY, size_t lddy, const float *X,
                                   size_t ldx, float *dW, float *db, unsigned threads);

/* §5.1 Y[r] = E[tokens[r]] (rows of dim values, E is vocab x dim) */
int it_rows_embedding_forward(size_t rows, size_t dim, size_t vocab, const float *E, const uint32_t *tokens,
                              float *Y, size_t ldy, unsigned threads);
/* §5.8 scatter-add, CONTINUED from dE: for each row r ascending,
 * dE[tokens[r]][c] = dE[tokens[r]][c] + dY[r][c]. Resumable like
 * it_rows_linear_backward_params. */
int it_rows_embedding_backward(size_t rows, size_t dim, size_t vocab, const uint32_t *tokens, const float *dY,
                               size_t lddy, float *dE, unsigned threads);

/* §1.3 Y = A + B, one rounding per element (Y may be A or B); ldb = 0 adds
 * B's first row to every row (a bias or a position embedding). */
int it_rows_add(size_t rows, size_t cols, const float *A, size_t lda, const float *B, size_t ldb, float *Y,
                size_t ldy, unsigned threads);

/* §5.9 / §5.10 / §5.3 / §5.6 elementwise over rows x cols (Y may be X) */
int it_rows_relu_forward(size_t rows, size_t cols, const float *X, size_t ldx, float *Y, size_t ldy,
                         unsigned threads);
int it_rows_relu_backward(size_t rows, size_t cols, const float *X, size_t ldx, const float *dY, size_t lddy,
                          float *dX, size_t lddx, unsigned threads);
int it_rows_tanh_forward(size_t rows, size_t cols, const float *X, size_t ldx, float *Y, size_t ldy,
                         unsigned threads);
/* dX = dY * (1 - Y*Y), Y the forward output */
int it_rows_tanh_backward(size_t rows, size_t cols, const float *Y, size_t ldy, const float *dY, size_t lddy,
                          float *dX, size_t lddx, unsigned threads);

/* §5.4 per row of n logits: the probabilities into P (P may be Z with
 * ldp == ldz) and, when loss is not NULL, loss[r] = the row's
 * cross-entropy for the label targets[r] (< n). */
int it_rows_softmax_xent_forward(size_t rows, size_t n, const float *Z, size_t ldz, const uint32_t *targets,
                                 float *loss, float *P, size_t ldp, unsigned threads);
/* §5.5 per row: dZ = (P - onehot(targets[r])) * scale (dZ may be P) */
int it_rows_softmax_xent_backward(size_t rows, size_t n, const float *P, size_t ldp, const uint32_t *targets,
                                  float scale, float *dZ, size_t lddz, unsigned threads);

/* §5.11 for each row r: the query Q[r] (H*dh values) attends over the T
 * keys and values K, V rows r*T + t (t = 0..T-1, ld ldkv: position-major,
 * as it_attention_forward); weights into Wt + r*H*T (H x T), the output
 * (heads concatenated) into Z + r*ldz. */
int it_rows_attention_forward(size_t rows, size_t T, size_t H, size_t dh, float scale, const float *Q, size_t ldq,
                              const float *K, const float *V, size_t ldkv, float *Wt, float *Z, size_t ldz,
                              unsigned threads);
/* §5.12 for each row: from Q, K, V, the weights Wt and dZ (ld lddz):
 * dQ[r] (ld lddq) and dK, dV rows r*T + t (ld lddkv), written. */
int it_rows_attention_backward(size_t rows, size_t T, size_t H, size_t dh, float scale, const float *Q, size_t ldq,
                               const float *K, const float *V, size_t ldkv, const float *Wt, const float *dZ,
                               size_t lddz, float *dQ, size_t lddq, float *dK, float *dV, size_t lddkv,
                               unsigned threads);

/* §7.2 / §7.1 over a tensor of n elements (elementwise: any split) */
int it_tensor_adamw_update(const it_adamw_consts *c, float bc1, float bc2, float *p, const float *g, float *m,
                           float *v, size_t n, unsigned threads);
int it_tensor_sgd_update(float *p, const float *g, size_t n, float lr, unsigned threads);

/* §3.6 y[i] = sqrt(x[i]) with the kernel set in use (the CPU's IEEE square
 * root where the set has one; identical bits to it_sqrtf everywhere) */
void it_sqrtf_array(const float *x, float *y, size_t n);

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
    /* spec §8.3-§8.4 (1.2.0), every profile: */
    const uint32_t *state_steps; /* also write the complete state (§8.3) of these steps into checkpoint_dir */
    size_t n_state_steps;
    const char *resume_dir;      /* NULL: start at step 0; else resume from the state of from_step there */
    uint32_t from_step;
} it_run_options;

/* spec §8.3: the complete training state of step `step` in dir: the
 * checkpoint step-NNNNNN.bin (params) and, for an AdamW profile (m, v not
 * NULL), the moments adam-m-NNNNNN.bin and adam-v-NNNNNN.bin, each n
 * little-endian binary32 values. */
it_status it_state_write(const char *dir, uint32_t step, size_t n, const float *params, const float *m,
                         const float *v, char *err, size_t cap);
/* Reads them back; every file must hold exactly 4n bytes. */
it_status it_state_read(const char *dir, uint32_t step, size_t n, float *params, float *m, float *v, char *err,
                        size_t cap);
/* The files a run writes at `step` (§9.3, §8.3): the checkpoint when step is
 * a checkpoint or state step, the moments (when m, v are not NULL) at a state
 * step. */
it_status it_run_write_step(const it_run_options *o, uint32_t step, size_t n, const float *params, const float *m,
                            const float *v, char *err, size_t cap);

/* §14.4 and the AdamW state of step 0. */
void it_gptchar_start(const it_gptchar_recipe *r, it_gptchar_state *s);
/* One training step (§14.5-§14.7) with the §10 checks (a workspace of its
 * own: IT_ERR_IO when it cannot be allocated). */
it_status it_gptchar_step(const it_gptchar_recipe *r, it_gptchar_state *s);
/* §14.6 with every activation, gradient and scratch buffer allocated once,
 * up front (0.62 MB per sequence, 9.8 MB for a step's 16): a run allocates
 * one workspace and no step allocates. it_gptchar_loss_grad(_tap) allocate one per call (and
 * abort without it). One workspace serves batches of up to max_seqs
 * sequences, one call at a time; the same bits. work_new: NULL when out of
 * memory; loss_grad_work: IT_ERR_ARG when w is NULL or nseq > max_seqs,
 * else the mean loss in *loss. */
typedef struct it_gptchar_work it_gptchar_work;
it_gptchar_work *it_gptchar_work_new(size_t max_seqs);
void it_gptchar_work_free(it_gptchar_work *w);
/* How many threads the workspace's steps may use for independent outputs
 * (rows, output columns, sequences; 1 by default, 0 means 1): every count
 * gives the same bits (spec §4.1). */
void it_gptchar_work_threads(it_gptchar_work *w, unsigned threads);
it_status it_gptchar_loss_grad_work(it_gptchar_work *w, const float *params, const uint32_t *x, const uint32_t *y,
                                    size_t nseq, float *grads, it_gptchar_tap tap, void *ctx, float *loss);
/* it_gptchar_step on the caller's workspace (max_seqs >= IT_GC_SEQS). */
it_status it_gptchar_step_work(const it_gptchar_recipe *r, it_gptchar_state *s, it_gptchar_work *w);
/* Runs gptchar (§14.8), from step 0 or from a state (§8.4). */
it_status it_gptchar_run(const it_gptchar_recipe *r, const it_run_options *o, it_gptchar_state *s, char *err,
                         size_t cap);

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
