/* Groups embedding (spec 5.1 forward, 5.8 backward) and sgd (7.1). */
#include <string.h>

#include "mv.h"

/* ---- group: embedding (spec 5.1 forward, 5.8 backward) ---------------------------------------- */

static void ef_case(group *g, const float *e, size_t rows, size_t dim, unsigned token, unsigned flags,
                    const char *why)
{
    float *out = malloc(dim * sizeof *out);
    if (!out)
        die("out of memory");
    it_embedding_forward(e, dim, token, out);
    op_case(g, "embedding_forward", flags,
            VALS(IN_INT("dim", dim), IN_F32("e", e, rows * dim), IN_INT("token", token), OUT_F32("out", out, dim)),
            why);
    free(out);
}

static void eb_case(group *g, const float *de0, size_t rows, size_t dim, const unsigned char *tokens, size_t m,
                    const float *dout, unsigned flags, const char *why)
{
    float *de = malloc(rows * dim * sizeof *de);
    if (!de)
        die("out of memory");
    memcpy(de, de0, rows * dim * sizeof *de);
    for (size_t p = 0; p < m; p++)
        it_embedding_backward(de, dim, tokens[p], dout + p * dim);
    op_case(g, "embedding_backward", flags,
            VALS(IN_INT("dim", dim), IN_F32("de", de0, rows * dim), IN_BYTES("tokens", tokens, m),
                 IN_F32("dout", dout, m * dim), OUT_F32("de", de, rows * dim)),
            why);
    free(de);
}

void gen_embedding(void)
{
    group g;
    group_begin(&g, "embedding", "5");
    static float zeros[V * D], dout[B * D];

    ef_case(&g, T_E(hist[0]), V, D, batch_x[1][0], FL(TYPICAL), say("the initial embedding table, the first input byte of step 1 (%u)", (unsigned)batch_x[1][0]));
    ef_case(&g, T_E(hist[100]), V, D, 0, FL(EDGE), "row 0 of the table after 100 steps");
    ef_case(&g, T_E(hist[100]), V, D, V - 1, FL(EDGE), "the last row (255) of the table after 100 steps");
    {
        const float e[8] = {1, 2, 3, 4, -0.0f, 0x1p-149f, F(0x7f800000u), F(0x7fc00000u)};
        ef_case(&g, e, 2, 4, 1, 0, "a lookup is a copy: -0, a subnormal, +inf and NaN come out as they went in "
                                   "(an x + 0 'copy' turns -0 into +0)");
    }

    {
        const unsigned char tk[4] = {3, 3, 3, 3};
        require(U(sum_descending(T4, 4)) == 0 && U(sum_pairwise(T4, 4)) == 0, "scatter order claim");
        eb_case(&g, zeros, 4, 1, tk, 4, T4, FL(ORDER),
                "four positions of token 3 with terms [1e8, 1, -1e8, 1]: added in position order the row is 1; "
                "reversed or pairwise it is 0");
    }
    {
        const unsigned char tk[4] = {2, 0, 2, 2};
        const float d[8] = {1, 1, 7, 7, 1e8f, 1, -1e8f, -1};
        const float col0[3] = {1, 1e8f, -1e8f};
        require(U(sum_ascending(col0, 3)) == 0 && U(sum_descending(col0, 3)) == 0x3f800000u, "claim");
        eb_case(&g, zeros, 3, 2, tk, 4, d, FL(ORDER),
                "tokens [2, 0, 2, 2], dim 2: row 2 column 0 gets 1, 1e8, -1e8 in position order (0); the reverse "
                "gives 1. Other rows are untouched");
    }
    {
        const unsigned char tk[2] = {0, 0};
        const float de[1] = {-1e8f}, d[2] = {1e8f, 1};
        require(U((d[0] + d[1]) + de[0]) == 0, "start claim");
        eb_case(&g, de, 1, 1, tk, 2, d, FL(ORDER),
                "de = -1e8 is the start value: (-1e8 + 1e8) + 1 = 1; summing the terms first gives 0");
    }
    {
        const unsigned char tk[1] = {0};
        const float de[2] = {-0.0f, 0.0f}, d[2] = {-0.0f, -0.0f};
        eb_case(&g, de, 1, 2, tk, 1, d, FL(SPECIAL), "signed zeros: -0 + -0 = -0, +0 + -0 = +0");
    }
    {
        const unsigned char tk[2] = {1, 1};
        const float de[2] = {0, 0}, d[2] = {0x1p-149f, 0x1p-149f};
        eb_case(&g, de, 2, 1, tk, 2, d, 0, "subnormal terms add exactly: 2^-149 + 2^-149 = 2^-148");
    }
    for (int p = 0; p < B; p++)
        memcpy(dout + p * D, pos_init[p].de, sizeof pos_init[p].de);
    {
        static float de[V * D];
        memcpy(de, zeros, sizeof de);
        for (int p = 0; p < B; p++)
            it_embedding_backward(de, D, batch_x[1][p], dout + p * D);
        for (int i = 0; i < V * D; i++)
            require(U(de[i]) == U(grads_init[IT_MLP13K_OFF_EMBED + i]), "embedding gradient rebuild");
    }
    eb_case(&g, zeros, V, D, batch_x[1], B, dout, FL(TYPICAL),
            "the whole embedding gradient of step 1 (initial parameters): 64 positions scattered into zeros, "
            "equal to the embed part of that step's gradient");
    for (int p = 0; p < B; p++)
        memcpy(dout + p * D, pos_100[p].de, sizeof pos_100[p].de);
    eb_case(&g, zeros, V, D, batch_x[101], B, dout, FL(TYPICAL),
            "the whole embedding gradient of step 101 (after 100 steps)");
    group_end(&g);
}

