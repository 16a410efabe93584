/* make_vectors: the golden vector sets of vectors/FORMAT.md, from the
 * reference library's bits. One file per op group or profile; this header is
 * what they share:
 *
 *   claims.c      die/require and the independent arithmetic that checks the
 *                 claims a case rests on (ties, fused results, other orders)
 *   emit.c        files, the manifest, groups, and the one case emitter: a
 *                 case is a list of named values checked against the op's
 *                 signature (opsig.c, iut-protocol P5)
 *   run_*.c       the reference runs whose real values the Typical/Model
 *                 cases use
 *   g_*.c         the op groups, one file per group family
 *   train_file.c  train/<profile>.json and its checkpoints (FORMAT.md §3)
 *   main.c        which sets, in which order
 *
 * A new profile adds a run_*.c, its g_*.c, its signatures and one call in
 * main.c. */
#ifndef MAKE_VECTORS_MV_H
#define MAKE_VECTORS_MV_H

#include <cjson/cJSON.h>
#include <float.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "isotrain.h"
#include "isotrain_profile.h"
#include "vectorset/set_docs.h"
#include "wire.h"

/* The claims are checked with binary32 arithmetic in C; excess precision
 * (x87) would make the checks lie. */
#if !defined(FLT_EVAL_METHOD) || FLT_EVAL_METHOD != 0
#error "make_vectors needs FLT_EVAL_METHOD == 0 (binary32 arithmetic in binary32; use SSE math)"
#endif

/* ---- failure and claims (claims.c) ---- */

#if defined(__GNUC__)
__attribute__((format(printf, 1, 2), noreturn))
#endif
void die(const char *fmt, ...);

