/* The embedding lookup and its scatter-add gradient (spec §5.1, §5.8). */
#include "isotrain.h"

void it_embedding_forward(const float *E, size_t dim, unsigned token, float *out)
{
    for (size_t i = 0; i < dim; i++)
        out[i] = E[(size_t)token * dim + i];
}

/* spec §5.8: called once per position in ascending position order, so each
 * row's gradient is the ascending-position sum of its positions' terms. */
void it_embedding_backward(float *dE, size_t dim, unsigned token, const float *dout)
{
    for (size_t i = 0; i < dim; i++)
        dE[(size_t)token * dim + i] = dE[(size_t)token * dim + i] + dout[i];
}
