/* Softmax with cross-entropy for one position (spec §5.4, §5.5). */
#include "isotrain.h"

/* spec §5.4: shift by the maximum so exp only sees non-positive arguments,
 * and take the loss as log(S) - (z[t] - m) rather than -log(p[t]) so a tiny
 * probability does not lose its bits to a division first. */
float it_softmax_xent_forward(const float *logits, size_t n, unsigned target, float *probs)
{
    const float zt = logits[target]; /* read first: probs may be logits (in place) */
    float m = logits[0];
    for (size_t k = 1; k < n; k++)
        if (logits[k] > m)
            m = logits[k];
    float sum = 0.0f;
    for (size_t k = 0; k < n; k++) {
        probs[k] = it_expf(logits[k] - m);
        sum = sum + probs[k];
    }
    for (size_t k = 0; k < n; k++)
        probs[k] = probs[k] / sum;
    return it_logf(sum) - (zt - m);
}

/* spec §5.5: d(scale * loss)/dz[k] = (p[k] - [k == target]) * scale. */
void it_softmax_xent_backward(const float *probs, size_t n, unsigned target, float scale,
                              float *dlogits)
{
    for (size_t k = 0; k < n; k++) {
        float diff = k == target ? probs[k] - 1.0f : probs[k];
        dlogits[k] = diff * scale;
    }
}
