/* spec §4 and §5: every reduction pinned by inputs whose result depends on
 * the order. With t = [1e8, 1, -1e8, 1] the ascending sum from +0 is 1;
 * reversed it is 0, and pairwise ((t0+t1)+(t2+t3)) it is 0, so a trainer that
 * sums in any other order fails these. */
#include "testutil.h"

static const float T[4] = {1e8f, 1.0f, -1e8f, 1.0f};
static const float ONES[4] = {1.0f, 1.0f, 1.0f, 1.0f};

Test(reductions, the_pinning_vector_separates_the_orders)
{
    /* Guards the test data itself: if these did not differ, the tests below
     * could not tell the orders apart. */
    volatile float a = T[0], b = T[1], c = T[2], d = T[3];
    float reverse = ((d + c) + b) + a;
    float pairwise = (a + b) + (c + d);
    cr_assert(B(reverse) == 0 && B(pairwise) == 0);
}

Test(reductions, dot_is_ascending_from_plus_zero) /* §4.2 */
{
    assert_bits(it_dot(T, ONES, 4), 0x3f800000u);
    /* the start value is +0: an all -0 sum stays +0 */
    const float neg0[2] = {-0.0f, -0.0f};
    assert_bits(it_dot(neg0, ONES, 2), 0x00000000u);
}

Test(reductions, dot_rounds_each_product_before_adding) /* §2.1: no FMA */
{
    /* (1+2^-12)^2 = 1 + 2^-11 + 2^-24 rounds (a tie, to even) to 1 + 2^-11,
     * which cancels the first term exactly: +0. Fused into the running sum
     * the 2^-24 would survive. */
    const float a[2] = {-1.0f, F(0x3f800800u)};
    const float b[2] = {F(0x3f801000u), F(0x3f800800u)};
    assert_bits(it_dot(a, b, 2), 0x00000000u);
}

Test(reductions, linear_bias_enters_after_the_dot) /* §5.2 */
{
    /* W row = [1e8, -1e8], x = [1, 1], b = 1: (0 + 1e8 - 1e8) + 1 = 1, but
     * starting from the bias, (1 + 1e8) - 1e8 = 0. */
    const float W[2] = {1e8f, -1e8f}, x[2] = {1.0f, 1.0f}, b[1] = {1.0f};
    float y;
    it_linear_forward(W, b, x, 2, 1, &y);
    assert_bits(y, 0x3f800000u);
}

Test(reductions, linear_backward_dx_ascends_over_outputs) /* §5.7 */
{
    /* one input, four outputs: dx[0] = sum over o of W[o][0]*dy[o] */
    float dW[4] = {0}, db[4] = {0}, dx[1];
    it_linear_backward(T, ONES, ONES, 1, 4, dW, db, dx);
    assert_bits(dx[0], 0x3f800000u);
}

Test(reductions, gradient_accumulation_ascends_over_positions) /* §5.7, §11.6 */
{
    float dW[1] = {0}, db[1] = {0};
    const float W[1] = {0}, x[1] = {1.0f};
    for (int p = 0; p < 4; p++)
        it_linear_backward(W, x, &T[p], 1, 1, dW, db, NULL);
    assert_bits(dW[0], 0x3f800000u);
    assert_bits(db[0], 0x3f800000u);
}

Test(reductions, embedding_scatter_add_ascends_over_positions) /* §5.8 */
{
    float dE[2 * 1] = {0};
    for (int p = 0; p < 4; p++)
        it_embedding_backward(dE, 1, 1, &T[p]);
    assert_bits(dE[1], 0x3f800000u);
    assert_bits(dE[0], 0x00000000u, "(untouched row stays +0)");
}

Test(reductions, softmax_denominator_ascends) /* §5.4 */
{
    /* e^-16.7 is just under 2^-24: added to 1 one at a time each rounds
     * away (S = 1, loss = log 1 = +0); summed in reverse the two small terms
     * first make 2^-23-ish and S rounds up to 1 + 2^-23. */
    const float z[3] = {0.0f, -16.7f, -16.7f};
    float p[3];
    cr_assert(it_expf(-16.7f) < 0x1p-24f && it_expf(-16.7f) + it_expf(-16.7f) > 0x1p-24f);
    float loss = it_softmax_xent_forward(z, 3, 0, p);
    assert_bits(loss, 0x00000000u);
    assert_bits(p[0], 0x3f800000u);
}

Test(reductions, softmax_max_scan_and_loss_form) /* §5.4 */
{
    const float z[4] = {1.0f, 3.0f, 2.0f, 3.0f};
    float p[4];
    float loss = it_softmax_xent_forward(z, 4, 2, p);
    /* by the clause's sequence with m = 3 */
    float e0 = it_expf(1.0f - 3.0f), e1 = it_expf(0.0f), e2 = it_expf(2.0f - 3.0f), e3 = it_expf(0.0f);
    float s = ((((0.0f + e0) + e1) + e2) + e3);
    assert_bits(p[2], B(e2 / s));
    assert_bits(loss, B(it_logf(s) - (2.0f - 3.0f)));
}

Test(reductions, softmax_xent_backward_sequence) /* §5.5 */
{
    const float p[3] = {0.25f, 0.5f, 0.25f};
    float dz[3];
    it_softmax_xent_backward(p, 3, 1, 0x1p-6f, dz);
    assert_bits(dz[0], B(0.25f * 0x1p-6f));
    assert_bits(dz[1], B(-0.5f * 0x1p-6f));
    assert_bits(dz[2], B(0.25f * 0x1p-6f));
}

Test(reductions, subnormal_terms_are_kept) /* §2.2 */
{
    /* 2^-70 * 2^-70 = 2^-140 (subnormal): flushed it would be 0 */
    const float a[1] = {0x1p-70f}, b[1] = {0x1p-70f};
    assert_bits(it_dot(a, b, 1), 0x00000200u);
    /* and a subnormal step survives SGD: 2^-126 - 0.5*2^-127*... */
    float p[1] = {0x1p-126f};
    const float g[1] = {0x1p-126f};
    it_sgd_update(p, g, 1, 0.5f);
    assert_bits(p[0], 0x00400000u, "(2^-126 - 2^-127 = 2^-127, subnormal)");
}

Test(reductions, sgd_is_two_roundings) /* §7.1 */
{
    /* lr*g = (1+2^-12)^2 rounds to 1 + 2^-11 = p, so p - lr*g is +0; a fused
     * multiply-subtract would keep the product's 2^-24 and give -2^-24. */
    float p[1] = {F(0x3f801000u)};
    const float g[1] = {F(0x3f800800u)};
    it_sgd_update(p, g, 1, F(0x3f800800u));
    assert_bits(p[0], 0x00000000u);
}
