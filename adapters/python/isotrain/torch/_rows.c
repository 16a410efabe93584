/* _rows.c — row and sequence loops over isotrain.h's one-row entry points
 * (spec §5.14, §5.15 LayerNorm; §5.18, §5.19 causal attention), linked into
 * build/shared/<isa>/libisotrain.so beside the library (mk/torch-conforming.mk)
 * so that isotrain.torch pays one ctypes call per layer instead of one per
 * row (512 rows x 10 LayerNorm calls a gptchar step). Pointer arithmetic
 * only: every number is the library's, the rows in ascending order, which
 * is also §5.15's order for the gain and bias gradient terms.
 * isotrain.h has no batched LayerNorm or multi-sequence causal attention;
 * these belong there (reported in issue 31).
 *
 * The training path calls the selected kernel set (kernels/kernels.h, the
 * table the reference's own gptchar step calls: SIMD lanes across rows,
 * positions or elements, never inside a sum; every set gives the portable
 * set's bits, which the reference's tests prove per set) instead of the
 * portable one-row definitions: measured on gptchar through nanogpt.py,
 * the portable row loops were most of isotrain.torch's cost over the C
 * reference (adapters/python/README.md "Cost"). The `ops` verb keeps the
 * one-row definitions (a mean asked for). */
#include <stddef.h>
#include <stdint.h>

#include "isotrain.h"
#include "kernels/kernels.h"

/* §5.14 on rows x n, row-major: y, xhat (rows x n), rstd (rows); mean
 * (rows) when not NULL, then row by row through the one-row definition
 * (the kernel set does not return the mean). */
void itt_rows_layernorm_forward(size_t rows, size_t n, const float *x, const float *w, const float *b, float eps,
                                float *y, float *xhat, float *mean, float *rstd)
{
    if (!mean) {
        it_kernels()->layernorm_fwd(rows, n, x, w, b, eps, y, xhat, rstd);
        return;
    }
    for (size_t r = 0; r < rows; r++)
        it_layernorm_forward(x + r * n, w, b, n, eps, y + r * n, xhat + r * n, mean + r, rstd + r);
}

/* §5.15 on rows x n: dw, db continued one row after the other, dx written.
 * The kernel set writes dx and the terms dy * xhat of a block of rows; the
 * terms are then added into dw (and dy into db) row after row, ascending:
 * the one-row definition's order (it_layernorm_backward). */
enum { LN_BLOCK = 8192 };
void itt_rows_layernorm_backward(size_t rows, size_t n, const float *xhat, const float *rstd, const float *w,
                                 const float *dy, float *dw, float *db, float *dx)
{
    float terms[LN_BLOCK];
    const size_t per = n && n <= LN_BLOCK ? LN_BLOCK / n : 0;
    for (size_t r0 = 0; r0 < rows;) {
        if (!per) { /* a row wider than the block: the one-row definition */
            it_layernorm_backward(xhat + r0 * n, rstd[r0], w, dy + r0 * n, n, dw, db, dx + r0 * n);
            r0++;
            continue;
        }
        const size_t m = rows - r0 < per ? rows - r0 : per;
        it_kernels()->layernorm_bwd(m, n, xhat + r0 * n, rstd + r0, w, dy + r0 * n, dx + r0 * n, terms);
        for (size_t r = 0; r < m; r++)
            for (size_t i = 0; i < n; i++) {
                dw[i] = dw[i] + terms[r * n + i];
                db[i] = db[i] + dy[(r0 + r) * n + i];
            }
        r0 += m;
    }
}

/* §5.16 over n elements, keeping tanh(u(x)) in t for the backward */
void itt_gelu_forward_keep(const float *x, size_t n, float *y, float *t)
{
    it_kernels()->gelu_fwd(x, n, y, t);
}

/* §5.17 over n elements from the forward's x and its kept t (the same bits
 * as recomputing tanh, which the portable set does) */
void itt_gelu_backward_kept(const float *x, const float *t, const float *dy, size_t n, float *dx)
{
    it_kernels()->gelu_bwd(x, t, dy, n, dx);
}

/* §5.18 for nseq sequences of T positions (q, k, v, z: nseq x T x H*dh; w: nseq x T x H x T);
 * wp: H*T floats of scratch. */
void itt_seqs_causal_attention_forward(size_t nseq, size_t T, size_t H, size_t dh, float scale, const float *q,
                                       const float *k, const float *v, float *w, float *z, float *wp)
{
    size_t so = T * H * dh, sw = T * H * T;
    for (size_t s = 0; s < nseq; s++)
        it_kernels()->causal_fwd(q + s * so, k + s * so, v + s * so, T, H, dh, scale, w + s * sw, z + s * so, wp);
}

/* §5.19 per sequence; wp: H*T, dkp and dvp: T*H*dh floats of scratch. */
void itt_seqs_causal_attention_backward(size_t nseq, size_t T, size_t H, size_t dh, float scale, const float *q,
                                        const float *k, const float *v, const float *w, const float *dz, float *dq,
                                        float *dk, float *dv, float *wp, float *dkp, float *dvp)
{
    size_t so = T * H * dh, sw = T * H * T;
    for (size_t s = 0; s < nseq; s++)
        it_kernels()->causal_bwd(q + s * so, k + s * so, v + s * so, w + s * sw, dz + s * so, T, H, dh, scale,
                                 dq + s * so, dk + s * so, dv + s * so, wp, dkp, dvp);
}

/* §6.2, §6.4 for count consecutive words: out[j] = it_u32_below(word(seed, stream,
 * index + j), n) (n = 0: the words themselves). A batch's positions in one call. */
void itt_rng_below(uint64_t seed, uint32_t stream, uint64_t index, size_t count, uint32_t n, uint32_t *out)
{
    for (size_t j = 0; j < count; j++) {
        uint32_t r = it_rng_u32(seed, stream, index + j);
        out[j] = n ? it_u32_below(r, n) : r;
    }
}

/* Index tensors (torch.long) to the library's uint32 tokens: dst[j] = src[j]
 * for every j when all of them lie in [0, bound); else returns j + 1 for the
 * first one outside (nothing else is meaningful in dst). Integers only. */
size_t itt_indices_i64(const int64_t *src, size_t n, int64_t bound, uint32_t *dst)
{
    for (size_t j = 0; j < n; j++) {
        if (src[j] < 0 || src[j] >= bound)
            return j + 1;
        dst[j] = (uint32_t)src[j];
    }
    return 0;
}
