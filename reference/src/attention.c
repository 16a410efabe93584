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
 * dk_{t,h}[j] = ds[t]*q_h[j]; dv_{t,h}[j] = w[t]*dz_h[j].
 * T is any length (§5.19 calls this with p + 1 keys for every query of a
 * context of up to 2,048, spec §16.2), so nothing here is sized by T: dw[t]
 * waits for c in dk's own first element of key t (written over right after
 * it is read), and each dq_h[j] is its SUM over t ascending from +0 kept in
 * dq itself, the same additions in the same order as a separate
 * accumulator. dq, dk and dv must not overlap the inputs. */
void it_attention_backward(const float *q, const float *k, const float *v, const float *w, const float *dz,
                           size_t T, size_t H, size_t dh, float scale, float *dq, float *dk, float *dv)
{
    const size_t D = H * dh;
    for (size_t h = 0; h < H; h++) {
        const float *wh = w + h * T, *dzh = dz + h * dh;
        float c = 0.0f;
        for (size_t t = 0; t < T; t++) {
            float dw = it_dot(dzh, v + t * D + h * dh, dh);
            dk[t * D + h * dh] = dw;
            c = c + wh[t] * dw;
        }
        float *dqh = dq + h * dh;
        for (size_t j = 0; j < dh; j++)
            dqh[j] = 0.0f;
        for (size_t t = 0; t < T; t++) {
            float *dkt = dk + t * D + h * dh, *dvt = dv + t * D + h * dh;
            float diff = dkt[0] - c;
            float dsoft = wh[t] * diff;
            float ds = dsoft * scale;
            const float *kt = k + t * D + h * dh;
            for (size_t j = 0; j < dh; j++)
                dqh[j] = dqh[j] + ds * kt[j];
            for (size_t j = 0; j < dh; j++) {
                dkt[j] = ds * q[h * dh + j];
                dvt[j] = wh[t] * dzh[j];
            }
        }
    }
}
