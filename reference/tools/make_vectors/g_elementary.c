/* Groups exp (spec 3.2), log (3.3) and tanh (3.4): special values, the
 * thresholds found by bisection with the reference's own functions, and the
 * arguments a real mlp13k step hands them. */
#include <string.h>

#include "mv.h"

/* predicates over bit patterns; "neg" ones take the magnitude of a negative x */
static int exp_is_inf(uint32_t b) { return is_inf(it_expf(F(b))); }
static int exp_pos_not_one(uint32_t b) { return U(it_expf(F(b))) != 0x3f800000u; }
static int exp_neg_not_one(uint32_t m) { return U(it_expf(F(m | 0x80000000u))) != 0x3f800000u; }
static int exp_neg_subnormal(uint32_t m) { return U(it_expf(F(m | 0x80000000u))) < 0x00800000u; }
static int exp_neg_zero(uint32_t m) { return U(it_expf(F(m | 0x80000000u))) == 0; }
static int tanh_is_one(uint32_t b) { return U(it_tanhf(F(b))) == 0x3f800000u; }
/* ---- group: exp (spec 3.2) ------------------------------------------------------------------ */

/* One elementwise case (exp, log, tanh); returns y[0]. */
static float unary(group *g, const char *op, float (*f)(float), const float *x, size_t n, unsigned flags,
                   const char *why)
{
    float *y = malloc(n * sizeof *y);
    if (!y)
        die("out of memory");
    for (size_t i = 0; i < n; i++)
        y[i] = f(x[i]);
    op_case(g, op, flags, VALS(IN_F32("x", x, n), OUT_F32("y", y, n)), why);
    float y0 = y[0];
    free(y);
    return y0;
}

static float unary1(group *g, const char *op, float (*f)(float), uint32_t xbits, unsigned flags, const char *why)
{
    float x = F(xbits);
    return unary(g, op, f, &x, 1, flags, why);
}

/* The 256 arguments spec 5.4 hands to exp for one real position: z[k] - max. */
static void softmax_args(const position *P, float *out)
{
    for (int k = 0; k < V; k++)
        out[k] = P->z2[k] - P->m;
}

/* exp's cases below 1: gradual underflow, then +0, then the arguments softmax passes it (spec 3.2) */
static void exp_low_cases(group *g)
{
    float y, args[V];
    uint32_t sub = first_true(0x3f800000u, 0x7f7fffffu, exp_neg_subnormal);
    y = unary1(g, "exp", it_expf, (sub - 1) | 0x80000000u, FL(EDGE),
               "the most negative x whose exp is still normal (found by bisection)");
    require(U(y) >= 0x00800000u, "exp(-%08x)", (unsigned)(sub - 1));
    y = unary1(g, "exp", it_expf, sub | 0x80000000u, FL(EDGE) | FL(UNDERFLOW),
               "the largest x whose exp is subnormal: gradual underflow starts here");
    require(is_subnormal(y), "exp(-%08x) = %08x", (unsigned)sub, (unsigned)U(y));
    const float deep[3] = {-90.0f, -100.0f, -103.0f};
    for (int i = 0; i < 3; i++) {
        y = unary(g, "exp", it_expf, &deep[i], 1, FL(UNDERFLOW), say("exp(%g) is subnormal: an FTZ build returns 0",
                  (double)deep[i]));
        require(is_subnormal(y), "exp(%g)", (double)deep[i]);
    }
    uint32_t zero = first_true(0x3f800000u, 0x7f7fffffu, exp_neg_zero);
    y = unary1(g, "exp", it_expf, (zero - 1) | 0x80000000u, FL(EDGE) | FL(UNDERFLOW),
               "the most negative x whose exp is not 0: the result is the smallest subnormal 2^-149");
    require(U(y) == 1, "exp(-%08x) = %08x", (unsigned)(zero - 1), (unsigned)U(y));
    y = unary1(g, "exp", it_expf, zero | 0x80000000u, FL(EDGE) | FL(UNDERFLOW),
               "the largest x whose exp underflows to +0 (below half of 2^-149)");
    require(U(y) == 0, "exp(-%08x) = %08x", (unsigned)zero, (unsigned)U(y));
    unary1(g, "exp", it_expf, 0xc2d00000u, FL(UNDERFLOW), "exp(-104) underflows to +0");
    unary1(g, "exp", it_expf, 0xff7fffffu, FL(UNDERFLOW), "exp of the most negative finite binary32 is +0");

    softmax_args(&pos_init[0], args);
    unary(g, "exp", it_expf, args, V, FL(TYPICAL),
          "the 256 arguments z[k] - max softmax passes to exp: step 1, position 0, initial parameters");
    softmax_args(&pos_100[0], args);
    unary(g, "exp", it_expf, args, V, FL(TYPICAL),
          "the 256 arguments z[k] - max softmax passes to exp: step 101, position 0, parameters after 100 steps");
    softmax_args(&pos_200[7], args);
    unary(g, "exp", it_expf, args, V, FL(TYPICAL),
          "the 256 arguments z[k] - max softmax passes to exp: step 200, position 7, parameters after 199 steps");
}

