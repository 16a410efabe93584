/* spec §7.1: plain SGD, two roundings per parameter (lr*g, then p - that). */
#include "isotrain.h"
#include "kernels/kernels.h"

void it_sgd_update(float *p, const float *g, size_t n, float lr) { it_kernels()->sgd(p, g, n, lr); }

void it_sgd_update_portable(float *p, const float *g, size_t n, float lr)
{
    for (size_t i = 0; i < n; i++) {
        float delta = lr * g[i];
        p[i] = p[i] - delta;
    }
}
