/* Groups softmax_xent (spec 5.4 forward, 5.5 backward) and tanh_backward
 * (5.6). */
#include <string.h>

#include "mv.h"

/* ---- group: softmax_xent (spec 5.4 forward, 5.5 backward) ------------------------------------- */

static float sxf_case(group *g, const float *z, size_t n, unsigned target, unsigned flags, const char *why)
{
    float *probs = malloc(n * sizeof *probs);
    if (!probs)
        die("out of memory");
    float loss = it_softmax_xent_forward(z, n, target, probs);
    op_case(g, "softmax_xent_forward", flags,
            VALS(IN_F32("z", z, n), IN_INT("target", target), OUT_F32("probs", probs, n), OUT_F1("loss", loss)),
            why);
    free(probs);
    return loss;
}

static void sxb_case(group *g, const float *probs, size_t n, unsigned target, float scale, unsigned flags,
                     const char *why)
{
    float *dz = malloc(n * sizeof *dz);
    if (!dz)
        die("out of memory");
    it_softmax_xent_backward(probs, n, target, scale, dz);
    op_case(g, "softmax_xent_backward", flags,
            VALS(IN_F32("probs", probs, n), IN_INT("target", target), IN_F1("scale", scale), OUT_F32("dz", dz, n)),
            why);
    free(dz);
}

/* softmax_xent_forward on the profile's own logits (spec 11.6) */
static void sxf_typical_cases(group *g)
{
    float loss = sxf_case(g, pos_init[0].z2, V, batch_y[1][0], FL(TYPICAL),
                          "the 256 logits of step 1, position 0, initial parameters (b2 = 0), its real target");
    require(U(loss) == U(pos_init[0].loss), "typical loss");
    sxf_case(g, pos_100[0].z2, V, batch_y[101][0], FL(TYPICAL),
             "the 256 logits of step 101, position 0, after 100 steps, its real target");
    sxf_case(g, pos_200[7].z2, V, batch_y[200][7], FL(TYPICAL),
             "the 256 logits of step 200, position 7, after 199 steps, its real target");
}

/* softmax_xent_backward's cases (spec 5.5), after the forward ones */
static void sxb_cases(group *g)
{
    sxb_case(g, pos_100[0].probs, V, batch_y[101][0], 1.0f / 64.0f, FL(TYPICAL),
             "the probabilities of step 101, position 0, with scale 1/64 (the profile's batch)");
    sxb_case(g, pos_init[3].probs, V, batch_y[1][3], 1.0f / 64.0f, FL(TYPICAL),
             "the probabilities of step 1, position 3, initial parameters, scale 1/64");
    {
        const float p[3] = {1.0f, 0.0f, 0.0f};
        sxb_case(g, p, 3, 0, 1.0f / 64.0f, FL(SPECIAL), "p[target] = 1: (1 - 1) * scale = +0");
    }
    {
        const float p[2] = {0x1p-25f, F(0x33c00000u)}; /* 2^-25, 1.5*2^-24 */
        require(is_tie(exact_sum(p[0], -1.0f)) && is_tie(exact_sum(p[1], -1.0f)), "p - 1 tie claim");
        sxb_case(g, p, 2, 0, 1.0f, FL(TIE),
                 "target p = 2^-25: p - 1 is a tie, to even -1; scale 1");
        sxb_case(g, p, 2, 1, 1.0f, FL(TIE),
                 "target p = 1.5*2^-24: p - 1 is a tie, to even -(1 - 2^-23); scale 1");
    }
    {
        const float p[4] = {0x1p-126f, 0x1p-140f, 0x1p-149f, 1.0f};
        require(U(p[2] * (1.0f / 64.0f)) == 0, "underflow claim");
        sxb_case(g, p, 4, 3, 1.0f / 64.0f, FL(SUBNORMAL) | FL(UNDERFLOW),
                 "tiny probabilities times 1/64: 2^-132 and 2^-146 are subnormal, 2^-155 underflows to 0");
    }
    {
        const float p[3] = {0.5f, 0.25f, 0.25f};
        sxb_case(g, p, 3, 1, 1.0f / 3.0f, 0, "scale RN(1/3), inexact: each product rounds once");
    }
    {
        const float p[3] = {0.5f, F(0x7fc00000u), 0.5f};
        sxb_case(g, p, 3, 0, 1.0f / 64.0f, 0, "a NaN probability gives a NaN gradient in its place only");
    }
}

