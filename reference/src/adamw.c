/* AdamW (spec §7.2): Loshchilov and Hutter's decoupled weight decay, as a
 * fixed sequence of binary32 operations per element. */
#include "isotrain.h"
#include "kernels/kernels.h"

/* The bias corrections 1 - beta^t come from running products, one rounding
 * per step: powf is not in libc, and a pow that is not correctly rounded
 * would differ between libraries (the `adam-pow` mutant). */
void it_adamw_tick(const it_adamw_consts *c, it_adamw_clock *k, float *bc1, float *bc2)
{
    k->beta1_pow = k->beta1_pow * c->beta1;
    k->beta2_pow = k->beta2_pow * c->beta2;
    k->t++;
    *bc1 = 1.0f - k->beta1_pow;
    *bc2 = 1.0f - k->beta2_pow;
}

void it_adamw_update(const it_adamw_consts *c, float bc1, float bc2, float *p, const float *g, float *m,
                     float *v, size_t n)
{
    it_kernels()->adamw(c, bc1, bc2, p, g, m, v, n);
}

/* The definition; the kernel sets give these bits with the CPU's square
 * root (exact in IEEE 754, spec §3.6). */
void it_adamw_update_portable(const it_adamw_consts *c, float bc1, float bc2, float *p, const float *g, float *m,
                              float *v, size_t n)
{
    for (size_t j = 0; j < n; j++) {
        /* decay first, from the parameter before the step (PyTorch's order) */
        float pj = p[j] * c->decay;
        float m1 = c->beta1 * m[j];
        float m2 = c->one_minus_beta1 * g[j];
        m[j] = m1 + m2;
        float gg = g[j] * g[j];
        float v1 = c->beta2 * v[j];
        float v2 = c->one_minus_beta2 * gg;
        v[j] = v1 + v2;
        float mhat = m[j] / bc1;
        float vhat = v[j] / bc2;
        /* eps outside the root: sqrt(vhat) + eps */
        float denom = it_sqrtf(vhat) + c->eps;
        float ratio = mhat / denom;
        float delta = c->lr * ratio;
        p[j] = pj - delta;
    }
}
