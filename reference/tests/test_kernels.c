/* The kernel sets (reference/src/kernels, spec §2.4, §4.1): every set this
 * CPU runs gives the portable set's bits, for exp/log/tanh over arrays
 * (special inputs, in place) and for the mlp13k loss and gradient at batch
 * sizes that leave vector tails; a set of another ISA is refused. */
#include <string.h>

#include "kernels/kernels.h"
#include "testutil.h"

static uint32_t lcg(uint32_t *s)
{
    *s = *s * 1664525u + 1013904223u;
    return *s;
}

static size_t sets(const char **names)
{
    return it_kernels_available(names, 16);
}

Test(kernels, exp_log_tanh_arrays_equal_the_scalar_functions_on_every_set)
{
    enum { N = 4099 }; /* not a multiple of any vector block */
    static float x[N], y[N], z[N];
    uint32_t s = 12345;
    for (int i = 0; i < N; i++)
        x[i] = it_f32_from_bits(lcg(&s));
    /* specials and boundaries among them */
    const uint32_t special[] = {0x00000000u, 0x80000000u, 0x7f800000u, 0xff800000u, 0x7fc00000u, 0x3f800000u,
                                0x42b17217u, 0x42b17218u, 0xc2aeac50u, 0xc2cff1b4u, 0xc2cff1b5u, 0x00000001u,
                                0x007fffffu, 0xbf81eadfu, 0x4283070fu, 0x41178febu, 0x3c413d3au};
    for (size_t k = 0; k < sizeof special / sizeof special[0]; k++)
        x[7 * k + 3] = it_f32_from_bits(special[k]);
    const char *names[16];
    size_t n = sets(names);
    for (size_t k = 0; k < n; k++) {
        cr_assert_eq(it_kernels_select(names[k]), 0);
        for (int fn = 0; fn < 3; fn++) {
            memcpy(z, x, sizeof z);
            void (*arr)(const float *, float *, size_t) = fn == 0 ? it_expf_array : fn == 1 ? it_logf_array
                                                                                              : it_tanhf_array;
            float (*one)(float) = fn == 0 ? it_expf : fn == 1 ? it_logf : it_tanhf;
            arr(x, y, N);
            arr(z, z, N); /* in place */
            for (int i = 0; i < N; i++) {
                uint32_t want = it_f32_bits(one(x[i]));
                uint32_t got = it_f32_bits(y[i]), got2 = it_f32_bits(z[i]);
                int nan = (want & 0x7fffffffu) > 0x7f800000u;
                cr_assert(nan ? (got & 0x7fffffffu) > 0x7f800000u : got == want,
                          "set %s fn %d x=%08x: %08x, scalar %08x", names[k], fn, it_f32_bits(x[i]), got, want);
                cr_assert(nan ? (got2 & 0x7fffffffu) > 0x7f800000u : got2 == want, "set %s fn %d in place",
                          names[k], fn);
            }
        }
    }
    it_kernels_select(NULL);
}

Test(kernels, loss_and_gradient_equal_the_portable_loop_on_every_set)
{
    static float params[IT_MLP13K_NPARAMS], want[IT_MLP13K_NPARAMS], got[IT_MLP13K_NPARAMS];
    it_mlp13k_recipe r = it_mlp13k_default_recipe();
    it_mlp13k_init(&r, params);
    unsigned char xs[150], ys[150];
    uint32_t s = 777;
    for (int i = 0; i < 150; i++) {
        xs[i] = (unsigned char)(lcg(&s) >> 24);
        ys[i] = (unsigned char)(lcg(&s) >> 24);
    }
    const size_t batches[] = {1, 3, 17, 64, 65, 150};
    const char *names[16];
    size_t n = sets(names);
    for (size_t b = 0; b < sizeof batches / sizeof batches[0]; b++) {
        float lw = it_mlp13k_loss_grad_portable(params, xs, ys, batches[b], want);
        for (size_t k = 0; k < n; k++) {
            cr_assert_eq(it_kernels_select(names[k]), 0);
            float lg = it_mlp13k_loss_grad(params, xs, ys, batches[b], got);
            cr_assert_eq(it_f32_bits(lg), it_f32_bits(lw), "set %s batch %zu: loss", names[k], batches[b]);
            cr_assert(memcmp(got, want, sizeof got) == 0, "set %s batch %zu: gradient bytes differ", names[k],
                      batches[b]);
        }
    }
    it_kernels_select(NULL);
}

Test(kernels, unknown_and_foreign_sets_are_refused)
{
    cr_assert_eq(it_kernels_select("no-such-set"), -1);
#if defined(__x86_64__)
    cr_assert_eq(it_kernels_select("neon"), -2);
#else
    cr_assert_eq(it_kernels_select("avx2"), -2);
#endif
    cr_assert_eq(it_kernels_select("portable"), 0);
    cr_assert_str_eq(it_kernels_name(), "portable");
    it_kernels_select(NULL);
}
