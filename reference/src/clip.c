/* Global-norm gradient clipping (spec §7.3), as PyTorch's
 * clip_grad_norm_ orders it: the norm of the whole gradient, one SUM of
 * squares over every element in checkpoint order (tensor by tensor, each
 * row-major), the correctly rounded square root (§3.6); then, when
 * max / (norm + eps) < 1, every element times that factor. */
#include "isotrain.h"

float it_clip_grad_norm_tensors(size_t count, float *const *g, const size_t *n, float max_norm, float eps)
{
    float ss = 0.0f; /* one SUM: tensor after tensor, element after element */
    for (size_t i = 0; i < count; i++)
        for (size_t j = 0; j < n[i]; j++) {
            float sq = g[i][j] * g[i][j];
            ss = ss + sq;
        }
    const float norm = it_sqrtf(ss);
    const float denom = norm + eps;
    const float k = max_norm / denom;
    if (k < 1.0f) /* IEEE comparison: a NaN factor leaves g alone */
        for (size_t i = 0; i < count; i++)
            for (size_t j = 0; j < n[i]; j++)
                g[i][j] = g[i][j] * k;
    return norm;
}

float it_clip_grad_norm(float *g, size_t n, float max_norm, float eps)
{
    return it_clip_grad_norm_tensors(1, &g, &n, max_norm, eps);
}
