/* tanh and its layer (spec §3.4, §5.3, §5.6). */
#include "isotrain.h"
#include "kernels/kernels.h"

/* spec §3.4: tanh is *defined* as this sequence, so every conforming
 * implementation returns the same bits (it is not correctly rounded). exp is
 * only ever called on a non-positive argument, so nothing overflows. */
float it_tanhf(float x)
{
    uint32_t u = it_f32_bits(x);
    uint32_t mag = u & 0x7fffffffu;
    if (mag > 0x7f800000u)
        return x + x; /* NaN: quiet it, class is what the spec compares */
    if (mag < 0x39800000u)
        return x; /* |x| < 2^-12: tanh(x) rounds to x; avoids 1 - e cancelling to 0 */
    float a = it_f32_from_bits(mag);
    float e = it_expf(-(a + a)); /* a + a is exact or +inf; e is in [0, 1) */
    float r = (1.0f - e) / (1.0f + e);
    return (u >> 31) ? -r : r;
}

/* spec §5.3 */
void it_tanh_forward(const float *x, size_t n, float *y) { it_tanhf_array(x, y, n); }

/* spec §5.6: d tanh = 1 - tanh^2, from the forward output y. */
void it_tanh_backward(const float *y, const float *dy, size_t n, float *dx) { it_kernels()->tanh_bwd(y, dy, n, dx); }

void it_tanh_backward_portable(const float *y, const float *dy, size_t n, float *dx)
{
    for (size_t i = 0; i < n; i++) {
        float square = y[i] * y[i];
        float slope = 1.0f - square;
        dx[i] = dy[i] * slope;
    }
}
