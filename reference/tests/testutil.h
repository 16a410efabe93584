/* Helpers shared by the reference's Criterion tests. */
#ifndef IT_TESTUTIL_H
#define IT_TESTUTIL_H

#include <criterion/criterion.h>

#include "isotrain.h"

#define F(bits) it_f32_from_bits(bits)
#define B(f) it_f32_bits(f)

/* Bitwise equality, the only equality this project knows. */
#define assert_bits(got, want_bits, ...)                                                  \
    cr_assert(B(got) == (uint32_t)(want_bits), "got 0x%08x, want 0x%08x " __VA_ARGS__,    \
              (unsigned)B(got), (unsigned)(want_bits))

/* testproc.c: for the tests that run the CLI as a process */
extern char test_tmpdir[64];
const char *test_env(const char *var); /* the variable's value, or the test fails */
void test_make_tmpdir(void);           /* .init: a fresh test_tmpdir */
void test_remove_tmpdir(void);         /* .fini: remove it */
char *test_slurp(const char *path, size_t *len); /* whole file, NUL-terminated; len may be NULL */

/* The numeric side of a gradient check: the central difference
 * (loss(p + h e_i) - loss(p - h e_i)) / 2h of a loss over double parameters,
 * p[i] restored after. ctx is the loss's batch. */
typedef double (*test_loss_fn)(const double *p, const void *ctx);
static inline double test_central_diff(double *p, size_t i, double h, test_loss_fn loss, const void *ctx)
{
    double saved = p[i];
    p[i] = saved + h;
    double up = loss(p, ctx);
    p[i] = saved - h;
    double down = loss(p, ctx);
    p[i] = saved;
    return (up - down) / (2 * h);
}

static inline int it_is_nan(float f) { return (B(f) & 0x7fffffffu) > 0x7f800000u; }

#endif
