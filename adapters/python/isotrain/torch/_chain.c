/* _chain.c — a chain of row layers (embedding, linear, tanh, relu; spec §5.1-§5.3,
 * §5.6-§5.10) run forward and backward in one call each, linked into
 * build/shared/<isa>/libisotrain.so beside _rows.c. isotrain.torch.conform
 * fuses such a chain of a model's modules (mlp13k's embed -> fc1 -> tanh -> fc2)
 * into one autograd function, so a step pays two ctypes calls and two autograd
 * nodes where it paid eight of each (issue 31: the per-call cost).
 * Every number is the batched API's (isotrain.h), called op by op in the
 * order the separate autograd functions call it: the same bits. */
#include <stddef.h>
#include <stdint.h>

#include "isotrain.h"

enum { ITT_EMBEDDING = 0, ITT_LINEAR = 1, ITT_TANH = 2, ITT_RELU = 3 };

/* Forward of nops layers over rows. dims[0] is the input width (unused for
 * an embedding, whose input is tok), dims[i + 1] op i's output width; an
 * embedding's vocabulary is vocab[i]. w[i], b[i]: op i's weight and bias (or
 * NULL). acts[i]: op i's output, rows x dims[i + 1]. Returns 0, or the
 * index + 1 of the op the library refused. */
int itt_chain_forward(size_t rows, size_t nops, const int *kind, const size_t *dims, const size_t *vocab,
                      const float *const *w, const float *const *b, const uint32_t *tok, const float *x,
                      float *const *acts, unsigned threads)
{
    for (size_t i = 0; i < nops; i++) {
        const float *in = i ? acts[i - 1] : x;
        size_t ni = dims[i], no = dims[i + 1];
        int rc = -1;
        switch (kind[i]) {
        case ITT_EMBEDDING:
            rc = i ? -1 : it_rows_embedding_forward(rows, no, vocab[i], w[i], tok, acts[i], no, threads);
            break;
        case ITT_LINEAR:
            rc = it_rows_linear_forward(rows, ni, no, in, ni, w[i], b[i], acts[i], no, threads);
            break;
        case ITT_TANH:
            rc = it_rows_tanh_forward(rows, no, in, ni, acts[i], no, threads);
            break;
        case ITT_RELU:
            rc = it_rows_relu_forward(rows, no, in, ni, acts[i], no, threads);
            break;
        }
        if (rc != 0)
            return (int)i + 1;
    }
    return 0;
}

/* Backward from dy (rows x dims[nops]): dw[i], db[i] (zeroed by the caller,
 * or NULL for an op without them) get the fresh gradient sums of §5.7/§5.8;
 * dx (rows x dims[0], or NULL) the input's gradient (not for an embedding).
 * g0, g1: scratch of rows x max(dims) floats each, the gradient handed from
 * one op to the one before it. Each op's gradient is computed as its own
 * autograd backward computes it (dX, then dW and db, from the same dY). */
int itt_chain_backward(size_t rows, size_t nops, const int *kind, const size_t *dims, const size_t *vocab,
                       const float *const *w, const uint32_t *tok, const float *x, const float *const *acts,
                       const float *dy, float *const *dw, float *const *db, float *dx, float *g0, float *g1,
                       unsigned threads)
{
    const float *g = dy;
    for (size_t i = nops; i-- > 0;) {
        const float *in = i ? acts[i - 1] : x;
        size_t ni = dims[i], no = dims[i + 1];
        float *out = i ? (g == g0 ? g1 : g0) : dx;  /* where dX goes: scratch, or the caller's dx */
        int rc = 0;
        switch (kind[i]) {
        case ITT_EMBEDDING:
            rc = i ? -1 : it_rows_embedding_backward(rows, no, vocab[i], tok, g, no, dw[i], threads);
            out = NULL;
            break;
        case ITT_LINEAR:
            if (out)
                rc = it_rows_linear_backward_input(rows, ni, no, g, no, w[i], out, ni, threads);
            if (rc == 0 && dw[i])
                rc = it_rows_linear_backward_params(rows, ni, no, g, no, in, ni, dw[i], db[i], threads);
            break;
        case ITT_TANH:
            if (out)
                rc = it_rows_tanh_backward(rows, no, acts[i], no, g, no, out, ni, threads);
            break;
        case ITT_RELU:
            if (out)
                rc = it_rows_relu_backward(rows, no, in, ni, g, no, out, ni, threads);
            break;
        default:
            rc = -1;
        }
        if (rc != 0)
            return (int)i + 1;
        if (!out)
            break;  /* op 0 and no input gradient wanted */
        g = out;
    }
    return 0;
}
