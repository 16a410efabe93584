/* fresh.h — fresh cases: drawn from a run seed, never published, their
 * expected outputs computed by the reference linked into the runner (as NIST
 * ACVP generates vectors per session), so no fixed answer list can pass.
 * conformance/README.md "Fresh cases" says what each group draws. */
#ifndef CONFORM_FRESH_H
#define CONFORM_FRESH_H

#include <stddef.h>
#include <stdint.h>

#include "core/util.h"
#include "protocol/optable.h"
#include "protocol/line_codec.h"

/* The fresh-seed training runs (levels/level_fresh.c) are as long as the
 * profile's row says (fresh_steps, reference/src/profiles.c): mlp13k's 20
 * steps, addmod113's 3 (about 0.08 s each natively: they exercise init,
 * sampling and the update), gptchar's 53: past its 50 warm-up steps (spec
 * §14.1) into the decay, whose rate depends on the schedule length S = 500
 * (§7.4), and of another length than 500, so a trainer that takes S from
 * --steps N fails a full certification (mutant schedule-run-steps; issue 27
 * item 7); about 5 s natively. verify refuses a receipt that claims more (a
 * claimed 10,000-step run is not recomputed); it sizes its memo with this
 * constant, which tests/test_units.c holds equal to mlp13k's row. */
#define FRESH_MLP13K_STEPS 20

/* Every op group with fresh cases gets at least this many per run, spread
 * over its flag classes (conformance/README.md "Fresh cases"): four cases
 * of a group let a real mutant through that only the golden vectors caught
 * (issue 16 §10); make check-mutants-fresh shows every op mutant of
 * spec/mutants.md killed by the fresh cases alone. */
#define FRESH_MIN_PER_GROUP 16

/* The run seed: 8 bytes of /dev/urandom (falls back to time and pid only if
 * that device cannot be read, and says so on stderr). */
uint64_t fresh_draw_seed(void);

/* A deterministic stream of words from the run seed, through the Philox
 * generator of spec §6.2 in the linked reference: the same seed, the same
 * cases, on every host. */
typedef struct {
    uint64_t seed;
    uint32_t stream;
    uint64_t index;
} fresh_rng;

void fresh_rng_init(fresh_rng *r, uint64_t run_seed, const char *group);
uint32_t fresh_u32(fresh_rng *r);
uint32_t fresh_below(fresh_rng *r, uint32_t n); /* 0..n-1 */

/* Binary32 inputs by class, as the vector files' flags name them. */
typedef enum {
    FC_TYPICAL,   /* |x| < 4 */
    FC_WIDE,      /* any finite exponent */
    FC_SUBNORMAL, /* exponent field 0, non-zero fraction */
    FC_ZERO,      /* +0 or -0 */
    FC_SPECIAL,   /* +-inf, NaN */
    FC_TINY       /* normal, |x| < 2^-100: products underflow */
} fresh_class;

float fresh_f32(fresh_rng *r, fresh_class c);
/* Bits within +-spread ULP of a centre (an edge: overflow, underflow, 1). */
float fresh_near(fresh_rng *r, uint32_t centre_bits, uint32_t spread);

/* One fresh case: the request's key=value text and the expected outputs. */
typedef struct {
    char id[96];
    const op_def *op;
    char *kv;
    value want[4];
    const char *what; /* the class it draws from, for the report */
} fresh_case;

typedef struct {
    fresh_case *c;
    size_t n, cap;
} fresh_list;

void fresh_list_free(fresh_list *l);
/* Adds a case for `op` with the request text in kv (taken); returns its
 * expected outputs to fill. */
value *fresh_add(fresh_list *l, const char *group, const char *op, const char *what, char *kv);
void fresh_want_f32(value *v, const float *x, size_t n);
/* The two cases of a pointwise activation `group` (relu §5.9, gelu §5.14):
 * <group>_forward x -> y and <group>_backward (x, dy) -> dx, n elements,
 * each described by its `what`. */
void fresh_add_pointwise(fresh_list *l, const char *group, const char *what_fwd, const char *what_bwd, const float *x,
                         const float *y, const float *dy, const float *dx, size_t n);
void fresh_want_u32(value *v, const uint32_t *x, size_t n);
void fresh_want_sha256(value *v, const char *hex);
void fresh_kv_f32(sbuf *b, const char *key, const float *x, size_t n);
void fresh_kv_u32(sbuf *b, const char *key, const uint32_t *x, size_t n);
/* key=a,b,c in decimal (token lists: P4 ints) */
void fresh_kv_dec(sbuf *b, const char *key, const uint32_t *x, size_t n);

/* Generates the fresh cases of an op group of the vector set. Returns the
 * number added; 0 with *why set when the group takes no fresh inputs. */
size_t fresh_ops_generate(fresh_list *l, const char *group, uint64_t run_seed, const char **why);

/* Per-group generators (gen_*.c). */
size_t fresh_gen_math(fresh_list *l, const char *group, fresh_rng *r);   /* exp, log, tanh, sweep */
size_t fresh_gen_linalg(fresh_list *l, const char *group, fresh_rng *r); /* dot, linear, tanh_backward, sgd, embedding */
size_t fresh_gen_loss(fresh_list *l, const char *group, fresh_rng *r);   /* softmax_xent, loss_grad */
size_t fresh_gen_rng(fresh_list *l, const char *group, fresh_rng *r);    /* philox, rng */
size_t fresh_gen_addmod(fresh_list *l, const char *group, fresh_rng *r); /* sqrt, relu, attention, adamw, addmod113 */
/* residual, layernorm, gelu, causal_attention, tied, clip, schedule, gptchar (spec 1.2.0) */
size_t fresh_gen_gptchar(fresh_list *l, const char *group, fresh_rng *r);

#endif