/* ---- group: sgd (spec 7.1) ------------------------------------------------------------------------ */

static void sgd_case(group *g, const float *p0, const float *gr, size_t n, float lr, unsigned flags,
                     const char *why)
{
    float *p = malloc(n * sizeof *p);
    if (!p)
        die("out of memory");
    memcpy(p, p0, n * sizeof *p);
    it_sgd_update(p, gr, n, lr);
    op_case(g, "sgd", flags, VALS(IN_F32("p", p0, n), IN_F32("g", gr, n), IN_F1("lr", lr), OUT_F32("p", p, n)), why);
    free(p);
}

void gen_sgd(void)
{
    group g;
    group_begin(&g, "sgd", "7.1");
    {
        static float p[NP];
        memcpy(p, hist[0], sizeof p);
        it_sgd_update(p, grads_init, NP, recipe.lr);
        require(memcmp(p, hist[1], sizeof p) == 0, "the step-1 update does not reproduce the step-1 parameters");
    }
    sgd_case(&g, hist[0], grads_init, NP, recipe.lr, FL(TYPICAL),
             "the whole first update of mlp13k: the 13,088 initial parameters, their step-1 gradient, lr 0.5");
    sgd_case(&g, T_B2(hist[100]), grads_100 + IT_MLP13K_OFF_B2, V, recipe.lr, FL(TYPICAL),
             "b2 after 100 steps with its step-101 gradient, lr 0.5");
    {
        const float p[1] = {F(ONE_P11)}, gr[1] = {F(ONE_P12)};
        float lr = F(ONE_P12);
        float fz = fused(p[0], -lr, gr[0]);
        require(U(p[0] - lr * gr[0]) == 0 && U(fz) != 0, "sgd FMA claim");
        sgd_case(&g, p, gr, 1, lr, FL(FMA) | FL(TIE),
                 "p = 1+2^-11, g = lr = 1+2^-12: lr*g ties to 1+2^-11 and p - that is +0; fused, -2^-24");
    }
    {
        const float p[1] = {0x1p-126f}, gr[1] = {0x1p-126f};
        sgd_case(&g, p, gr, 1, 0.5f, FL(SUBNORMAL),
                 "p = g = 2^-126, lr 0.5: lr*g = 2^-127 is subnormal and so is the new p, 2^-127");
    }
    {
        const float p[2] = {0.0f, 0x1p-149f}, gr[2] = {0x1p-149f, F(3)};
        require(is_tie(0.5 * (double)gr[0]) && is_tie(0.5 * (double)gr[1]), "sgd subnormal tie claim");
        sgd_case(&g, p, gr, 2, 0.5f, FL(TIE) | FL(UNDERFLOW),
                 "lr*g at the bottom of the subnormals: 0.5 * 2^-149 ties to +0 (p stays +0); 0.5 * 3*2^-149 ties "
                 "to 2^-148, and 2^-149 - 2^-148 = -2^-149");
    }
    {
        const float p[2] = {1.0f, F(0x3f800001u)}, gr[2] = {-0x1p-24f, -0x1p-24f};
        require(is_tie(exact_sum(p[0], 0x1p-24f)) && is_tie(exact_sum(p[1], 0x1p-24f)), "p - delta tie claim");
        sgd_case(&g, p, gr, 2, 1.0f, FL(TIE),
                 "p - lr*g with lr*g = -2^-24: 1 + 2^-24 ties to 1, (1 + 2^-23) + 2^-24 ties to 1 + 2^-22");
    }
    {
        const float p[4] = {0.0f, -0.0f, 0.0f, -0.0f}, gr[4] = {0.0f, 0.0f, -0.0f, -0.0f};
        sgd_case(&g, p, gr, 4, 0.5f, FL(SPECIAL),
                 "signed zeros: +0 - +0 = +0, -0 - +0 = -0, +0 - -0 = +0, -0 - -0 = +0");
    }
    {
        const float p[2] = {F(0xff7fffffu), F(0x7f7fffffu)}, gr[2] = {F(0x7f7fffffu), F(0xff7fffffu)};
        sgd_case(&g, p, gr, 2, 4.0f, FL(OVERFLOW),
                 "lr = 4 times the largest finite gradient overflows: p becomes -inf and +inf");
    }
    {
        const float p[2] = {1.0f, 1.0f}, gr[2] = {F(0x7fc00000u), 1.0f};
        sgd_case(&g, p, gr, 2, 0.5f, 0, "a NaN gradient makes that parameter NaN and leaves the next alone");
    }
    group_end(&g);
}