void gen_softmax_xent(void)
{
    group g;
    group_begin(&g, "softmax_xent", "5");
    float loss;

    {
        const float z[3] = {0.0f, -16.7f, -16.7f};
        float e[3];
        for (int k = 0; k < 3; k++)
            e[k] = it_expf(z[k] - 0.0f);
        require(U(sum_ascending(e, 3)) == 0x3f800000u && U(sum_descending(e, 3)) == 0x3f800001u,
                "dominated denominator claim: ascending %08x descending %08x", (unsigned)U(sum_ascending(e, 3)),
                (unsigned)U(sum_descending(e, 3)));
        loss = sxf_case(&g, z, 3, 0, FL(ORDER),
                        "z = [0, -16.7, -16.7]: each e^-16.7 is under half an ulp of 1, so the ascending "
                        "denominator stays 1 (loss +0); summed in reverse it is 1 + 2^-23");
        require(U(loss) == 0, "loss = %08x", (unsigned)U(loss));
    }
    {
        const float z[3] = {100.0f, 0.0f, -100.0f};
        require(is_inf(it_expf(100.0f)), "exp(100) does not overflow");
        sxf_case(&g, z, 3, 1, FL(OVERFLOW) | FL(UNDERFLOW),
                 "z = [100, 0, -100], target 1: exp(100) overflows unless the maximum is subtracted first; "
                 "p[1] = e^-100 is subnormal, p[2] = e^-200 is 0");
    }
    {
        const float z[3] = {1.0f, 3.0f, 2.0f};
        sxf_case(&g, z, 3, 2, 0, "z = [1, 3, 2], target 2: the maximum is not the first logit");
    }
    {
        const float z[2] = {5.0f, 5.0f};
        loss = sxf_case(&g, z, 2, 0, 0, "z = [5, 5]: a tied maximum, p = [0.5, 0.5], loss = log 2");
        require(U(loss) == 0x3f317218u, "loss = %08x", (unsigned)U(loss));
    }
    {
        const float z[2] = {0.0f, -104.0f};
        float p[2];
        it_softmax_xent_forward(z, 2, 1, p);
        require(U(p[1]) == 0 && is_inf(-it_logf(p[1])), "-log p claim");
        loss = sxf_case(&g, z, 2, 1, FL(UNDERFLOW) | FL(EDGE),
                        "z = [0, -104], target 1: p[1] underflows to 0, yet the loss log S - (z[t] - m) = 104 is "
                        "finite (-log p[t] would be +inf)");
        require(U(loss) == U(104.0f), "loss = %08x", (unsigned)U(loss));
    }
    {
        const float z[2] = {0.0f, F(0xff800000u)};
        loss = sxf_case(&g, z, 2, 1, 0, "z = [0, -inf], target 1: p = [1, 0] and the loss is +inf");
        require(U(loss) == 0x7f800000u, "loss = %08x", (unsigned)U(loss));
        sxf_case(&g, z, 2, 0, 0, "z = [0, -inf], target 0: a -inf logit contributes exp(-inf) = 0; loss +0");
    }
    {
        const float z[2] = {F(0x7f800000u), 0.0f};
        sxf_case(&g, z, 2, 1, 0, "z = [+inf, 0]: inf - inf = NaN, every output is NaN");
    }
    {
        const float z[3] = {1.0f, F(0x7fc00000u), 0.0f};
        sxf_case(&g, z, 3, 0, 0, "z = [1, NaN, 0]: a NaN logit makes the denominator and every output NaN");
    }
    {
        const float z[1] = {3.0f};
        loss = sxf_case(&g, z, 1, 0, FL(EDGE), "a single logit: p = [1], loss = +0");
        require(U(loss) == 0, "loss");
    }
    {
        float z[V];
        for (int k = 0; k < V; k++)
            z[k] = 0.0f;
        loss = sxf_case(&g, z, V, 7, 0, "256 equal logits: S = 256 exactly, every p = 2^-8, loss = RN(log 256)");
        require(U(loss) == U(it_logf(256.0f)), "uniform loss");
    }
    sxf_typical_cases(&g);

    sxb_cases(&g);
    group_end(&g);
}

