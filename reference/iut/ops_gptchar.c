/* The ops of spec 1.2.0 (profile gptchar) for the `ops` verb:
 * spec/iut-protocol.md P5, each computed with the library exactly as its
 * spec clause says. Inputs are parsed and range-checked by the getters of
 * ops_server.c (ops_ctx.h); a request whose answer would pass P3's 4 MiB cap
 * is malformed, like rng_u32's (P5). */
#include <stdlib.h>
#include <string.h>

#include "isotrain.h"
#include "isotrain_profile.h"
#include "ops_ctx.h"

enum { CAUSAL_MAX_T = 64, DIM_MAX = 1u << 20, LINE_CAP = 4194304 };

/* The answer holds `values` 8-hex-digit elements (9 bytes each with their
 * separators) plus keys and the id: refuse what could not fit (P3). */
static int fits(op_ctx *c, uint64_t values)
{
    if (values * 9 + c->id_len + 64 > LINE_CAP)
        return bad(c, "the answer would hold %llu values, more than the 4 MiB response line allows (P3)",
                   (unsigned long long)values);
    return 0;
}

/* §5.13 */
static int op_residual_add(op_ctx *c)
{
    return binary(c, "x", "y", "z", it_residual_add);
}

/* n, x (rows*n), w, b or dy... : the row length and the rows of x */
static int layernorm_rows(op_ctx *c, uint64_t *n, float **x, size_t *rows, float **w, float **eps)
{
    size_t nx, nw, ne;
    if (get_int(c, "n", 1, DIM_MAX, n) != 0 || get_f32s(c, "x", x, &nx) != 0 || get_f32s(c, "w", w, &nw) != 0 ||
        want_len(c, "w", nw, *n, "n") != 0 || get_f32s(c, "eps", eps, &ne) != 0 ||
        want_len(c, "eps", ne, 1, "one value") != 0)
        return -1;
    if (nx % *n != 0)
        return bad(c, "input 'x' has %zu elements: not a whole number of rows of n = %llu", nx,
                   (unsigned long long)*n);
    *rows = nx / *n;
    return 0;
}

/* §5.14, row after row */
static int op_layernorm_forward(op_ctx *c)
{
    uint64_t n;
    size_t rows, nb;
    float *x, *w, *b, *eps, *y, *xhat, *mean, *rstd;
    if (layernorm_rows(c, &n, &x, &rows, &w, &eps) != 0 || get_f32s(c, "b", &b, &nb) != 0 ||
        want_len(c, "b", nb, n, "n") != 0 || !(y = scratch(c, rows * n)) || !(xhat = scratch(c, n)) ||
        !(mean = scratch(c, rows)) || !(rstd = scratch(c, rows)))
        return -1;
    for (size_t r = 0; r < rows; r++)
        it_layernorm_forward(x + r * n, w, b, n, eps[0], y + r * n, xhat, &mean[r], &rstd[r]);
    put_f32s(c, "y", y, rows * n);
    put_f32s(c, "mean", mean, rows);
    put_f32s(c, "rstd", rstd, rows);
    return 0;
}

/* §5.15: xhat and rstd of each row recomputed by §5.14; dw, db accumulate
 * one term per row, rows in the order given */
static int op_layernorm_backward(op_ctx *c)
{
    uint64_t n;
    size_t rows, ndy, ndw, ndb;
    float *x, *w, *eps, *dy, *dw, *db, *y, *xhat, *dx, rstd;
    if (layernorm_rows(c, &n, &x, &rows, &w, &eps) != 0 || get_f32s(c, "dy", &dy, &ndy) != 0 ||
        want_len(c, "dy", ndy, rows * n, "as many as x") != 0 || get_f32s(c, "dw", &dw, &ndw) != 0 ||
        want_len(c, "dw", ndw, n, "n") != 0 || get_f32s(c, "db", &db, &ndb) != 0 ||
        want_len(c, "db", ndb, n, "n") != 0 || !(y = scratch(c, n)) || !(xhat = scratch(c, n)) ||
        !(dx = scratch(c, rows * n)))
        return -1;
    float *zeros = scratch(c, n);
    if (!zeros)
        return -1;
    for (size_t r = 0; r < rows; r++) {
        it_layernorm_forward(x + r * n, w, zeros, n, eps[0], y, xhat, NULL, &rstd);
        it_layernorm_backward(xhat, rstd, w, dy + r * n, n, dw, db, dx + r * n);
    }
    put_f32s(c, "dw", dw, n);
    put_f32s(c, "db", db, n);
    put_f32s(c, "dx", dx, rows * n);
    return 0;
}

static void gelu_array(const float *x, float *y, size_t n) { it_gelu_forward(x, n, y); }