void gen_exp(void)
{
    group g;
    group_begin(&g, "exp", "3.2");
    float y;

    y = unary1(&g, "exp", it_expf, 0x00000000u, FL(SPECIAL), "exp(+0) is exactly 1");
    require(U(y) == 0x3f800000u, "exp(+0) = %08x", (unsigned)U(y));
    y = unary1(&g, "exp", it_expf, 0x80000000u, FL(SPECIAL), "exp(-0) is exactly 1");
    require(U(y) == 0x3f800000u, "exp(-0) = %08x", (unsigned)U(y));
    y = unary1(&g, "exp", it_expf, 0x7f800000u, FL(SPECIAL), "exp(+inf) = +inf");
    require(U(y) == 0x7f800000u, "exp(+inf)");
    y = unary1(&g, "exp", it_expf, 0xff800000u, FL(SPECIAL), "exp(-inf) = +0");
    require(U(y) == 0, "exp(-inf) = %08x", (unsigned)U(y));
    y = unary1(&g, "exp", it_expf, 0x7fc00000u, 0, "exp of a quiet NaN is NaN (compared by class)");
    require(is_nan(y), "exp(NaN)");
    y = unary1(&g, "exp", it_expf, 0x7f800001u, 0, "exp of a signalling NaN is NaN (compared by class)");
    require(is_nan(y), "exp(sNaN)");
    y = unary1(&g, "exp", it_expf, 0xffc00000u, 0, "exp of a negative NaN is NaN (compared by class)");
    require(is_nan(y), "exp(-NaN)");
    y = unary1(&g, "exp", it_expf, 0x00000001u, 0, "exp of the smallest subnormal, 2^-149, rounds to 1");
    require(U(y) == 0x3f800000u, "exp(2^-149)");
    y = unary1(&g, "exp", it_expf, 0x80000001u, 0, "exp(-2^-149) = 1 - 2^-149 rounds to 1");
    require(U(y) == 0x3f800000u, "exp(-2^-149)");

    uint32_t p1 = first_true(0, 0x3f800000u, exp_pos_not_one);
    y = unary1(&g, "exp", it_expf, p1 - 1, FL(EDGE), "the largest x whose exp rounds down to 1 (positive side)");
    require(U(y) == 0x3f800000u, "exp(%08x)", (unsigned)(p1 - 1));
    y = unary1(&g, "exp", it_expf, p1, FL(EDGE), "the smallest positive x whose exp rounds up to 1 + 2^-23");
    require(U(y) == 0x3f800001u, "exp(%08x) = %08x", (unsigned)p1, (unsigned)U(y));
    uint32_t n1 = first_true(0, 0x3f800000u, exp_neg_not_one);
    y = unary1(&g, "exp", it_expf, (n1 - 1) | 0x80000000u, FL(EDGE),
               "the negative x of largest magnitude whose exp still rounds to 1");
    require(U(y) == 0x3f800000u, "exp(-%08x)", (unsigned)(n1 - 1));
    y = unary1(&g, "exp", it_expf, n1 | 0x80000000u, FL(EDGE),
               "the negative x of smallest magnitude whose exp rounds to 1 - 2^-24");
    require(U(y) == 0x3f7fffffu, "exp(-%08x) = %08x", (unsigned)n1, (unsigned)U(y));

    y = unary1(&g, "exp", it_expf, 0x3f800000u, 0, "exp(1) is e rounded to nearest: 0x402df854");
    require(U(y) == 0x402df854u, "exp(1) = %08x", (unsigned)U(y));
    unary1(&g, "exp", it_expf, 0xbf800000u, 0, "exp(-1) = 1/e rounded once (not 1/RN(e))");
    unary1(&g, "exp", it_expf, 0x3f317218u, 0, "exp at RN(ln 2): a result just above 2");
    unary1(&g, "exp", it_expf, 0x3f000000u, 0, "exp(0.5)");
    unary1(&g, "exp", it_expf, 0x41200000u, 0, "exp(10)");
    unary1(&g, "exp", it_expf, 0xc1200000u, 0, "exp(-10), the kind of argument softmax produces");
    unary1(&g, "exp", it_expf, 0xc1858000u, 0, "exp(-16.6875): near 2^-24, the size where a softmax term stops "
                                                  "changing a sum of 1");

    uint32_t ovf = first_true(0x42000000u, 0x7f7fffffu, exp_is_inf);
    y = unary1(&g, "exp", it_expf, ovf - 1, FL(EDGE), "the largest x with a finite exp (overflow threshold, found "
                                                        "by bisection with the reference)");
    require(!is_inf(y) && U(y) >= 0x7f000000u, "exp(%08x) = %08x", (unsigned)(ovf - 1), (unsigned)U(y));
    y = unary1(&g, "exp", it_expf, ovf, FL(EDGE) | FL(OVERFLOW), "the smallest x whose exp overflows to +inf");
    require(U(y) == 0x7f800000u, "exp(%08x)", (unsigned)ovf);
    unary1(&g, "exp", it_expf, 0x42b20000u, FL(OVERFLOW), "exp(89) overflows to +inf");
    unary1(&g, "exp", it_expf, 0x7f7fffffu, FL(OVERFLOW), "exp of the largest finite binary32 overflows to +inf");

    exp_low_cases(&g);
    group_end(&g);
}

