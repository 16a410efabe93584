/* Causal self-attention over a context of T positions (spec §5.18, §5.19):
 * the query at position p attends to the keys 0..p, which is the
 * single-query attention of §5.11/§5.12 over p + 1 keys; the later keys are
 * left out, never given a stand-in score. The gradient of a key or value
 * position is the SUM over the queries that saw it, in ascending query
 * position, from +0.
 *
 * The _scratch forms take their scratch from the caller and never allocate
 * (a training step's, from its workspace); the others allocate it per call. */
#include <stdlib.h>

#include "isotrain.h"

/* q, k, v, z: T x (H*dh), position-major; w: T x H x T, query-major, with
 * w[p][h][t] = +0 for a masked key t > p (layout only: it takes no part in
 * any operation). wp: H*T floats, the H x (p+1) weights of one query. */
void it_causal_attention_forward_scratch(const float *q, const float *k, const float *v, size_t T, size_t H,
                                         size_t dh, float scale, float *w, float *z, float *wp)
{
    const size_t D = H * dh;
    for (size_t p = 0; p < T; p++) {
        it_attention_forward(q + p * D, k, v, p + 1, H, dh, scale, wp, z + p * D);
        for (size_t h = 0; h < H; h++)
            for (size_t t = 0; t < T; t++)
                w[(p * H + h) * T + t] = t <= p ? wp[h * (p + 1) + t] : 0.0f;
    }
}

void it_causal_attention_forward(const float *q, const float *k, const float *v, size_t T, size_t H, size_t dh,
                                 float scale, float *w, float *z)
{
    float *wp = malloc(sizeof(float) * H * T);
    if (!wp)
        abort(); /* no error to return: callers that must report one pass their scratch */
    it_causal_attention_forward_scratch(q, k, v, T, H, dh, scale, w, z, wp);
    free(wp);
}

/* dq of query p is §5.12's dq over keys 0..p; dk[t][j] and dv[t][j] are
 * SUMs over p = t..T-1 ascending of §5.12's per-query dk_t, dv_t.
 * wp: H*T floats; dkp, dvp: T*H*dh floats each (one query's terms). */
void it_causal_attention_backward_scratch(const float *q, const float *k, const float *v, const float *w,
                                          const float *dz, size_t T, size_t H, size_t dh, float scale, float *dq,
                                          float *dk, float *dv, float *wp, float *dkp, float *dvp)
{
    const size_t D = H * dh;
    for (size_t e = 0; e < T * D; e++)
        dk[e] = 0.0f, dv[e] = 0.0f;
    for (size_t p = 0; p < T; p++) {
        for (size_t h = 0; h < H; h++)
            for (size_t t = 0; t <= p; t++)
                wp[h * (p + 1) + t] = w[(p * H + h) * T + t];
        it_attention_backward(q + p * D, k, v, wp, dz + p * D, p + 1, H, dh, scale, dq + p * D, dkp, dvp);
        for (size_t e = 0; e < (p + 1) * D; e++) {
            dk[e] = dk[e] + dkp[e];
            dv[e] = dv[e] + dvp[e];
        }
    }
}

void it_causal_attention_backward(const float *q, const float *k, const float *v, const float *w,
                                  const float *dz, size_t T, size_t H, size_t dh, float scale, float *dq,
                                  float *dk, float *dv)
{
    float *wp = malloc(sizeof(float) * H * T), *dkp = malloc(sizeof(float) * T * H * dh),
          *dvp = malloc(sizeof(float) * T * H * dh);
    if (!wp || !dkp || !dvp)
        abort(); /* as above */
    it_causal_attention_backward_scratch(q, k, v, w, dz, T, H, dh, scale, dq, dk, dv, wp, dkp, dvp);
    free(wp), free(dkp), free(dvp);
}
