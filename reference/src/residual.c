/* The residual stream (spec §5.13): y = x + branch, elementwise, one
 * rounding; the stream's value is the left operand. */
#include "isotrain.h"

void it_residual_add(const float *x, const float *branch, size_t n, float *y)
{
    for (size_t i = 0; i < n; i++)
        y[i] = x[i] + branch[i];
}
