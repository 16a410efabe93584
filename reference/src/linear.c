/* Dot products and the linear layer (spec §4.2, §5.2, §5.7). Every sum runs in
 * ascending index from +0; loops may be reordered only across independent
 * outputs, never inside one sum. */
#include "isotrain.h"

/* spec §4.2 */
#if defined(IT_MUTANT_DOT_PAIRWISE)
/* MUTANT ONLY (spec/mutants.md): a pairwise tree breaks spec §4.2's ascending order. */
static float dot_tree(const float *a, const float *b, size_t n)
{
    if (n == 0)
        return 0.0f;
    if (n == 1)
        return a[0] * b[0];
    size_t h = n / 2;
    return dot_tree(a, b, h) + dot_tree(a + h, b + h, n - h);
}
#endif

float it_dot(const float *a, const float *b, size_t n)
{
#if defined(IT_MUTANT_DOT_REVERSE)
    /* MUTANT ONLY (spec/mutants.md): descending index breaks spec §4.2's ascending order. */
    float acc = 0.0f;
    for (size_t i = n; i-- > 0;)
        acc = acc + a[i] * b[i];
    return acc;
#elif defined(IT_MUTANT_DOT_PAIRWISE)
    return dot_tree(a, b, n);
#elif defined(IT_MUTANT_DOT_HALVES)
    /* MUTANT ONLY (spec/mutants.md): two halves summed apart, as two threads would, break spec §4.2/§4.1. */
    float lo = 0.0f, hi = 0.0f;
    for (size_t i = 0; i < n / 2; i++)
        lo = lo + a[i] * b[i];
    for (size_t i = n / 2; i < n; i++)
        hi = hi + a[i] * b[i];
    return lo + hi;
#else
#ifdef IT_MUTANT_DOT_NEGZERO
    float acc = -0.0f; /* MUTANT ONLY (spec/mutants.md): starting from -0 breaks spec §4.2/§4.4 (start from +0). */
#else
    float acc = 0.0f;
#endif
    for (size_t i = 0; i < n; i++) {
#ifdef IT_MUTANT_FMA_LINEAR
        /* NEGATIVE CONTROL ONLY, never in a real build: conformance/tests
         * builds a mutant with -DIT_MUTANT_FMA_LINEAR (linked with -lm) whose
         * dot product fuses the multiply-add, which spec §2.1 forbids. */
        acc = __builtin_fmaf(a[i], b[i], acc);
#else
        float prod = a[i] * b[i];
        acc = acc + prod;
#endif
    }
    return acc;
#endif
}

/* spec §5.2: the bias joins after the whole dot product. */
void it_linear_forward(const float *W, const float *b, const float *x,
                       size_t in, size_t out, float *y)
{
    for (size_t o = 0; o < out; o++) {
#ifdef IT_MUTANT_BIAS_FIRST
        /* MUTANT ONLY (spec/mutants.md): the sum starts from the bias, breaking spec §5.2 (bias after the dot). */
        float acc = b[o];
        for (size_t i = 0; i < in; i++)
            acc = acc + W[o * in + i] * x[i];
        y[o] = acc;
#else
        y[o] = it_dot(W + o * in, x, in) + b[o];
#endif
    }
}

/* spec §5.7 */
void it_linear_backward(const float *W, const float *x, const float *dy,
                        size_t in, size_t out, float *dW, float *db, float *dx)
{
    for (size_t o = 0; o < out; o++) {
        db[o] = db[o] + dy[o];
        for (size_t i = 0; i < in; i++)
            dW[o * in + i] = dW[o * in + i] + dy[o] * x[i];
    }
    if (!dx)
        return;
    /* dx[i] = sum over ascending o of W[o][i]*dy[o]. Walking o outermost
     * keeps W row-major in memory and still adds each dx[i]'s terms in
     * ascending o: the sums are independent of each other. */
    for (size_t i = 0; i < in; i++)
        dx[i] = 0.0f;
    for (size_t o = 0; o < out; o++)
        for (size_t i = 0; i < in; i++)
            dx[i] = dx[i] + W[o * in + i] * dy[o];
}
