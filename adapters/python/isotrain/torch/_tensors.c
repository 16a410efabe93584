/* _tensors.c — an update over a list of tensors in one ctypes call, linked
 * into build/shared/<isa>/libisotrain.so beside the library
 * (mk/torch-conforming.mk). Spec §7.2 is elementwise, so one tensor after
 * the other with the same constants and bias corrections is the same
 * arithmetic as one call per tensor: this only saves the per-call cost
 * (gptchar's AdamW step is 36 tensors in two groups). */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "isotrain.h"

/* §7.2 for count tensors (p[i], g[i], m[i], v[i] of n[i] elements each),
 * one step's bc1 and bc2; returns the first non-zero status of the library,
 * or 0 */
int itt_adamw_tensors(const it_adamw_consts *c, float bc1, float bc2, size_t count, float *const *p,
                      const float *const *g, float *const *m, float *const *v, const size_t *n, unsigned threads)
{
    for (size_t i = 0; i < count; i++) {
        int rc = it_tensor_adamw_update(c, bc1, bc2, p[i], g[i], m[i], v[i], n[i], threads);
        if (rc)
            return rc;
    }
    return 0;
}

/* §8.1 for count tensors one after the other (src[i] of n[i] values): their
 * little-endian bytes, consecutive in dst (the checkpoint's bytes in one
 * call, not one ctypes call a tensor). */
void itt_store_f32le_tensors(size_t count, const float *const *src, const size_t *n, unsigned char *dst)
{
    for (size_t i = 0; i < count; i++) {
        it_store_f32le(src[i], n[i], dst);
        dst += 4 * n[i];
    }
}
