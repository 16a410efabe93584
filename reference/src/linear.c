/* Dot products and the linear layer (spec §4.2, §5.2, §5.7). Every sum runs in
 * ascending index from +0; loops may be reordered only across independent
 * outputs, never inside one sum. */
#include "isotrain.h"

/* spec §4.2 */

float it_dot(const float *a, const float *b, size_t n)
{
    float acc = 0.0f;
    for (size_t i = 0; i < n; i++) {
        float prod = a[i] * b[i];
        acc = acc + prod;
    }
    return acc;
}

/* spec §5.2: the bias joins after the whole dot product. */
void it_linear_forward(const float *W, const float *b, const float *x,
                       size_t in, size_t out, float *y)
{
    for (size_t o = 0; o < out; o++) {
        y[o] = it_dot(W + o * in, x, in) + b[o];
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