/* ---- group: log (spec 3.3) ------------------------------------------------------------------- */

void gen_log(void)
{
    group g;
    group_begin(&g, "log", "3.3");
    float y, sums[B];

    y = unary1(&g, "log", it_logf, 0x00000000u, FL(SPECIAL), "log(+0) = -inf");
    require(U(y) == 0xff800000u, "log(+0) = %08x", (unsigned)U(y));
    y = unary1(&g, "log", it_logf, 0x80000000u, FL(SPECIAL), "log(-0) = -inf (not NaN: -0 is a zero)");
    require(U(y) == 0xff800000u, "log(-0) = %08x", (unsigned)U(y));
    y = unary1(&g, "log", it_logf, 0x3f800000u, FL(SPECIAL), "log(1) = +0 exactly (not -0)");
    require(U(y) == 0, "log(1) = %08x", (unsigned)U(y));
    y = unary1(&g, "log", it_logf, 0x7f800000u, FL(SPECIAL), "log(+inf) = +inf");
    require(U(y) == 0x7f800000u, "log(+inf)");
    y = unary1(&g, "log", it_logf, 0xff800000u, 0, "log(-inf) is NaN");
    require(is_nan(y), "log(-inf)");
    y = unary1(&g, "log", it_logf, 0xbf800000u, 0, "log(-1) is NaN");
    require(is_nan(y), "log(-1)");
    y = unary1(&g, "log", it_logf, 0x80000001u, 0, "log of the negative subnormal -2^-149 is NaN");
    require(is_nan(y), "log(-2^-149)");
    y = unary1(&g, "log", it_logf, 0x7fc00000u, 0, "log of a quiet NaN is NaN (compared by class)");
    require(is_nan(y), "log(NaN)");
    y = unary1(&g, "log", it_logf, 0x7f800001u, 0, "log of a signalling NaN is NaN (compared by class)");
    require(is_nan(y), "log(sNaN)");

    unary1(&g, "log", it_logf, 0x00000001u, FL(EDGE), "log of the smallest subnormal, 2^-149: the most negative "
                                                        "finite log");
    unary1(&g, "log", it_logf, 0x00000003u, 0, "log(3 * 2^-149), a subnormal with an odd significand");
    unary1(&g, "log", it_logf, 0x007fffffu, FL(EDGE), "log of the largest subnormal");
    unary1(&g, "log", it_logf, 0x00800000u, FL(EDGE), "log of the smallest normal, 2^-126");
    unary1(&g, "log", it_logf, 0x7f7fffffu, FL(EDGE), "log of the largest finite binary32: the largest log");
    unary1(&g, "log", it_logf, 0x3f7fffffu, FL(EDGE), "log(1 - 2^-24), just below 1: the result is about -2^-24, "
                                                        "where a formula through 1 + x loses every bit");
    unary1(&g, "log", it_logf, 0x3f800001u, FL(EDGE), "log(1 + 2^-23), just above 1: the result is about 2^-23");
    unary1(&g, "log", it_logf, 0x3f7ff000u, 0, "log(1 - 2^-12)");
    unary1(&g, "log", it_logf, 0x3f801000u, 0, "log(1 + 2^-11)");
    y = unary1(&g, "log", it_logf, 0x40000000u, 0, "log(2) is ln 2 rounded to nearest: 0x3f317218");
    require(U(y) == 0x3f317218u, "log(2) = %08x", (unsigned)U(y));
    unary1(&g, "log", it_logf, 0x3f000000u, 0, "log(0.5) = -RN(ln 2)");
    unary1(&g, "log", it_logf, 0x402df854u, 0, "log(RN(e)): close to, but not necessarily, 1");
    unary1(&g, "log", it_logf, 0x41200000u, 0, "log(10)");
    unary1(&g, "log", it_logf, 0x43800000u, 0, "log(256): the loss of a uniform softmax over 256 bytes");
    unary1(&g, "log", it_logf, 0x3f8ccccdu, 0, "log(RN(1.1))");

    for (int p = 0; p < B; p++)
        sums[p] = pos_init[p].S;
    unary(&g, "log", it_logf, sums, B, FL(TYPICAL),
          "the 64 softmax denominators S of step 1 (initial parameters), positions 0..63");
    for (int p = 0; p < B; p++)
        sums[p] = pos_100[p].S;
    unary(&g, "log", it_logf, sums, B, FL(TYPICAL),
          "the 64 softmax denominators S of step 101 (parameters after 100 steps), positions 0..63");
    group_end(&g);
}