/* A claim a vector rests on; false stops the generation with the reason. */
#define require(cond, ...)                                                                                  \
    do {                                                                                                    \
        if (!(cond)) {                                                                                      \
            fprintf(stderr, "make_vectors: claim failed at %s:%d: %s\n  ", __FILE__, __LINE__, #cond);      \
            fprintf(stderr, __VA_ARGS__);                                                                   \
            fputc('\n', stderr);                                                                            \
            exit(1);                                                                                        \
        }                                                                                                   \
    } while (0)

/* A comment built with printf formatting, valid until the 8th later call. */
#if defined(__GNUC__)
__attribute__((format(printf, 1, 2)))
#endif
const char *say(const char *fmt, ...);

float F(uint32_t bits);
uint32_t U(float f);
int is_nan(float f);
int is_inf(float f);
int is_subnormal(float f);
int same(float a, float b); /* same bits, or both NaN (iut-protocol P6) */
float next_up(float x);
float next_down(float x);
int is_tie(double exact);
double exact_sum(float a, float b);
float fused(float acc, float a, float b);
float sum_ascending(const float *t, size_t n);
float sum_descending(const float *t, size_t n);
float sum_pairwise(const float *t, size_t n);
uint32_t first_true(uint32_t lo, uint32_t hi, int (*pred)(uint32_t));
double now(void);

/* ---- output files (emit.c) ---- */

/* The version strings of the files being written: each file keeps the
 * version of the set that introduced it (FORMAT.md §1). */
extern const char *SPEC_VERSION, *VECTOR_VERSION, *GENERATOR;
extern const char *outdir;

void make_dir(const char *rel);
void emit(const char *rel, const void *data, size_t len);
/* the whole regular file dir/rel, malloc'd (dies naming the file otherwise) */
unsigned char *read_whole(const char *dir, const char *rel, size_t *len);
void emit_json(const char *rel, cJSON *root);
cJSON *checked(cJSON *item);
void add_str(cJSON *obj, const char *key, const char *s);
void add_num(cJSON *obj, const char *key, double v);
/* schema, spec_version, vector_version, [what_key: what], [spec_clause], generator
 * (FORMAT.md: the fields every file of a set starts with, in this order) */
cJSON *json_header(const char *schema, const char *what_key, const char *what, const char *clause);
/* Starts a new set in dir (the manifest restarts) and copies every file of
 * the set just written into it, byte for byte. */
void set_begin(const char *dir, const char *prev_dir, const char *const *subdirs);
void gen_manifest(void);
/* g_recipes.c: 1.3.0's recipes/<name>/, taken from the set recipe_set_dir */
extern const char *recipe_set_dir;
void recipe_set_preflight(void);
void gen_recipe_sets(void);
void print_group_counts(void);
size_t manifest_files(void);

/* ---- groups and cases (FORMAT.md §2) ---- */

enum {
    SPECIAL, SUBNORMAL, ORDER, FMA, TIE, OVERFLOW, UNDERFLOW, NAN_, EDGE, TYPICAL, QUICK, CHUNK, EXHAUSTIVE, MODEL,
    REAL, N_FLAGS
};
#define FL(x) (1u << (x))

typedef struct {
    const char *name, *clause;
    cJSON *tests;
    unsigned used;
    int n;
} group;

void group_begin(group *g, const char *name, const char *clause);
void group_end(group *g);

/* One named value of a case, in the P4 encoding of its kind. */
typedef enum { K_END, K_F32, K_U32, K_INTS, K_BYTES, K_INT, K_U64, K_NAME, K_HEX } val_kind;
typedef struct {
    unsigned char out;  /* 0: an input, 1: an output */
    unsigned char kind; /* val_kind */
    const char *key;
    const void *p;      /* the array, or the string of K_NAME / K_HEX */
    size_t n;           /* elements of the array */
    uint64_t v;         /* K_INT, K_U64 */
} val;

#define IN_F32(k, a, len) {0, K_F32, (k), (a), (len), 0}
#define OUT_F32(k, a, len) {1, K_F32, (k), (a), (len), 0}
#define IN_F1(k, x) {0, K_F32, (k), (const float[]){(x)}, 1, 0}
#define OUT_F1(k, x) {1, K_F32, (k), (const float[]){(x)}, 1, 0}
#define IN_U32(k, a, len) {0, K_U32, (k), (a), (len), 0}
#define OUT_U32(k, a, len) {1, K_U32, (k), (a), (len), 0}
#define IN_INTS(k, a, len) {0, K_INTS, (k), (a), (len), 0}
#define OUT_INTS(k, a, len) {1, K_INTS, (k), (a), (len), 0}
#define IN_BYTES(k, a, len) {0, K_BYTES, (k), (a), (len), 0}
#define OUT_BYTES(k, a, len) {1, K_BYTES, (k), (a), (len), 0}
#define IN_INT(k, x) {0, K_INT, (k), NULL, 0, (x)}
#define IN_U64(k, x) {0, K_U64, (k), NULL, 0, (x)}
#define IN_NAME(k, s) {0, K_NAME, (k), (s), 0, 0}
#define OUT_HEX(k, s) {1, K_HEX, (k), (s), 0, 0}
#define VALS(...) ((const val[]){__VA_ARGS__, {0, K_END, NULL, NULL, 0, 0}})

/* Appends one case to g: comment `why` (non-empty), the flags, and the
 * values, which must be the op's inputs and outputs in the order of its
 * signature (opsig.c). Flags for NaN, infinite and subnormal values are
 * added from the values themselves, so a NaN output is always marked. */
void op_case(group *g, const char *op, unsigned flags, const val *vals, const char *why);

/* The keys and kinds of an op's inputs and outputs (iut-protocol P5), e.g.
 * "a:f32 b:f32"; NULL for an op the table does not know. */
const char *op_signature(const char *op, int output);

/* ---- train files (train_file.c, FORMAT.md §3) ---- */

/* train_file is vectorset/set_docs.h's: one builder for the generator and the
 * runner's recipe sets. */
void emit_train_file(const train_file *tf, const char *clause);

/* ---- the mlp13k run (run_mlp13k.c) ---- */

enum { V = IT_MLP13K_VOCAB, D = IT_MLP13K_EMBED, H = IT_MLP13K_HIDDEN, NP = IT_MLP13K_NPARAMS, B = IT_MLP13K_BATCH };
enum { STEPS = IT_MLP13K_STEPS };

extern it_mlp13k_recipe recipe;
extern float hist[STEPS + 1][NP]; /* parameters after t updates */
extern uint32_t loss_bits[STEPS + 1];
extern char digests[STEPS + 1][65];
extern unsigned char batch_x[STEPS + 2][B], batch_y[STEPS + 2][B];

/* One position of spec 11.6 with every intermediate. */
typedef struct {
    float e[D], z1[H], h[H], z2[V], probs[V], m, S, loss;
    float dz2[V], dh[H], dz1[H], de[D];
} position;

extern position pos_init[B], pos_100[B], pos_200[B];
extern float grads_init[NP], grads_100[NP];

const float *T_E(const float *p);
const float *T_W1(const float *p);
const float *T_B1(const float *p);
const float *T_W2(const float *p);
const float *T_B2(const float *p);

void train(void);
void rebuild_states(void);
float run_positions(const float *params, const unsigned char *xs, const unsigned char *ys, size_t m, size_t upto,
                    float *grads, position *pos);
float rebuild_loss_grad(const float *params, const unsigned char *xs, const unsigned char *ys, size_t m,
                        position *pos, float *grads);

/* Order-sensitive terms shared by several groups: [1e8, 1, -1e8, 1]
 * ascending gives 1, reversed or pairwise 0. */
extern const float T4[4], ONES[8];
/* The (1 + 2^-12)^2 family: RN((1+2^-12)^2) = 1 + 2^-11 (a tie, to even),
 * so -(1 + 2^-11) + that is +0 while a fused a*b + acc keeps 2^-24. */
#define ONE_P12 0x3f800800u /* 1 + 2^-12 */
#define ONE_P11 0x3f801000u /* 1 + 2^-11 */

/* ---- sweeps (g_sweep.c) ---- */

extern int full_sweeps;
void sweeps_start(void);
void sweeps_join(void);
void sweeps_report(void);

/* ---- the groups ---- */

void gen_exp(void);
void gen_log(void);
void gen_tanh(void);
void gen_dot(void);
void gen_linear(void);
void gen_softmax_xent(void);
void gen_tanh_backward(void);
void gen_embedding(void);
void gen_sgd(void);
void gen_philox(void);
void gen_rng(void);
void gen_init(void);
void gen_batch(void);
void gen_loss_grad(void);
void gen_train(void);
void gen_sweep(void);

/* vector set 1.1.0: profile addmod113 (g_addmod113.c) */
void gen_addmod113(void);
/* its golden states for the windows of set 1.2.0: params, m, v after the
 * steps of the table's resumed windows (profiles.c), and the run's digests */
enum { AM_WINDOWS = 2 };
extern float am_window_state[AM_WINDOWS][3][IT_AM_NPARAMS];
const char *am_trace_digest(uint32_t step);
extern char am_digest[][65];

/* ---- vector set 1.2.0: profile gptchar (run_gptchar.c, g_gptchar.c) ---- */

void gc_train(void);
void gen_gptchar(void);
/* windows/<profile>.json and its state files (FORMAT.md §6); window_desc is
 * vectorset/set_docs.h's */
void emit_windows(const char *profile, size_t n_params, int adamw, const window_desc *w, size_t n,
                  char (*digests)[65]);

#endif
