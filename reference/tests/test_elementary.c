/* spec §3: the special cases of exp, log and tanh. The correct rounding of
 * every other input is proven exhaustively by `make prove-math`. */
#include "testutil.h"

#define PZERO 0x00000000u
#define NZERO 0x80000000u
#define PINF 0x7f800000u
#define NINF 0xff800000u
#define ONE 0x3f800000u
#define QNAN 0x7fc00000u
#define SNAN 0x7f800001u
#define NEG_QNAN 0xffc00000u

Test(exp, special_values) /* §3.2 */
{
    assert_bits(it_expf(F(PZERO)), ONE);
    assert_bits(it_expf(F(NZERO)), ONE);
    assert_bits(it_expf(F(PINF)), PINF);
    assert_bits(it_expf(F(NINF)), PZERO);
    cr_assert(it_is_nan(it_expf(F(QNAN))));
    cr_assert(it_is_nan(it_expf(F(SNAN))));
    cr_assert(it_is_nan(it_expf(F(NEG_QNAN))));
}

Test(exp, subnormal_arguments_round_to_one) /* §3.2: e^x = 1 + x + ..., |x| tiny */
{
    assert_bits(it_expf(F(0x00000001u)), ONE);
    assert_bits(it_expf(F(0x80000001u)), ONE);
    assert_bits(it_expf(F(0x007fffffu)), ONE);
}

Test(exp, familiar_values) /* §3.2 */
{
    assert_bits(it_expf(1.0f), 0x402df854u, "(e)");
    assert_bits(it_expf(F(0x3f317218u)), 0x40000000u, "(e^RN(ln 2) rounds to 2)");
}

Test(exp, results_are_never_negative_and_monotone)
{
    float prev = 0.0f;
    for (uint32_t u = 0xc2d00000u; u > 0x80000000u; u -= 0x1003u) { /* -104 up to -0 */
        float y = it_expf(F(u));
        cr_assert(y >= prev, "exp not monotone at 0x%08x", u);
        prev = y;
    }
    for (uint32_t u = 0; u < 0x42b20000u; u += 0x1003u) {
        float y = it_expf(F(u));
        cr_assert(y >= prev, "exp not monotone at 0x%08x", u);
        prev = y;
    }
}

Test(log, special_values) /* §3.3 */
{
    assert_bits(it_logf(F(PZERO)), NINF);
    assert_bits(it_logf(F(NZERO)), NINF);
    assert_bits(it_logf(F(PINF)), PINF);
    assert_bits(it_logf(F(ONE)), PZERO, "(log 1 is +0)");
    cr_assert(it_is_nan(it_logf(F(NINF))));
    cr_assert(it_is_nan(it_logf(-1.0f)));
    cr_assert(it_is_nan(it_logf(F(0x80000001u))), "(negative subnormal)");
    cr_assert(it_is_nan(it_logf(F(QNAN))));
    cr_assert(it_is_nan(it_logf(F(SNAN))));
}

Test(log, familiar_values_and_subnormal_inputs) /* §3.3 */
{
    assert_bits(it_logf(2.0f), 0x3f317218u, "(ln 2)");
    /* RN(e) is 8.3e-8 below e, so its log is 1 - 3.04e-8: just past the
     * midpoint 1 - 2^-25 below 1, it rounds down */
    assert_bits(it_logf(F(0x402df854u)), 0x3f7fffffu, "(log RN(e))");
    /* ln(2^-149) = -149 ln 2 = -103.2789...; ln(2^-126) = -87.3365... */
    cr_assert(it_logf(F(0x00000001u)) < -103.27f && it_logf(F(0x00000001u)) > -103.29f);
    cr_assert(it_logf(F(0x00800000u)) < -87.33f && it_logf(F(0x00800000u)) > -87.34f);
    /* exact powers of two: log(2^k) = RN(k ln 2), consistent across the
     * subnormal/normal boundary */
    float prev = it_logf(F(0x00000001u));
    for (uint32_t u = 2; u < 0x7f800000u; u = u < 0x00800000u ? u * 2 : u + 0x00800000u) {
        float y = it_logf(F(u));
        cr_assert(y > prev, "log not increasing at 0x%08x", u);
        prev = y;
    }
}

Test(tanh, special_values) /* §3.4 */
{
    assert_bits(it_tanhf(F(PZERO)), PZERO);
    assert_bits(it_tanhf(F(NZERO)), NZERO);
    assert_bits(it_tanhf(F(PINF)), ONE);
    assert_bits(it_tanhf(F(NINF)), 0xbf800000u);
    cr_assert(it_is_nan(it_tanhf(F(QNAN))));
    cr_assert(it_is_nan(it_tanhf(F(SNAN))));
    assert_bits(it_tanhf(20.0f), ONE, "(1 - e^-40 rounds to 1)");
}

Test(tanh, below_two_to_minus_12_returns_x) /* §3.4 */
{
    const uint32_t xs[] = {0x00000001u, 0x80000001u, 0x00400000u, 0x39000000u, 0x397fffffu};
    for (size_t i = 0; i < sizeof xs / sizeof xs[0]; i++)
        assert_bits(it_tanhf(F(xs[i])), xs[i], "(tanh of 0x%08x)", xs[i]);
    /* at 2^-12 the exp formula takes over */
    float at = it_tanhf(F(0x39800000u));
    float e = it_expf(-(F(0x39800000u) + F(0x39800000u)));
    assert_bits(at, B((1.0f - e) / (1.0f + e)));
}

Test(tanh, is_odd_bounded_and_monotone) /* §3.4 */
{
    float prev = 0.0f;
    for (uint32_t u = 0x39800000u; u < 0x41400000u; u += 0x101u) { /* 2^-12 .. 12 */
        float y = it_tanhf(F(u));
        assert_bits(it_tanhf(F(u | 0x80000000u)), B(y) | 0x80000000u, "(odd at 0x%08x)", u);
        cr_assert(y >= prev && y <= 1.0f, "at 0x%08x", u);
        prev = y;
    }
}
