/* LayerNorm (spec §5.14 forward, §5.15 backward), as in GPT-2: the mean and
 * the variance are ordered SUMs over the row, the variance from the
 * deviations (two passes), eps inside the square root, and one reciprocal
 * 1 / sqrt(var + eps) multiplied into every deviation. */
#include "isotrain.h"

/* §5.14 for one row of n: y[i] = (d[i] * r) * w[i] + b[i], with
 * d[i] = x[i] - mean and r = 1 / sqrt(SUM(d*d) / n + eps). xhat (the
 * normalized row, n values) and *rstd are what the backward needs. */
void it_layernorm_forward(const float *x, const float *w, const float *b, size_t n, float eps, float *y,
                          float *xhat, float *mean, float *rstd)
{
    const float fn = (float)n; /* exact for n < 2^24 */
    float sum = 0.0f;
    for (size_t i = 0; i < n; i++)
        sum = sum + x[i];
    const float mu = sum / fn;
    float sq = 0.0f;
    for (size_t i = 0; i < n; i++) {
        float d = x[i] - mu;
        float dd = d * d;
        sq = sq + dd;
    }
    const float var = sq / fn;
    const float r = 1.0f / it_sqrtf(var + eps);
    for (size_t i = 0; i < n; i++) {
        float d = x[i] - mu;
        float xh = d * r;
        float scaled = xh * w[i];
        xhat[i] = xh;
        y[i] = scaled + b[i];
    }
    if (mean)
        *mean = mu;
    *rstd = r;
}

/* §5.15 for one row, the input side only: with g[i] = dy[i] * w[i],
 * A = SUM(g) / n and C = SUM(g * xhat) / n:
 * dx[i] = ((g[i] - A) - xhat[i] * C) * rstd. (A batched caller sums the
 * parameter side over rows itself: isotrain_reduce.h.) */
void it_layernorm_backward_input(const float *xhat, float rstd, const float *w, const float *dy, size_t n, float *dx)
{
    const float fn = (float)n;
    float sg = 0.0f, sgx = 0.0f;
    for (size_t i = 0; i < n; i++) {
        float g = dy[i] * w[i];
        float gx = g * xhat[i];
        sg = sg + g;
        sgx = sgx + gx;
    }
    const float A = sg / fn, C = sgx / fn;
    for (size_t i = 0; i < n; i++) {
        float g = dy[i] * w[i];
        float centred = g - A;
        float along = xhat[i] * C;
        float diff = centred - along;
        dx[i] = diff * rstd;
    }
}

/* §5.15 for one row: dw[i] += dy[i] * xhat[i], db[i] += dy[i] (one term per
 * row, rows in the caller's order), and dx as above. */
void it_layernorm_backward(const float *xhat, float rstd, const float *w, const float *dy, size_t n, float *dw,
                           float *db, float *dx)
{
    for (size_t i = 0; i < n; i++) {
        float dwi = dy[i] * xhat[i];
        dw[i] = dw[i] + dwi;
        db[i] = db[i] + dy[i];
    }
    it_layernorm_backward_input(xhat, rstd, w, dy, n, dx);
}
