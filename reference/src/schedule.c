/* The learning-rate schedule (spec §7.4): linear warm-up over the first
 * `warmup` steps, then linear decay over the rest of `total` steps, each as
 * one product of lr_max and a quotient of two small integers (both exact in
 * binary32). No cosine: it would need another correctly rounded function
 * (§3.5). */
#include "isotrain.h"

float it_lr_schedule(uint32_t t, uint32_t warmup, uint32_t total, float lr_max)
{
    if (t == 0 || t > total)
        return 0.0f; /* no update at these steps (§7.4) */
    float frac;
    if (t <= warmup)
        frac = (float)t / (float)warmup;
    else
        frac = (float)(total + 1 - t) / (float)(total + 1 - warmup);
    return lr_max * frac;
}