/* ---- group: tanh (spec 3.4) ------------------------------------------------------------------ */

void gen_tanh(void)
{
    group g;
    group_begin(&g, "tanh", "3.4");
    float y, z[4 * H];

    y = unary1(&g, "tanh", it_tanhf, 0x00000000u, FL(SPECIAL), "tanh(+0) = +0");
    require(U(y) == 0, "tanh(+0)");
    y = unary1(&g, "tanh", it_tanhf, 0x80000000u, FL(SPECIAL), "tanh(-0) = -0: the sign of zero survives");
    require(U(y) == 0x80000000u, "tanh(-0) = %08x", (unsigned)U(y));
    y = unary1(&g, "tanh", it_tanhf, 0x7f800000u, FL(SPECIAL), "tanh(+inf) = 1");
    require(U(y) == 0x3f800000u, "tanh(+inf)");
    y = unary1(&g, "tanh", it_tanhf, 0xff800000u, FL(SPECIAL), "tanh(-inf) = -1");
    require(U(y) == 0xbf800000u, "tanh(-inf)");
    y = unary1(&g, "tanh", it_tanhf, 0x7fc00000u, 0, "tanh(NaN) is NaN (compared by class)");
    require(is_nan(y), "tanh(NaN)");
    y = unary1(&g, "tanh", it_tanhf, 0x00000001u, 0, "tanh(2^-149) = 2^-149: below 2^-12 tanh returns x");
    require(U(y) == 1, "tanh(2^-149)");
    y = unary1(&g, "tanh", it_tanhf, 0x80000001u, 0, "tanh(-2^-149) = -2^-149");
    require(U(y) == 0x80000001u, "tanh(-2^-149)");

    y = unary1(&g, "tanh", it_tanhf, 0x397fffffu, FL(EDGE),
               "the largest x below 2^-12: returned unchanged, the sequence's small-argument branch");
    require(U(y) == 0x397fffffu, "tanh(0x397fffff) = %08x", (unsigned)U(y));
    y = unary1(&g, "tanh", it_tanhf, 0xb97fffffu, FL(EDGE), "the negative twin: -x just above -2^-12 is returned "
                                                             "unchanged");
    require(U(y) == 0xb97fffffu, "tanh(0xb97fffff)");
    unary1(&g, "tanh", it_tanhf, 0x39800000u, FL(EDGE),
           "x = 2^-12 exactly: the first input through (1 - e)/(1 + e) with e = exp(-2x)");
    unary1(&g, "tanh", it_tanhf, 0xb9800000u, FL(EDGE), "x = -2^-12: through the formula, sign applied last");
    unary1(&g, "tanh", it_tanhf, 0x39800001u, FL(EDGE), "just above 2^-12");
    unary1(&g, "tanh", it_tanhf, 0x3a000000u, 0, "tanh(2^-11): small, 1 - e cancels heavily");
    unary1(&g, "tanh", it_tanhf, 0x3f000000u, 0, "tanh(0.5)");
    unary1(&g, "tanh", it_tanhf, 0x3f800000u, 0, "tanh(1)");
    unary1(&g, "tanh", it_tanhf, 0xbf800000u, 0, "tanh(-1) = -tanh(1) by the sequence's symmetry");
    unary1(&g, "tanh", it_tanhf, 0x40000000u, 0, "tanh(2)");

    uint32_t one = first_true(0x3f800000u, 0x7f800000u, tanh_is_one);
    y = unary1(&g, "tanh", it_tanhf, one - 1, FL(EDGE), "the largest x whose tanh is below 1 (found by bisection)");
    require(U(y) < 0x3f800000u, "tanh(%08x) = %08x", (unsigned)(one - 1), (unsigned)U(y));
    y = unary1(&g, "tanh", it_tanhf, one, FL(EDGE), "the smallest x whose tanh is exactly 1");
    require(U(y) == 0x3f800000u, "tanh(%08x)", (unsigned)one);
    y = unary1(&g, "tanh", it_tanhf, one | 0x80000000u, FL(EDGE), "its negative: tanh is exactly -1");
    require(U(y) == 0xbf800000u, "tanh(-%08x)", (unsigned)one);

    require(is_subnormal(it_expf(-88.0f)), "exp(-88) is not subnormal");
    unary1(&g, "tanh", it_tanhf, 0x42300000u, FL(SUBNORMAL),
           "tanh(44): the intermediate e = exp(-88) is subnormal; 1 - e and 1 + e round to 1");
    require(U(it_expf(-104.0f)) == 0, "exp(-104) is not 0");
    unary1(&g, "tanh", it_tanhf, 0x42500000u, FL(UNDERFLOW), "tanh(52): e = exp(-104) underflows to 0");
    require(is_inf(F(0x7f000000u) + F(0x7f000000u)), "2^127 + 2^127 does not overflow");
    unary1(&g, "tanh", it_tanhf, 0x7f000000u, FL(OVERFLOW),
           "tanh(2^127): -(a + a) overflows to -inf inside the sequence, exp(-inf) = 0, result 1");
    unary1(&g, "tanh", it_tanhf, 0xff7fffffu, FL(OVERFLOW), "tanh of the most negative finite value is -1");

    for (int p = 0; p < 4; p++)
        memcpy(z + p * H, pos_init[p].z1, sizeof pos_init[p].z1);
    unary(&g, "tanh", it_tanhf, z, 4 * H, FL(TYPICAL),
          "the hidden pre-activations of step 1, positions 0..3, initial parameters (4 x 32 values)");
    for (int p = 0; p < 4; p++)
        memcpy(z + p * H, pos_100[p].z1, sizeof pos_100[p].z1);
    unary(&g, "tanh", it_tanhf, z, 4 * H, FL(TYPICAL),
          "the hidden pre-activations of step 101, positions 0..3, parameters after 100 steps (4 x 32 values)");
    group_end(&g);
}