/* ---- group: tanh_backward (spec 5.6) ------------------------------------------------------------- */

static void tb_case(group *g, const float *y, const float *dy, size_t n, unsigned flags, const char *why)
{
    float *dx = malloc(n * sizeof *dx);
    if (!dx)
        die("out of memory");
    it_tanh_backward(y, dy, n, dx);
    op_case(g, "tanh_backward", flags, VALS(IN_F32("y", y, n), IN_F32("dy", dy, n), OUT_F32("dx", dx, n)), why);
    free(dx);
}

void gen_tanh_backward(void)
{
    group g;
    group_begin(&g, "tanh_backward", "5.6");
    {
        const float y[2] = {1.0f, -1.0f}, dy[2] = {-2.0f, 3.0f};
        tb_case(&g, y, dy, 2, FL(SPECIAL), "y = +-1: the slope 1 - y*y is +0, and dy * +0 carries dy's sign (-0, +0)");
    }
    {
        const float y[2] = {0.0f, -0.0f}, dy[2] = {0.75f, -0.75f};
        tb_case(&g, y, dy, 2, 0, "y = +-0: the slope is exactly 1");
    }
    {
        const float y[1] = {F(0x3f7ffffeu)}, dy[1] = {1.0f};
        float unfused = 1.0f - y[0] * y[0];
        float fz = fused(1.0f, -y[0], y[0]);
        require(!same(unfused, fz), "tanh_backward FMA claim");
        tb_case(&g, y, dy, 1, FL(FMA),
                "y = 1 - 2^-23: y*y rounds to 1 - 2^-22 and the slope is 2^-22; fused, 1 - y*y is 2^-22 - 2^-46");
    }
    {
        /* y = 0.5 + 2^-13: y*y = 0.25 + 2^-13 + 2^-26, exactly half an ulp (2^-25) above 0.25 + 2^-13 */
        const float y[1] = {F(0x3f000800u)}, dy[1] = {1.0f};
        require(is_tie((double)y[0] * (double)y[0]) && U(y[0] * y[0]) == 0x3e801000u, "y*y tie claim");
        float fz = fused(1.0f, -y[0], y[0]);
        tb_case(&g, y, dy, 1, FL(TIE) | (same(1.0f - y[0] * y[0], fz) ? 0 : FL(FMA)),
                "y = 0.5 + 2^-13: y*y = 0.25 + 2^-13 + 2^-26 is an exact tie, to even 0.25 + 2^-13, then the "
                "slope 0.75 - 2^-13");
    }
    {
        const float y[2] = {0x1p-70f, 0x1p-80f}, dy[2] = {1.0f, 1.0f};
        require(is_subnormal(y[0] * y[0]) && U(y[1] * y[1]) == 0, "tiny y claims");
        tb_case(&g, y, dy, 2, FL(SUBNORMAL) | FL(UNDERFLOW),
                "y = 2^-70: y*y = 2^-140 is a subnormal intermediate; y = 2^-80: y*y underflows to 0. Slopes 1");
    }
    {
        const float y[1] = {0.5f}, dy[1] = {0x1p-148f};
        require(is_tie((double)dy[0] * 0.75), "subnormal tie claim");
        tb_case(&g, y, dy, 1, FL(TIE),
                "y = 0.5, dy = 2^-148: 0.75 * 2^-148 = 1.5*2^-149 is a subnormal tie, to even 2^-148");
    }
    {
        const float y[2] = {0.5f, 1.0f}, dy[2] = {F(0x7fc00000u), F(0x7f800000u)};
        tb_case(&g, y, dy, 2, 0, "dy = NaN gives NaN; dy = +inf with y = 1 is inf * 0 = NaN");
    }
    tb_case(&g, pos_100[0].h, pos_100[0].dh, H, FL(TYPICAL),
            "the hidden activations and their gradient at step 101, position 0, after 100 steps");
    tb_case(&g, pos_init[0].h, pos_init[0].dh, H, FL(TYPICAL),
            "the hidden activations and their gradient at step 1, position 0, initial parameters");
    group_end(&g);
}
