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

/* Runs the profile; on failure writes a message to err (cap bytes). */
it_status it_mlp13k_run(const it_mlp13k_recipe *r, const it_run_options *o,
                        it_mlp13k_state *s, char *err, size_t cap);

/* ---- host description (for `isotrain info`) ------------------------------ */

const char *it_host_isa(void);         /* e.g. "x86_64", "aarch64", "s390x" */
const char *it_host_endianness(void);  /* "little" or "big" */
/* Writes a space-separated list of relevant CPU features the process sees. */
void it_host_cpu_features(char *buf, size_t cap);
void it_host_cpu_model(char *buf, size_t cap);

#endif
