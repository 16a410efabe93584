/* gen_loss.c — fresh cases for softmax_xent (spec §5.4, §5.5) and
 * mlp13k_loss_grad (§11.6): logits near the exp overflow edge, logits far
 * apart (probabilities that underflow), random parameters and batches. */
#include <stdlib.h>
#include <string.h>

#include "fresh/fresh.h"
#include "isotrain.h"

static void softmax_cases(fresh_list *l, fresh_rng *r, int kind)
{
    static const char *const what[3] = {"Typical", "Overflow edge: logits near 88", "Underflow: logits far apart"};
    size_t n = 2 + fresh_below(r, 63);
    float *z = xmalloc(n * sizeof *z), *p = xmalloc(n * sizeof *p), *dz = xmalloc(n * sizeof *dz);
    for (size_t i = 0; i < n; i++) {
        float t = fresh_f32(r, FC_TYPICAL);
        z[i] = kind == 0 ? t : kind == 1 ? 86.0f + t * 0.5f : t * 40.0f;
    }
    unsigned target = fresh_below(r, (uint32_t)n);
    float loss = it_softmax_xent_forward(z, n, target, p);
    sbuf s;
    sbuf_init(&s);
    fresh_kv_f32(&s, "z", z, n);
    sbuf_printf(&s, " target=%u", target);
    value *v = fresh_add(l, "softmax_xent", "softmax_xent_forward", what[kind], sbuf_take(&s));
    fresh_want_f32(&v[0], p, n);
    fresh_want_f32(&v[1], &loss, 1);

    float scale = 1.0f / (float)(1 + fresh_below(r, 64));
    it_softmax_xent_backward(p, n, target, scale, dz);
    sbuf_init(&s);
    fresh_kv_f32(&s, "probs", p, n);
    sbuf_printf(&s, " target=%u", target);
    fresh_kv_f32(&s, "scale", &scale, 1);
    fresh_want_f32(&fresh_add(l, "softmax_xent", "softmax_xent_backward", what[kind], sbuf_take(&s))[0], dz, n);
    free(z), free(p), free(dz);
}

/* kind 0: parameters of an initialised model's scale; 1: large ones (the
 * hidden tanh saturates, the logits spread: probabilities underflow); 2:
 * small ones (nearly uniform probabilities, gradients of every sign). */
static void loss_grad_case(fresh_list *l, fresh_rng *r, int kind)
{
    static const char *const what[3] = {"Typical: random parameters and batch",
                                        "Saturation: large parameters, tanh at +-1, logits far apart",
                                        "small parameters: nearly uniform probabilities"};
    static const float scale[3] = {0.25f, 4.0f, 0.0078125f};
    static float params[IT_MLP13K_NPARAMS], grads[IT_MLP13K_NPARAMS];
    for (size_t i = 0; i < IT_MLP13K_NPARAMS; i++)
        params[i] = it_u32_to_symmetric(fresh_u32(r)) * scale[kind];
    size_t m = 1 + fresh_below(r, 8);
    unsigned char xs[8], ys[8];
    uint64_t xi[8], yi[8];
    for (size_t i = 0; i < m; i++) {
        xs[i] = (unsigned char)fresh_below(r, 256);
        ys[i] = (unsigned char)fresh_below(r, 256);
        xi[i] = xs[i];
        yi[i] = ys[i];
    }
    float loss = it_mlp13k_loss_grad(params, xs, ys, m, grads);
    sbuf s;
    sbuf_init(&s);
    fresh_kv_f32(&s, "params", params, IT_MLP13K_NPARAMS);
    sbuf_adds(&s, " x=");
    encode_ints(&s, xi, m);
    sbuf_adds(&s, " y=");
    encode_ints(&s, yi, m);
    value *v = fresh_add(l, "loss_grad", "mlp13k_loss_grad", what[kind], sbuf_take(&s));
    fresh_want_f32(&v[0], &loss, 1);
    fresh_want_f32(&v[1], grads, IT_MLP13K_NPARAMS);
}

size_t fresh_gen_loss(fresh_list *l, const char *group, fresh_rng *r)
{
    size_t before = l->n;
    /* FRESH_MIN_PER_GROUP or more, the kinds in turn */
    if (!strcmp(group, "softmax_xent"))
        for (int k = 0; l->n - before < FRESH_MIN_PER_GROUP; k++)
            softmax_cases(l, r, k % 3);
    else if (!strcmp(group, "loss_grad"))
        for (int k = 0; k < FRESH_MIN_PER_GROUP; k++)
            loss_grad_case(l, r, k % 3);
    return l->n - before;
}
