/* Groups dot (spec 4.2) and linear (5.2 forward, 5.7 backward): summation
 * order, where the bias enters, fused products, ties and signed zeros, then
 * real layers of the mlp13k run. */
#include <string.h>

#include "mv.h"

/* ---- group: dot (spec 4.2) ---------------------------------------------------------------------- */

const float T4[4] = {1e8f, 1.0f, -1e8f, 1.0f}; /* ascending 1, reversed 0, pairwise 0 */
const float ONES[8] = {1, 1, 1, 1, 1, 1, 1, 1};

static float dot_case(group *g, const float *a, const float *b, size_t n, unsigned flags, const char *why)
{
    float y = it_dot(a, b, n);
    op_case(g, "dot", flags, VALS(IN_F32("a", a, n), IN_F32("b", b, n), OUT_F1("y", y)), why);
    return y;
}

void gen_dot(void)
{
    group g;
    group_begin(&g, "dot", "4.2");
    float y;

    require(U(sum_descending(T4, 4)) == 0 && U(sum_pairwise(T4, 4)) == 0 && U(sum_ascending(T4, 4)) == 0x3f800000u,
            "[1e8, 1, -1e8, 1] does not separate the orders");
    y = dot_case(&g, T4, ONES, 4, FL(ORDER),
                 "[1e8, 1, -1e8, 1] . [1, 1, 1, 1]: ascending from +0 gives 1; reversed or pairwise gives 0");
    require(U(y) == 0x3f800000u, "dot(T4) = %08x", (unsigned)U(y));
    const float t_rev[4] = {1.0f, 1e8f, 1.0f, -1e8f};
    require(U(sum_ascending(t_rev, 4)) == 0 && U(sum_descending(t_rev, 4)) == 0x3f800000u,
            "[1, 1e8, 1, -1e8] does not separate ascending from descending");
    dot_case(&g, t_rev, ONES, 4, FL(ORDER),
             "[1, 1e8, 1, -1e8] . ones: ascending gives 0, descending gives 1 (pins the direction)");
    const float neg0[2] = {-0.0f, -0.0f};
    require(U((-0.0f + -0.0f)) == 0x80000000u, "sanity");
    y = dot_case(&g, neg0, ONES, 2, FL(SPECIAL),
                 "[-0, -0] . [1, 1] = +0: the sum starts from +0 (starting from the first product gives -0)");
    require(U(y) == 0, "dot(-0,-0) = %08x", (unsigned)U(y));
    const float m1[1] = {-1.0f}, z1[1] = {0.0f};
    y = dot_case(&g, m1, z1, 1, FL(SPECIAL), "[-1] . [0]: the product is -0, and +0 + -0 = +0");
    require(U(y) == 0 && U(m1[0] * z1[0]) == 0x80000000u, "dot([-1],[0])");

    const float fa[2] = {-1.0f, F(ONE_P12)}, fb[2] = {F(ONE_P11), F(ONE_P12)};
    float acc = 0.0f + fa[0] * fb[0];
    require(is_tie((double)fa[1] * (double)fb[1]), "(1+2^-12)^2 is not a tie");
    float fz = fused(acc, fa[1], fb[1]);
    y = dot_case(&g, fa, fb, 2, FL(FMA) | FL(TIE), say("[-1, 1+2^-12] . [1+2^-11, 1+2^-12]: (1+2^-12)^2 = 1+2^-11+2^-24 ties to 1+2^-11 and cancels to "
                 "+0; fused into the sum the 2^-24 survives (%08x)",
                 (unsigned)U(fz)));
    require(U(y) == 0 && !same(fz, y), "FMA claim: unfused %08x fused %08x", (unsigned)U(y), (unsigned)U(fz));

    const float tie_dn[2] = {1.0f, 0x1p-24f}, tie_up[2] = {F(0x3f800001u), 0x1p-24f};
    require(is_tie(exact_sum(tie_dn[0], tie_dn[1])) && is_tie(exact_sum(tie_up[0], tie_up[1])), "tie claims");
    y = dot_case(&g, tie_dn, ONES, 2, FL(TIE), "1 + 2^-24 is a tie: to even gives 1");
    require(U(y) == 0x3f800000u, "tie down");
    y = dot_case(&g, tie_up, ONES, 2, FL(TIE), "(1 + 2^-23) + 2^-24 is a tie: to even gives 1 + 2^-22");
    require(U(y) == 0x3f800002u, "tie up = %08x", (unsigned)U(y));

    const float s70[1] = {0x1p-70f};
    y = dot_case(&g, s70, s70, 1, FL(SUBNORMAL), "2^-70 * 2^-70 = 2^-140, a subnormal product kept exactly");
    require(U(y) == 0x00000200u, "2^-140 = %08x", (unsigned)U(y));
    const float s75[1] = {0x1p-75f};
    require(is_tie((double)s75[0] * (double)s75[0]), "2^-150 is not a tie");
    y = dot_case(&g, s75, s75, 1, FL(UNDERFLOW) | FL(TIE),
                 "2^-75 * 2^-75 = 2^-150, halfway between +0 and 2^-149: ties to even gives +0");
    require(U(y) == 0, "2^-150");
    const float s75b[1] = {0x1.8p-75f};
    y = dot_case(&g, s75b, s75, 1, FL(UNDERFLOW), "1.5*2^-75 * 2^-75 = 1.5*2^-150 rounds up to 2^-149");
    require(U(y) == 1, "1.5*2^-150 = %08x", (unsigned)U(y));
    const float subs[3] = {F(1), F(1), F(1)};
    y = dot_case(&g, subs, ONES, 3, 0, "three subnormals 2^-149 sum exactly to 3*2^-149");
    require(U(y) == 3, "3*2^-149");

    const float big[3] = {3e38f, 3e38f, -3e38f};
    require(is_inf(sum_ascending(big, 3)) && !is_inf(sum_descending(big, 3)), "overflow order claim");
    y = dot_case(&g, big, ONES, 3, FL(OVERFLOW) | FL(ORDER),
                 "[3e38, 3e38, -3e38] . ones: ascending overflows to +inf and stays; descending gives 3e38");
    require(U(y) == 0x7f800000u, "overflow");
    const float infs[2] = {F(0x7f800000u), F(0xff800000u)};
    dot_case(&g, infs, ONES, 2, 0, "+inf + -inf is NaN");
    const float inf1[1] = {F(0x7f800000u)};
    dot_case(&g, inf1, z1, 1, 0, "inf * 0 is NaN");
    const float nan3[3] = {1.0f, F(0x7fc00000u), 1.0f};
    dot_case(&g, nan3, ONES, 3, 0, "a NaN term makes the sum NaN");

    dot_case(&g, T_W1(hist[0]), pos_init[0].e, D, FL(TYPICAL),
             "row 0 of w1 . the embedding of the first input byte: step 1, position 0, initial parameters");
    dot_case(&g, T_W2(hist[100]) + (size_t)batch_y[101][0] * H, pos_100[0].h, H, FL(TYPICAL),
             "the w2 row of the target byte . the hidden activations: step 101, position 0, after 100 steps");
    group_end(&g);
}