/* §5.16 */
static int op_gelu_forward(op_ctx *c)
{
    return unary(c, gelu_array);
}

/* §5.17 */
static int op_gelu_backward(op_ctx *c)
{
    return binary(c, "x", "dy", "dx", it_gelu_backward);
}

/* heads, width, c, q, k, v: T positions of heads*width each */
static int causal_inputs(op_ctx *c, uint64_t *heads, uint64_t *width, size_t *t, float **cs, float **q, float **k,
                         float **v)
{
    size_t nq, nk, nv;
    if (attention_heads(c, heads, width, cs) != 0 || get_f32s(c, "q", q, &nq) != 0 ||
        get_f32s(c, "k", k, &nk) != 0 || want_len(c, "k", nk, nq, "as many as q") != 0 ||
        get_f32s(c, "v", v, &nv) != 0 || want_len(c, "v", nv, nq, "as many as q") != 0 ||
        attention_rows(c, "q", nq, *heads * *width, CAUSAL_MAX_T, t) != 0)
        return -1;
    return fits(c, *t * *heads * *t + *t * *heads * *width);
}

/* §5.18 */
static int op_causal_attention_forward(op_ctx *c)
{
    uint64_t heads, width;
    size_t t;
    float *cs, *q, *k, *v, *w, *z, *wp;
    if (causal_inputs(c, &heads, &width, &t, &cs, &q, &k, &v) != 0 || !(w = scratch(c, t * heads * t)) ||
        !(z = scratch(c, t * heads * width)) || !(wp = scratch(c, heads * t)))
        return -1;
    it_causal_attention_forward_scratch(q, k, v, t, heads, width, cs[0], w, z, wp);
    put_f32s(c, "w", w, t * heads * t);
    put_f32s(c, "z", z, t * heads * width);
    return 0;
}

/* §5.19 */
static int op_causal_attention_backward(op_ctx *c)
{
    uint64_t heads, width;
    size_t t, nw, ndz;
    float *cs, *q, *k, *v, *w, *dz, *dq, *dk, *dv, *wp, *dkp, *dvp;
    if (causal_inputs(c, &heads, &width, &t, &cs, &q, &k, &v) != 0 || get_f32s(c, "w", &w, &nw) != 0 ||
        want_len(c, "w", nw, t * heads * t, "t*heads*t") != 0 || get_f32s(c, "dz", &dz, &ndz) != 0 ||
        want_len(c, "dz", ndz, t * heads * width, "t*heads*width") != 0 || fits(c, 3 * t * heads * width) != 0 ||
        !(dq = scratch(c, t * heads * width)) || !(dk = scratch(c, t * heads * width)) ||
        !(dv = scratch(c, t * heads * width)) || !(wp = scratch(c, heads * t)) ||
        !(dkp = scratch(c, t * heads * width)) || !(dvp = scratch(c, t * heads * width)))
        return -1;
    it_causal_attention_backward_scratch(q, k, v, w, dz, t, heads, width, cs[0], dq, dk, dv, wp, dkp, dvp);
    put_f32s(c, "dq", dq, t * heads * width);
    put_f32s(c, "dk", dk, t * heads * width);
    put_f32s(c, "dv", dv, t * heads * width);
    return 0;
}

/* §5.20 */
static int op_tied_embedding_grad(op_ctx *c)
{
    uint64_t dim;
    uint32_t *tokens;
    float *f, *dlogits, *dx, *de;
    size_t m, nf, nl, ndx;
    if (get_int(c, "dim", 1, DIM_MAX, &dim) != 0 || get_f32s(c, "f", &f, &nf) != 0 ||
        get_f32s(c, "dlogits", &dlogits, &nl) != 0 || get_ints(c, "tokens", UINT32_MAX, &tokens, &m) != 0 ||
        want_len(c, "f", nf, m * dim, "len(tokens)*dim") != 0 || get_f32s(c, "dx", &dx, &ndx) != 0 ||
        want_len(c, "dx", ndx, m * dim, "len(tokens)*dim") != 0)
        return -1;
    if (nl % m != 0)
        return bad(c, "input 'dlogits' has %zu elements: not len(tokens) = %zu rows", nl, m);
    size_t vocab = nl / m;
    for (size_t r = 0; r < m; r++)
        if (tokens[r] >= vocab)
            return bad(c, "input 'tokens': tokens[%zu] = %u is not below the vocabulary %zu", r, (unsigned)tokens[r],
                       vocab);
    if (fits(c, vocab * dim) != 0 || !(de = scratch(c, vocab * dim)))
        return -1;
    it_tied_embedding_grad(f, dlogits, tokens, dx, m, vocab, dim, de);
    put_f32s(c, "de", de, vocab * dim);
    return 0;
}

