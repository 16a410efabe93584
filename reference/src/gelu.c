/* GELU, tanh form (spec §5.16 forward, §5.17 backward): GPT-2's
 * 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) with every rounding
 * written out, on the spec's tanh (§3.4). The constants are bit patterns
 * (§3.5), never computed at run time. */
#include "isotrain.h"
#include "kernels/kernels.h"

#define GELU_C0 0x3f4c422au /* RN(sqrt(2/pi)) = 0.797884583 */
#define GELU_C1 0x3d372713u /* RN(0.044715) */
#define GELU_C3 0x3e095d4fu /* RN(0.134145) = RN(3 * 0.044715), its own constant */

/* §5.16: u = c0 * (x + c1 * ((x * x) * x)); y = (0.5 * x) * (1 + tanh(u)) */
static float gelu_tanh_arg(float x)
{
    float x2 = x * x;
    float x3 = x2 * x;
    float cubic = it_f32_from_bits(GELU_C1) * x3;
    float inner = x + cubic;
    return it_f32_from_bits(GELU_C0) * inner;
}

/* tanh(u(x[i])) for n <= CHUNK elements, the kernel set's tanh over the
 * chunk (lanes are elements: the same bits as it_tanhf on each) */
enum { CHUNK = 256 };
static void tanh_of_args(const float *x, size_t n, float *t)
{
    float u[CHUNK];
    for (size_t i = 0; i < n; i++)
        u[i] = gelu_tanh_arg(x[i]);
    it_kernels()->tanhf_v(u, t, n);
}

void it_gelu_forward(const float *x, size_t n, float *y)
{
    float tc[CHUNK];
    for (size_t i0 = 0; i0 < n; i0 += CHUNK) {
        const size_t m = n - i0 < CHUNK ? n - i0 : CHUNK;
        tanh_of_args(x + i0, m, tc);
        for (size_t c = 0; c < m; c++) {
            const size_t i = i0 + c;
            float t = tc[c];
            float half = 0.5f * x[i];
            float onept = 1.0f + t;
            y[i] = half * onept;
        }
    }
}

/* §5.17: from the forward input x (tanh recomputed, the same bits):
 * left = 0.5 * (1 + t); s = 1 - t * t;
 * right = ((0.5 * x) * s) * (c0 * (1 + c3 * (x * x)));
 * dx = dy * (left + right). */
void it_gelu_backward(const float *x, const float *dy, size_t n, float *dx)
{
    float tc[CHUNK];
    for (size_t i0 = 0; i0 < n; i0 += CHUNK) {
        const size_t m = n - i0 < CHUNK ? n - i0 : CHUNK;
        tanh_of_args(x + i0, m, tc);
        for (size_t c = 0; c < m; c++) {
            const size_t i = i0 + c;
            float t = tc[c];
            float onept = 1.0f + t;
            float left = 0.5f * onept;
            float tt = t * t;
            float sech2 = 1.0f - tt;
            float half = 0.5f * x[i];
            float hs = half * sech2;
            float x2 = x[i] * x[i];
            float poly = it_f32_from_bits(GELU_C3) * x2;
            float dinner = 1.0f + poly;
            float dudx = it_f32_from_bits(GELU_C0) * dinner;
            float right = hs * dudx;
            float slope = left + right;
            dx[i] = dy[i] * slope;
        }
    }
}