/* ---- group: linear (spec 5.2 forward, 5.7 backward) --------------------------------------------- */

static void linfwd_case(group *g, const float *w, const float *b, const float *x, size_t in, size_t out,
                        const float *expect, unsigned flags, const char *why)
{
    float *y = malloc(out * sizeof *y);
    if (!y)
        die("out of memory");
    it_linear_forward(w, b, x, in, out, y);
    if (expect)
        for (size_t o = 0; o < out; o++)
            require(same(y[o], expect[o]), "linear_forward output %zu: %08x, expected %08x", o, (unsigned)U(y[o]),
                    (unsigned)U(expect[o]));
    op_case(g, "linear_forward", flags,
            VALS(IN_INT("in", in), IN_INT("out", out), IN_F32("w", w, in * out), IN_F32("b", b, out),
                 IN_F32("x", x, in), OUT_F32("y", y, out)),
            why);
    free(y);
}

static void linbwd_case(group *g, const float *w, const float *x, const float *dy, const float *dw0,
                        const float *db0, size_t in, size_t out, const float *expect_dx, unsigned flags,
                        const char *why)
{
    float *dw = malloc(in * out * sizeof *dw), *db = malloc(out * sizeof *db), *dx = malloc(in * sizeof *dx);
    if (!dw || !db || !dx)
        die("out of memory");
    memcpy(dw, dw0, in * out * sizeof *dw);
    memcpy(db, db0, out * sizeof *db);
    it_linear_backward(w, x, dy, in, out, dw, db, dx);
    if (expect_dx)
        for (size_t i = 0; i < in; i++)
            require(same(dx[i], expect_dx[i]), "linear_backward dx[%zu]: %08x, expected %08x", i,
                    (unsigned)U(dx[i]), (unsigned)U(expect_dx[i]));
    op_case(g, "linear_backward", flags,
            VALS(IN_INT("in", in), IN_INT("out", out), IN_F32("w", w, in * out), IN_F32("x", x, in),
                 IN_F32("dy", dy, out), IN_F32("dw", dw0, in * out), IN_F32("db", db0, out),
                 OUT_F32("dw", dw, in * out), OUT_F32("db", db, out), OUT_F32("dx", dx, in)),
            why);
    free(dw);
    free(db);
    free(dx);
}