/* §7.3 */
static int op_clip_grad_norm(op_ctx *c)
{
    float *g, *mx, *eps;
    size_t n, nm, ne;
    if (get_f32s(c, "g", &g, &n) != 0 || get_f32s(c, "max_norm", &mx, &nm) != 0 ||
        want_len(c, "max_norm", nm, 1, "one value") != 0 || get_f32s(c, "eps", &eps, &ne) != 0 ||
        want_len(c, "eps", ne, 1, "one value") != 0)
        return -1;
    float norm = it_clip_grad_norm(g, n, mx[0], eps[0]);
    put_f32s(c, "g", g, n);
    put_f32s(c, "norm", &norm, 1);
    return 0;
}

/* §7.4: integers below 2^24, so every conversion to binary32 is exact */
static int op_lr_schedule(op_ctx *c)
{
    uint64_t step, warmup, total;
    float *lr_max;
    size_t n;
    if (get_int(c, "total", 1, (1u << 24) - 1, &total) != 0 || get_int(c, "step", 1, total, &step) != 0 ||
        get_int(c, "warmup", 1, total, &warmup) != 0 || get_f32s(c, "lr_max", &lr_max, &n) != 0 ||
        want_len(c, "lr_max", n, 1, "one value") != 0)
        return -1;
    float lr = it_lr_schedule((uint32_t)step, (uint32_t)warmup, (uint32_t)total, lr_max[0]);
    put_f32s(c, "lr", &lr, 1);
    return 0;
}

/* §14.4 (the profile's seed) */
static int op_gptchar_init(op_ctx *c)
{
    return profile_init(c, &it_profile_gptchar);
}

static void put_ints(op_ctx *c, const char *key, const uint32_t *v, size_t n)
{
    wire_put_key(c->resp, key);
    wire_put_ints(c->resp, v, n);
}

/* §14.5 */
static int op_gptchar_batch(op_ctx *c)
{
    uint64_t step;
    if (get_int(c, "step", 1, UINT32_MAX, &step) != 0)
        return -1;
    uint32_t *x = track(c, malloc(sizeof(uint32_t) * IT_GC_ROWS)), *y = x ? track(c, malloc(sizeof(uint32_t) * IT_GC_ROWS)) : NULL;
    if (!y)
        return -1;
    it_gptchar_batch(IT_GC_SEED, (uint32_t)step, x, y);
    put_ints(c, "x", x, IT_GC_ROWS);
    put_ints(c, "y", y, IT_GC_ROWS);
    return 0;
}

/* §14.6 for m sequences (s = RN(1/(32 m))) */
static int op_gptchar_loss_grad(op_ctx *c)
{
    loss_grad_in in;
    if (loss_grad_inputs(c, &it_profile_gptchar, IT_GC_VOCAB, &in) != 0)
        return -1;
    if (in.n % IT_GC_CTX != 0)
        return bad(c, "input 'x' has %zu tokens: not whole sequences of %d", in.n, (int)IT_GC_CTX);
    it_gptchar_work *w = it_gptchar_work_new(in.n / IT_GC_CTX);
    if (!w)
        return bad(c, "out of memory for the activations of %zu sequences", in.n / IT_GC_CTX);
    float loss;
    it_status st = it_gptchar_loss_grad_work(w, in.params, in.x, in.y, in.n / IT_GC_CTX, in.grads, NULL, NULL, &loss);
    it_gptchar_work_free(w);
    if (st != IT_OK)
        return bad(c, "internal: gptchar_loss_grad: %s", it_status_name(st));
    put_f32s(c, "loss", &loss, 1);
    put_f32s(c, "grads", in.grads, IT_GC_NPARAMS);
    return 0;
}

const op_entry gptchar_ops[] = {
    {"residual_add", op_residual_add},
    {"layernorm_forward", op_layernorm_forward},
    {"layernorm_backward", op_layernorm_backward},
    {"gelu_forward", op_gelu_forward},
    {"gelu_backward", op_gelu_backward},
    {"causal_attention_forward", op_causal_attention_forward},
    {"causal_attention_backward", op_causal_attention_backward},
    {"tied_embedding_grad", op_tied_embedding_grad},
    {"clip_grad_norm", op_clip_grad_norm},
    {"lr_schedule", op_lr_schedule},
    {"gptchar_init", op_gptchar_init},
    {"gptchar_batch", op_gptchar_batch},
    {"gptchar_loss_grad", op_gptchar_loss_grad},
};
const size_t n_gptchar_ops = sizeof gptchar_ops / sizeof gptchar_ops[0];
