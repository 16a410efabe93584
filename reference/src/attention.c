/* ReLU and single-query causal attention (spec §5.9-§5.12), the layers that
 * profile addmod113 adds to those of §5. */
#include "isotrain.h"
#include "kernels/kernels.h"

/* §5.9: x <= 0 (IEEE; -0 included) gives +0; everything else, NaN included,
 * passes unchanged, so a NaN still reaches the checks of §10. */
void it_relu_forward(const float *x, size_t n, float *y) { it_kernels()->relu_fwd(x, n, y); }

void it_relu_forward_portable(const float *x, size_t n, float *y)
{
    for (size_t i = 0; i < n; i++)
        y[i] = x[i] <= 0.0f ? 0.0f : x[i];
}

/* §5.10: a selection, not a product: dy * 0 would be -0 for a negative dy. */
void it_relu_backward(const float *x, const float *dy, size_t n, float *dx) { it_kernels()->relu_bwd(x, dy, n, dx); }

void it_relu_backward_portable(const float *x, const float *dy, size_t n, float *dx)
{
    for (size_t i = 0; i < n; i++)
        dx[i] = x[i] > 0.0f ? dy[i] : 0.0f;
}

/* §5.11. For head h: s[t] = dot(q_h, k_{t,h}) * scale; w = softmax(s) as
 * §5.4 steps 1-4 (max scan, exp of the differences, SUM, division);
 * z_h[j] = SUM over t of w[t] * v_{t,h}[j]. The exps of every head go to
 * the kernel set in one call (lanes are different elements, each
 * correctly rounded: the same bits as one it_expf each). */
void it_attention_forward(const float *q, const float *k, const float *v, size_t T, size_t H, size_t dh,
                          float scale, float *w, float *z)
{
    const size_t D = H * dh;
    for (size_t h = 0; h < H; h++) {
        float *wh = w + h * T;
        for (size_t t = 0; t < T; t++)
            wh[t] = it_dot(q + h * dh, k + t * D + h * dh, dh) * scale;
        float mx = wh[0];
        for (size_t t = 1; t < T; t++)
            if (wh[t] > mx)
                mx = wh[t];
        for (size_t t = 0; t < T; t++)
            wh[t] = wh[t] - mx;
    }
    it_kernels()->expf_v(w, w, H * T, 1);
    for (size_t h = 0; h < H; h++) {
        float *wh = w + h * T;
        float S = 0.0f;
        for (size_t t = 0; t < T; t++)
            S = S + wh[t];
        for (size_t t = 0; t < T; t++)
            wh[t] = wh[t] / S;
        for (size_t j = 0; j < dh; j++) {
            float acc = 0.0f;
            for (size_t t = 0; t < T; t++)
                acc = acc + wh[t] * v[t * D + h * dh + j];
            z[h * dh + j] = acc;
        }
    }
}

/* §5.12: dw[t] = dot(dz_h, v_{t,h}); c = SUM_t w[t]*dw[t];
 * ds[t] = (w[t] * (dw[t] - c)) * scale; dq_h[j] = SUM_t ds[t]*k_{t,h}[j];
 * dk_{t,h}[j] = ds[t]*q_h[j]; dv_{t,h}[j] = w[t]*dz_h[j]. */
void it_attention_backward(const float *q, const float *k, const float *v, const float *w, const float *dz,
                           size_t T, size_t H, size_t dh, float scale, float *dq, float *dk, float *dv)
{
    const size_t D = H * dh;
    float dw[64], ds[64]; /* T <= 64 (addmod113 uses 3, gptchar up to 32) */
    for (size_t h = 0; h < H; h++) {
        const float *wh = w + h * T, *dzh = dz + h * dh;
        float c = 0.0f;
        for (size_t t = 0; t < T; t++) {
            dw[t] = it_dot(dzh, v + t * D + h * dh, dh);
            c = c + wh[t] * dw[t];
        }
        for (size_t t = 0; t < T; t++) {
            float diff = dw[t] - c;
            float dsoft = wh[t] * diff;
            ds[t] = dsoft * scale;
        }
        for (size_t j = 0; j < dh; j++) {
            float acc = 0.0f;
            for (size_t t = 0; t < T; t++)
                acc = acc + ds[t] * k[t * D + h * dh + j];
            dq[h * dh + j] = acc;
        }
        for (size_t t = 0; t < T; t++)
            for (size_t j = 0; j < dh; j++) {
                dk[t * D + h * dh + j] = ds[t] * q[h * dh + j];
                dv[t * D + h * dh + j] = wh[t] * dzh[j];
            }
    }
}