/* linear_backward's cases (spec 5.7), after the forward ones */
static void linbwd_cases(group *g)
{
    static float grads[NP];
    {
        const float x[1] = {1}, dw[4] = {0}, db[4] = {0}, want[1] = {1};
        float rev = ((T4[3] + T4[2]) + T4[1]) + T4[0];
        require(U(rev) == 0, "dx order claim");
        linbwd_case(g, T4, x, ONES, dw, db, 1, 4, want, FL(ORDER),
                    "one input, four outputs, w column [1e8, 1, -1e8, 1], dy = ones: dx ascends over outputs "
                    "from +0 (1; reversed gives 0)");
    }
    {
        const float w[1] = {0}, x[1] = {F(ONE_P12)}, dy[1] = {F(ONE_P12)}, dw[1] = {-F(ONE_P11)}, db[1] = {1};
        float fz = fused(dw[0], dy[0], x[0]);
        require(U(fz) != 0 && U(dw[0] + dy[0] * x[0]) == 0, "accumulation FMA claim");
        linbwd_case(g, w, x, dy, dw, db, 1, 1, NULL, FL(FMA) | FL(TIE),
                    "dw = -(1+2^-11) accumulates dy*x = RN((1+2^-12)^2) = 1+2^-11: +0; a fused accumulate gives "
                    "2^-24. db accumulates from the given 1");
    }
    {
        const float w[1] = {1}, x[1] = {1}, dy[1] = {0x1p-24f}, dw[1] = {1}, db[1] = {F(0x3f800001u)};
        require(is_tie(exact_sum(dw[0], dy[0])) && is_tie(exact_sum(db[0], dy[0])), "accumulate tie claim");
        linbwd_case(g, w, x, dy, dw, db, 1, 1, NULL, FL(TIE),
                    "accumulating 2^-24 into 1 (dw) and into 1+2^-23 (db): both ties, to even 1 and 1+2^-22");
    }
    {
        const float w[1] = {0.5f}, x[1] = {0x1p-70f}, dy[1] = {0x1p-70f}, dw[1] = {0}, db[1] = {0};
        linbwd_case(g, w, x, dy, dw, db, 1, 1, NULL, 0,
                    "dy = x = 2^-70: the weight gradient 2^-140 is subnormal and kept");
    }
    {
        const float w[1] = {0}, x[1] = {0}, dy[1] = {-1}, dw[1] = {-0.0f}, db[1] = {-0.0f}, want[1] = {0};
        require(U(w[0] * dy[0]) == 0x80000000u, "dx -0 claim");
        linbwd_case(g, w, x, dy, dw, db, 1, 1, want, FL(SPECIAL),
                    "signed zeros: dw = -0 + (-1 * 0) stays -0; dx = +0 + (0 * -1) is +0 (the sum starts from +0, "
                    "not from the first term, -0)");
    }
    {
        /* layer 2 at step 101, position 5: dw2/db2 hold positions 0..4 */
        run_positions(hist[100], batch_x[101], batch_y[101], B, 5, grads, NULL);
        const position *P = &pos_100[5];
        linbwd_case(g, T_W2(hist[100]), P->h, P->dz2, grads + IT_MLP13K_OFF_W2, grads + IT_MLP13K_OFF_B2, H, V,
                    P->dh, FL(TYPICAL),
                    "layer 2 backward at step 101, position 5, after 100 steps: dw and db arrive holding the sums of "
                    "positions 0..4");
    }
    {
        run_positions(hist[0], batch_x[1], batch_y[1], B, 3, grads, NULL);
        const position *P = &pos_init[3];
        linbwd_case(g, T_W1(hist[0]), P->e, P->dz1, grads + IT_MLP13K_OFF_W1, grads + IT_MLP13K_OFF_B1, D, H,
                    P->de, FL(TYPICAL),
                    "layer 1 backward at step 1, position 3, initial parameters: dw and db hold positions 0..2");
    }
}

void gen_linear(void)
{
    group g;
    group_begin(&g, "linear", "5");

    /* forward */
    {
        const float w[2] = {1e8f, -1e8f}, x[2] = {1, 1}, b[1] = {1}, want[1] = {1};
        float bias_first = (b[0] + w[0] * x[0]) + w[1] * x[1];
        require(U(bias_first) == 0, "bias-first claim");
        linfwd_case(&g, w, b, x, 2, 1, want, FL(ORDER),
                    "w = [1e8, -1e8], x = [1, 1], b = 1: the bias joins after the dot product, giving 1; starting "
                    "the sum from the bias gives 0");
    }
    {
        const float b[1] = {0}, want[1] = {1};
        linfwd_case(&g, T4, b, ONES, 4, 1, want, FL(ORDER),
                    "one row [1e8, 1, -1e8, 1], x = ones: the row's dot product ascends (reversed gives 0)");
    }
    {
        const float w[1] = {-1.0f}, x[1] = {0.0f}, b[1] = {-0.0f}, want[1] = {0.0f};
        float bias_first = b[0] + w[0] * x[0];
        require(U(bias_first) == 0x80000000u, "bias-first -0 claim");
        linfwd_case(&g, w, b, x, 1, 1, want, FL(SPECIAL) | FL(ORDER),
                    "w = [-1], x = [0], b = -0: (+0 + -0) + -0 = +0; starting from the bias gives -0");
    }
    {
        const float w[2] = {-1.0f, F(ONE_P12)}, x[2] = {F(ONE_P11), F(ONE_P12)}, b[1] = {0}, want[1] = {0};
        float fz = fused(w[0] * x[0], w[1], x[1]);
        require(U(fz) != 0, "FMA claim");
        linfwd_case(&g, w, b, x, 2, 1, want, FL(FMA) | FL(TIE),
                    "w = [-1, 1+2^-12], x = [1+2^-11, 1+2^-12], b = 0: the rounded product cancels to +0; a fused "
                    "product-add gives 2^-24");
    }
    {
        const float w[6] = {1, 2, 3, 4, 5, 6}, x[3] = {1, 10, 100}, b[2] = {0.5f, -0.5f}, want[2] = {321.5f, 653.5f};
        linfwd_case(&g, w, b, x, 3, 2, want, 0,
                    "w is out x in, row-major: w[o][i] = w[o*in + i] (a transposed reading gives other values)");
    }
    {
        const float w[1] = {0x1p-70f}, x[1] = {0x1p-70f}, b[1] = {0x1p-149f};
        linfwd_case(&g, w, b, x, 1, 1, NULL, 0, "2^-70 * 2^-70 + 2^-149: a subnormal dot product plus a subnormal "
                                                "bias, 2^-140 + 2^-149 exactly");
    }
    linfwd_case(&g, T_W1(hist[0]), T_B1(hist[0]), pos_init[0].e, D, H, pos_init[0].z1, FL(TYPICAL),
                "layer 1 (16 -> 32) at step 1, position 0, initial parameters (b1 is all zeros)");
    linfwd_case(&g, T_W1(hist[100]), T_B1(hist[100]), pos_100[0].e, D, H, pos_100[0].z1, FL(TYPICAL),
                "layer 1 (16 -> 32) at step 101, position 0, parameters after 100 steps");
    linfwd_case(&g, T_W2(hist[100]), T_B2(hist[100]), pos_100[0].h, H, V, pos_100[0].z2, FL(TYPICAL),
                "layer 2 (32 -> 256) at step 101, position 0, parameters after 100 steps");

    linbwd_cases(&g);
    group_end(&g);
}
