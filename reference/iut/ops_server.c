/* `isotrain ops`: the reference side of the IUT line protocol
 * (spec/iut-protocol.md P3-P6). Each request is parsed strictly (wire.c),
 * computed with the library exactly as the op's spec clause says, and
 * answered on one flushed line. A request that cannot be served gets
 * `id=<id> error=bad-request` and a reason on stderr; the server itself
 * never stops before end of input. */
#include "ops_server.h"
#include "ops_ctx.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "isotrain.h"
#include "isotrain_profile.h"
#include "wire.h"

enum { EXIT_IO = 4 };

int bad(op_ctx *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->err, sizeof c->err, fmt, ap);
    va_end(ap);
    return -1;
}

/* Keeps p to be freed after the request; NULL (with a message) when p is
 * NULL or the table is full. */
void *track(op_ctx *c, void *p)
{
    if (!p) {
        bad(c, "out of memory");
        return NULL;
    }
    if (c->n_allocs == MAX_ALLOCS) {
        free(p);
        bad(c, "internal: too many buffers for one request");
        return NULL;
    }
    c->allocs[c->n_allocs++] = p;
    return p;
}

static void release(op_ctx *c)
{
    for (size_t i = 0; i < c->n_allocs; i++)
        free(c->allocs[i]);
    c->n_allocs = 0;
}

/* n zeroed floats that live until the end of the request. */
float *scratch(op_ctx *c, size_t n)
{
    return track(c, calloc(n ? n : 1, sizeof(float)));
}

static const wire_kv *need(op_ctx *c, const char *key)
{
    const wire_kv *kv = wire_find(c->req, key);
    if (!kv)
        bad(c, "missing input '%s'", key);
    return kv;
}

/* Each getter reports its own errors as "input 'key': ...". */
#define PREFIXED(c, key, call)                                                       \
    do {                                                                             \
        char sub_[400];                                                              \
        if ((call) != 0)                                                             \
            return bad((c), "input '%s': %s", (key), sub_);                          \
    } while (0)

int get_u32s(op_ctx *c, const char *key, uint32_t **v, size_t *n)
{
    const wire_kv *kv = need(c, key);
    if (!kv)
        return -1;
    PREFIXED(c, key, wire_parse_hex32s(kv->val, kv->val_len, v, n, sub_, sizeof sub_));
    return track(c, *v) ? 0 : -1;
}

int get_f32s(op_ctx *c, const char *key, float **v, size_t *n)
{
    uint32_t *u;
    if (get_u32s(c, key, &u, n) != 0)
        return -1;
    float *f = scratch(c, *n);
    if (!f)
        return -1;
    for (size_t i = 0; i < *n; i++)
        f[i] = it_f32_from_bits(u[i]);
    *v = f;
    return 0;
}

int get_int(op_ctx *c, const char *key, uint64_t min, uint64_t max, uint64_t *v)
{
    const wire_kv *kv = need(c, key);
    if (!kv)
        return -1;
    PREFIXED(c, key, wire_parse_int(kv->val, kv->val_len, max, v, sub_, sizeof sub_));
    if (*v < min)
        return bad(c, "input '%s': %llu is too small (at least %llu)", key, (unsigned long long)*v,
                   (unsigned long long)min);
    return 0;
}

int get_ints(op_ctx *c, const char *key, uint64_t max, uint32_t **v, size_t *n)
{
    const wire_kv *kv = need(c, key);
    if (!kv)
        return -1;
    PREFIXED(c, key, wire_parse_ints(kv->val, kv->val_len, max, v, n, sub_, sizeof sub_));
    return track(c, *v) ? 0 : -1;
}

int get_u64(op_ctx *c, const char *key, uint64_t *v)
{
    const wire_kv *kv = need(c, key);
    if (!kv)
        return -1;
    PREFIXED(c, key, wire_parse_u64(kv->val, kv->val_len, v, sub_, sizeof sub_));
    return 0;
}

const wire_kv *get_name(op_ctx *c, const char *key)
{
    const wire_kv *kv = need(c, key);
    if (!kv)
        return NULL;
    char sub[400];
    if (wire_parse_name(kv->val, kv->val_len, sub, sizeof sub) != 0) {
        bad(c, "input '%s': %s", key, sub);
        return NULL;
    }
    return kv;
}

int name_is(const wire_kv *kv, const char *s)
{
    return kv->val_len == strlen(s) && memcmp(kv->val, s, kv->val_len) == 0;
}

/* The array under key has n elements; P5 says it must have `want` (why). */
int want_len(op_ctx *c, const char *key, size_t n, uint64_t want, const char *why)
{
    if ((uint64_t)n != want)
        return bad(c, "input '%s' has %zu elements, expected %llu (%s)", key, n, (unsigned long long)want, why);
    return 0;
}

void put_f32s(op_ctx *c, const char *key, const float *v, size_t n)
{
    wire_put_key(c->resp, key);
    wire_put_f32s(c->resp, v, n);
}

void put_u32s(op_ctx *c, const char *key, const uint32_t *v, size_t n)
{
    wire_put_key(c->resp, key);
    wire_put_hex32s(c->resp, v, n);
}

/* <profile>_init (P5): the step-0 values of one tensor of the profile's
 * row (spec §N.2: its tensors, §N.4: their init under the profile's seed) */
int profile_init(op_ctx *c, const it_profile *p)
{
    const wire_kv *t = get_name(c, "tensor");
    if (!t)
        return -1;
    const it_tensor_info *info = NULL;
    char names[320] = "";
    size_t len = 0;
    for (size_t i = 0; i < p->ntensors; i++) {
        if (name_is(t, p->tensors[i].name))
            info = &p->tensors[i];
        if (len < sizeof names)
            len += (size_t)snprintf(names + len, sizeof names - len, "%s%s", i ? ", " : "", p->tensors[i].name);
    }
    if (!info)
        return bad(c, "input 'tensor': '%.*s' is not a tensor of %s (spec %s.2: %s)", (int)t->val_len, t->val,
                   p->name, p->clause, names);
    float *params = scratch(c, p->nparams);
    if (!params)
        return -1;
    it_tensors_init(p->tensors, p->ntensors, p->seed, params);
    put_f32s(c, "values", params + info->offset, info->rows * info->cols);
    return 0;
}

/* <profile>_loss_grad's inputs (P5): params (the row's), tokens x and
 * targets y below vocab, one target per input; grads zeroed for the row */
int loss_grad_inputs(op_ctx *c, const it_profile *p, uint32_t vocab, loss_grad_in *in)
{
    size_t np, ny;
    char why[96];
    snprintf(why, sizeof why, "the %zu parameters of %s", p->nparams, p->name);
    if (get_f32s(c, "params", &in->params, &np) != 0 || want_len(c, "params", np, p->nparams, why) != 0 ||
        get_ints(c, "x", vocab - 1, &in->x, &in->n) != 0 || get_ints(c, "y", vocab - 1, &in->y, &ny) != 0 ||
        want_len(c, "y", ny, in->n, "one target per input") != 0 || !(in->grads = scratch(c, p->nparams)))
        return -1;
    return 0;
}

/* heads, width and c (one value), the inputs every attention op begins with
 * (heads*width at most 2^16) */
enum { ATT_MAX_HW = 1u << 16 };
int attention_heads(op_ctx *c, uint64_t *heads, uint64_t *width, float **cs)
{
    size_t nc;
    if (get_int(c, "heads", 1, ATT_MAX_HW, heads) != 0 || get_int(c, "width", 1, ATT_MAX_HW, width) != 0)
        return -1;
    uint64_t hw = *heads * *width;
    if (hw > ATT_MAX_HW)
        return bad(c, "heads*width = %llu is above %u", (unsigned long long)hw, (unsigned)ATT_MAX_HW);
    if (get_f32s(c, "c", cs, &nc) != 0 || want_len(c, "c", nc, 1, "one value") != 0)
        return -1;
    return 0;
}

/* the n elements of input `key` are t rows of hw, 1 <= t <= max_t */
int attention_rows(op_ctx *c, const char *key, size_t n, uint64_t hw, unsigned max_t, size_t *t)
{
    if (n % hw != 0 || n / hw < 1 || n / hw > max_t)
        return bad(c, "input '%s' has %zu elements: not t*heads*width with 1 <= t <= %u", key, n, max_t);
    *t = n / hw;
    return 0;
}

/* ---- the ops of P5, in table order ------------------------------------------- */

/* Through the array forms, so the op vectors certify the kernel set in use. */
int unary(op_ctx *c, void (*f)(const float *, float *, size_t))
{
    float *x, *y;
    size_t n;
    if (get_f32s(c, "x", &x, &n) != 0 || !(y = scratch(c, n)))
        return -1;
    f(x, y, n);
    put_f32s(c, "y", y, n);
    return 0;
}

/* out = f(a, b), element by element: a and b of one length (P5) */
int binary(op_ctx *c, const char *a, const char *b, const char *out,
           void (*f)(const float *, const float *, size_t, float *))
{
    float *x, *y, *z;
    size_t n, ny;
    char why[64];
    snprintf(why, sizeof why, "as many as %s", a);
    if (get_f32s(c, a, &x, &n) != 0 || get_f32s(c, b, &y, &ny) != 0 || want_len(c, b, ny, n, why) != 0 ||
        !(z = scratch(c, n)))
        return -1;
    f(x, y, n, z);
    put_f32s(c, out, z, n);
    return 0;
}

static int op_exp(op_ctx *c) { return unary(c, it_expf_array); }
static int op_log(op_ctx *c) { return unary(c, it_logf_array); }
static int op_tanh(op_ctx *c) { return unary(c, it_tanhf_array); }

static int op_dot(op_ctx *c)
{
    float *a, *b;
    size_t na, nb;
    if (get_f32s(c, "a", &a, &na) != 0 || get_f32s(c, "b", &b, &nb) != 0 ||
        want_len(c, "b", nb, na, "as many as a"))
        return -1;
    float y = it_dot(a, b, na);
    put_f32s(c, "y", &y, 1);
    return 0;
}

static int op_linear_forward(op_ctx *c)
{
    uint64_t in, out;
    float *w, *b, *x, *y;
    size_t nw, nb, nx;
    if (get_int(c, "in", 1, UINT32_MAX, &in) != 0 || get_int(c, "out", 1, UINT32_MAX, &out) != 0 ||
        get_f32s(c, "w", &w, &nw) != 0 || want_len(c, "w", nw, in * out, "out*in") != 0 ||
        get_f32s(c, "b", &b, &nb) != 0 || want_len(c, "b", nb, out, "out") != 0 ||
        get_f32s(c, "x", &x, &nx) != 0 || want_len(c, "x", nx, in, "in") != 0 || !(y = scratch(c, nb)))
        return -1;
    it_linear_forward(w, b, x, nx, nb, y);
    put_f32s(c, "y", y, nb);
    return 0;
}

static int op_linear_backward(op_ctx *c)
{
    uint64_t in, out;
    float *w, *x, *dy, *dw, *db, *dx;
    size_t nw, nx, ndy, ndw, ndb;
    if (get_int(c, "in", 1, UINT32_MAX, &in) != 0 || get_int(c, "out", 1, UINT32_MAX, &out) != 0 ||
        get_f32s(c, "w", &w, &nw) != 0 || want_len(c, "w", nw, in * out, "out*in") != 0 ||
        get_f32s(c, "x", &x, &nx) != 0 || want_len(c, "x", nx, in, "in") != 0 ||
        get_f32s(c, "dy", &dy, &ndy) != 0 || want_len(c, "dy", ndy, out, "out") != 0 ||
        get_f32s(c, "dw", &dw, &ndw) != 0 || want_len(c, "dw", ndw, in * out, "out*in") != 0 ||
        get_f32s(c, "db", &db, &ndb) != 0 || want_len(c, "db", ndb, out, "out") != 0 || !(dx = scratch(c, nx)))
        return -1;
    it_linear_backward(w, x, dy, nx, ndy, dw, db, dx);
    put_f32s(c, "dw", dw, ndw);
    put_f32s(c, "db", db, ndb);
    put_f32s(c, "dx", dx, nx);
    return 0;
}

static int op_tanh_backward(op_ctx *c) { return binary(c, "y", "dy", "dx", it_tanh_backward); }

static int op_softmax_xent_forward(op_ctx *c)
{
    float *z, *probs;
    size_t n;
    uint64_t target;
    if (get_f32s(c, "z", &z, &n) != 0 || get_int(c, "target", 0, (uint64_t)n - 1, &target) != 0 ||
        !(probs = scratch(c, n)))
        return -1;
    float loss = it_softmax_xent_forward(z, n, (unsigned)target, probs);
    put_f32s(c, "probs", probs, n);
    put_f32s(c, "loss", &loss, 1);
    return 0;
}

static int op_softmax_xent_backward(op_ctx *c)
{
    float *probs, *scale, *dz;
    size_t n, ns;
    uint64_t target;
    if (get_f32s(c, "probs", &probs, &n) != 0 || get_int(c, "target", 0, (uint64_t)n - 1, &target) != 0 ||
        get_f32s(c, "scale", &scale, &ns) != 0 || want_len(c, "scale", ns, 1, "one value") != 0 ||
        !(dz = scratch(c, n)))
        return -1;
    it_softmax_xent_backward(probs, n, (unsigned)target, scale[0], dz);
    put_f32s(c, "dz", dz, n);
    return 0;
}

/* dim and a flat table of rows*dim values; *rows is derived. */
static int get_table(op_ctx *c, const char *key, uint64_t *dim, float **e, size_t *rows)
{
    size_t n;
    if (get_int(c, "dim", 1, UINT32_MAX, dim) != 0 || get_f32s(c, key, e, &n) != 0)
        return -1;
    if ((uint64_t)n % *dim != 0)
        return bad(c, "input '%s' has %zu elements, not a multiple of dim=%llu (rows*dim)", key, n,
                   (unsigned long long)*dim);
    *rows = n / (size_t)*dim;
    return 0;
}

static int op_embedding_forward(op_ctx *c)
{
    uint64_t dim, token;
    float *e, *out;
    size_t rows;
    if (get_table(c, "e", &dim, &e, &rows) != 0 || get_int(c, "token", 0, (uint64_t)rows - 1, &token) != 0 ||
        !(out = scratch(c, (size_t)dim)))
        return -1;
    it_embedding_forward(e, (size_t)dim, (unsigned)token, out);
    put_f32s(c, "out", out, (size_t)dim);
    return 0;
}

static int op_embedding_backward(op_ctx *c)
{
    uint64_t dim;
    float *de, *dout;
    uint32_t *tokens;
    size_t rows, m, nd;
    if (get_table(c, "de", &dim, &de, &rows) != 0 || get_ints(c, "tokens", (uint64_t)rows - 1, &tokens, &m) != 0 ||
        get_f32s(c, "dout", &dout, &nd) != 0 || want_len(c, "dout", nd, (uint64_t)m * dim, "m*dim") != 0)
        return -1;
    for (size_t p = 0; p < m; p++)
        it_embedding_backward(de, (size_t)dim, tokens[p], dout + p * (size_t)dim);
    put_f32s(c, "de", de, rows * (size_t)dim);
    return 0;
}

static int op_sgd(op_ctx *c)
{
    float *p, *g, *lr;
    size_t np, ng, nlr;
    if (get_f32s(c, "p", &p, &np) != 0 || get_f32s(c, "g", &g, &ng) != 0 ||
        want_len(c, "g", ng, np, "as many as p") != 0 || get_f32s(c, "lr", &lr, &nlr) != 0 ||
        want_len(c, "lr", nlr, 1, "one value") != 0)
        return -1;
    it_sgd_update(p, g, np, lr[0]);
    put_f32s(c, "p", p, np);
    return 0;
}

static int op_philox(op_ctx *c)
{
    uint32_t *ctr, *key, out[4];
    size_t nc, nk;
    if (get_u32s(c, "ctr", &ctr, &nc) != 0 || want_len(c, "ctr", nc, 4, "four counter words") != 0 ||
        get_u32s(c, "key", &key, &nk) != 0 || want_len(c, "key", nk, 2, "two key words") != 0)
        return -1;
    it_philox4x32_10(ctr, key, out);
    put_u32s(c, "out", out, 4);
    return 0;
}

static int op_rng_u32(op_ctx *c)
{
    uint64_t seed, stream, index, count;
    /* P5: the answer "id=<id> r=<count words>" is 9*count + len(id) + 5
     * bytes and P3 caps it at 4 MiB; checked before anything is allocated,
     * since count alone could ask for 16 GiB */
    const uint64_t max_count = (WIRE_MAX_LINE - 5 - c->id_len) / 9;
    if (get_u64(c, "seed", &seed) != 0 || get_int(c, "stream", 0, UINT32_MAX, &stream) != 0 ||
        get_u64(c, "index", &index) != 0 || get_int(c, "count", 1, UINT32_MAX, &count) != 0)
        return -1;
    if (count > max_count)
        return bad(c,
                   "input 'count': %llu words would not fit in a 4 MiB response line (at most %llu with an id "
                   "of %zu bytes: 9*count + len(id) + 5 <= 4194304)",
                   (unsigned long long)count, (unsigned long long)max_count, c->id_len);
    if (count - 1 > UINT64_MAX - index)
        return bad(c, "words index..index+count-1 run past 2^64-1 (index %016llx, count %llu)",
                   (unsigned long long)index, (unsigned long long)count);
    uint32_t *r = track(c, malloc((size_t)count * sizeof *r));
    if (!r)
        return -1;
    for (uint64_t i = 0; i < count; i++)
        r[i] = it_rng_u32(seed, (uint32_t)stream, index + i);
    put_u32s(c, "r", r, (size_t)count);
    return 0;
}

static int op_u32_to_symmetric(op_ctx *c)
{
    uint32_t *r;
    float *y;
    size_t n;
    if (get_u32s(c, "r", &r, &n) != 0 || !(y = scratch(c, n)))
        return -1;
    for (size_t i = 0; i < n; i++)
        y[i] = it_u32_to_symmetric(r[i]);
    put_f32s(c, "y", y, n);
    return 0;
}

static int op_u32_below(op_ctx *c)
{
    uint32_t *r;
    size_t n;
    uint64_t bound;
    /* n = 0 would ask for a value in the empty range [0, 0) */
    if (get_u32s(c, "r", &r, &n) != 0 || get_int(c, "n", 1, UINT32_MAX, &bound) != 0)
        return -1;
    for (size_t i = 0; i < n; i++)
        r[i] = it_u32_below(r[i], (uint32_t)bound);
    put_u32s(c, "k", r, n);
    return 0;
}

static int op_mlp13k_init(op_ctx *c)
{
    return profile_init(c, &it_profile_mlp13k);
}

static int op_mlp13k_batch(op_ctx *c)
{
    uint64_t step;
    if (get_int(c, "step", 1, UINT32_MAX, &step) != 0)
        return -1;
    unsigned char xs[IT_MLP13K_BATCH], ys[IT_MLP13K_BATCH];
    uint32_t x[IT_MLP13K_BATCH], y[IT_MLP13K_BATCH];
    it_mlp13k_recipe r = it_mlp13k_default_recipe();
    it_mlp13k_batch(&r, (uint32_t)step, xs, ys);
    for (int i = 0; i < IT_MLP13K_BATCH; i++) {
        x[i] = xs[i];
        y[i] = ys[i];
    }
    wire_put_key(c->resp, "x");
    wire_put_ints(c->resp, x, IT_MLP13K_BATCH);
    wire_put_key(c->resp, "y");
    wire_put_ints(c->resp, y, IT_MLP13K_BATCH);
    return 0;
}

static int op_mlp13k_loss_grad(op_ctx *c)
{
    loss_grad_in in;
    if (loss_grad_inputs(c, &it_profile_mlp13k, IT_MLP13K_VOCAB, &in) != 0)
        return -1;
    unsigned char *xs = track(c, malloc(in.n)), *ys = xs ? track(c, malloc(in.n)) : NULL;
    if (!ys)
        return -1;
    for (size_t p = 0; p < in.n; p++) {
        xs[p] = (unsigned char)in.x[p];
        ys[p] = (unsigned char)in.y[p];
    }
    float loss = it_mlp13k_loss_grad(in.params, xs, ys, in.n, in.grads);
    put_f32s(c, "loss", &loss, 1);
    put_f32s(c, "grads", in.grads, IT_MLP13K_NPARAMS);
    return 0;
}

/* ---- profile addmod113's ops (P5, 1.1.0) ------------------------------------------ */

/* spec §3.6 through the kernel set in use (the CPU's IEEE square root in the
 * SIMD sets, the integer it_sqrtf in portable): the op vectors certify the
 * sqrt every set's AdamW uses */
static void sqrt_array(const float *x, float *y, size_t n) { it_sqrtf_array(x, y, n); }

static int op_sqrt(op_ctx *c) { return unary(c, sqrt_array); }

static void relu_array(const float *x, float *y, size_t n) { it_relu_forward(x, n, y); }

static int op_relu_forward(op_ctx *c) { return unary(c, relu_array); }

static int op_relu_backward(op_ctx *c) { return binary(c, "x", "dy", "dx", it_relu_backward); }

/* heads, width, c, q, k, v with P5's lengths; t = len(k) / (heads*width) */
enum { ATT_MAX_T = 16 };
static int attention_inputs(op_ctx *c, uint64_t *heads, uint64_t *width, size_t *t, float **cs, float **q, float **k,
                            float **v)
{
    size_t nq, nk, nv;
    if (attention_heads(c, heads, width, cs) != 0 || get_f32s(c, "q", q, &nq) != 0 ||
        want_len(c, "q", nq, *heads * *width, "heads*width") != 0 || get_f32s(c, "k", k, &nk) != 0 ||
        get_f32s(c, "v", v, &nv) != 0 || want_len(c, "v", nv, nk, "as many as k") != 0)
        return -1;
    return attention_rows(c, "k", nk, *heads * *width, ATT_MAX_T, t);
}

static int op_attention_forward(op_ctx *c)
{
    uint64_t heads, width;
    size_t t;
    float *cs, *q, *k, *v, *w, *z;
    if (attention_inputs(c, &heads, &width, &t, &cs, &q, &k, &v) != 0 || !(w = scratch(c, heads * t)) ||
        !(z = scratch(c, heads * width)))
        return -1;
    it_attention_forward(q, k, v, t, heads, width, cs[0], w, z);
    put_f32s(c, "w", w, heads * t);
    put_f32s(c, "z", z, heads * width);
    return 0;
}

static int op_attention_backward(op_ctx *c)
{
    uint64_t heads, width;
    size_t t, nw, ndz;
    float *cs, *q, *k, *v, *w, *dz, *dq, *dk, *dv;
    if (attention_inputs(c, &heads, &width, &t, &cs, &q, &k, &v) != 0 || get_f32s(c, "w", &w, &nw) != 0 ||
        want_len(c, "w", nw, heads * t, "heads*t") != 0 || get_f32s(c, "dz", &dz, &ndz) != 0 ||
        want_len(c, "dz", ndz, heads * width, "heads*width") != 0 || !(dq = scratch(c, heads * width)) ||
        !(dk = scratch(c, t * heads * width)) || !(dv = scratch(c, t * heads * width)))
        return -1;
    it_attention_backward(q, k, v, w, dz, t, heads, width, cs[0], dq, dk, dv);
    put_f32s(c, "dq", dq, heads * width);
    put_f32s(c, "dk", dk, t * heads * width);
    put_f32s(c, "dv", dv, t * heads * width);
    return 0;
}

/* spec §7.2 at step t: the running products are advanced t times first.
 * hyper = (lr, beta1, beta2, eps, decay), decay being 1 - lr*weight_decay. */
enum { ADAMW_MAX_T = 1000000 };
static int op_adamw(op_ctx *c)
{
    float *p, *g, *m, *v, *k;
    size_t np, ng, nm, nv, nk;
    uint64_t t;
    if (get_f32s(c, "p", &p, &np) != 0 || get_f32s(c, "g", &g, &ng) != 0 ||
        want_len(c, "g", ng, np, "as many as p") != 0 || get_f32s(c, "m", &m, &nm) != 0 ||
        want_len(c, "m", nm, np, "as many as p") != 0 || get_f32s(c, "v", &v, &nv) != 0 ||
        want_len(c, "v", nv, np, "as many as p") != 0 || get_int(c, "t", 1, ADAMW_MAX_T, &t) != 0 ||
        get_f32s(c, "hyper", &k, &nk) != 0 || want_len(c, "hyper", nk, 5, "lr, beta1, beta2, eps, decay") != 0)
        return -1;
    it_adamw_consts ac = {k[0], k[1], k[2], k[3], k[4], 1.0f - k[1], 1.0f - k[2]};
    it_adamw_clock clock = {1.0f, 1.0f, 0};
    float bc1 = 0.0f, bc2 = 0.0f;
    for (uint64_t s = 0; s < t; s++)
        it_adamw_tick(&ac, &clock, &bc1, &bc2);
    it_adamw_update(&ac, bc1, bc2, p, g, m, v, np);
    put_f32s(c, "p", p, np);
    put_f32s(c, "m", m, np);
    put_f32s(c, "v", v, np);
    return 0;
}

static int op_addmod113_perm(op_ctx *c)
{
    uint64_t seed;
    if (get_u64(c, "seed", &seed) != 0)
        return -1;
    uint32_t *perm = track(c, malloc(sizeof(uint32_t) * IT_AM_PAIRS));
    if (!perm)
        return -1;
    it_addmod113_permutation(seed, perm);
    put_u32s(c, "perm", perm, IT_AM_PAIRS);
    return 0;
}

static int op_addmod113_init(op_ctx *c)
{
    return profile_init(c, &it_profile_addmod113);
}

static int op_addmod113_loss_grad(op_ctx *c)
{
    float *params, *grads;
    uint32_t *pairs;
    size_t np, m;
    if (get_f32s(c, "params", &params, &np) != 0 ||
        want_len(c, "params", np, IT_AM_NPARAMS, "the 226,688 parameters of addmod113") != 0 ||
        get_u32s(c, "pairs", &pairs, &m) != 0 || !(grads = scratch(c, IT_AM_NPARAMS)))
        return -1;
    for (size_t i = 0; i < m; i++)
        if (pairs[i] >= IT_AM_PAIRS)
            return bad(c, "input 'pairs': pairs[%zu] = %u is not below 12769", i, (unsigned)pairs[i]);
    float loss = it_addmod113_loss_grad(params, pairs, m, grads, 1);
    put_f32s(c, "loss", &loss, 1);
    put_f32s(c, "grads", grads, IT_AM_NPARAMS);
    return 0;
}

/* P5.1: SHA-256 of the little-endian results, NaN canonicalized. */
static void sweep_digest(void (*f)(const float *, float *, size_t), uint32_t lo, uint64_t count,
                         unsigned char digest[32])
{
    enum { BLOCK = 4096 };
    unsigned char bytes[4 * BLOCK];
    float xs[BLOCK], ys[BLOCK];
    it_sha256_ctx ctx;
    it_sha256_init(&ctx);
    for (uint64_t done = 0; done < count;) {
        size_t m = count - done < BLOCK ? (size_t)(count - done) : BLOCK;
        for (size_t k = 0; k < m; k++)
            xs[k] = it_f32_from_bits((uint32_t)(lo + done + k));
        f(xs, ys, m);
        for (size_t k = 0; k < m; k++)
            if ((it_f32_bits(ys[k]) & 0x7fffffffu) > 0x7f800000u)
                ys[k] = it_f32_from_bits(0x7fc00000u);
        it_store_f32le(ys, m, bytes);
        it_sha256_update(&ctx, bytes, 4 * m);
        done += m;
    }
    it_sha256_final(&ctx, digest);
}

static int op_sweep(op_ctx *c)
{
    const wire_kv *fn = get_name(c, "fn");
    uint32_t *lo;
    size_t nlo;
    uint64_t count;
    /* P5.1: 1..2^32 (a sweep of nothing checks nothing; 2^32 is every input) */
    if (!fn || get_u32s(c, "lo", &lo, &nlo) != 0 || want_len(c, "lo", nlo, 1, "one bit pattern") != 0 ||
        get_int(c, "count", 1, (uint64_t)1 << 32, &count) != 0)
        return -1;
    void (*f)(const float *, float *, size_t) = name_is(fn, "exp")   ? it_expf_array
                                                : name_is(fn, "log") ? it_logf_array
                                                                     : NULL;
    if (!f)
        return bad(c, "input 'fn': '%.*s' cannot be swept (exp or log)", (int)fn->val_len, fn->val);
    if ((uint64_t)lo[0] + count > (uint64_t)1 << 32)
        return bad(c, "lo %08x + count %llu runs past 2^32 (sweeps do not wrap)", (unsigned)lo[0],
                   (unsigned long long)count);
    if (count > c->max_sweep_count)
        return bad(c, "input 'count': %llu is above this server's limit of %llu (a fuzzing build)",
                   (unsigned long long)count, (unsigned long long)c->max_sweep_count);
    unsigned char d[32];
    char hex[65];
    sweep_digest(f, lo[0], count, d);
    it_hex(d, 32, hex);
    wire_put_key(c->resp, "sha256");
    wire_put_str(c->resp, hex);
    return 0;
}

static const op_entry OPS[] = {
    {"exp", op_exp},
    {"log", op_log},
    {"tanh", op_tanh},
    {"dot", op_dot},
    {"linear_forward", op_linear_forward},
    {"linear_backward", op_linear_backward},
    {"tanh_backward", op_tanh_backward},
    {"softmax_xent_forward", op_softmax_xent_forward},
    {"softmax_xent_backward", op_softmax_xent_backward},
    {"embedding_forward", op_embedding_forward},
    {"embedding_backward", op_embedding_backward},
    {"sgd", op_sgd},
    {"philox", op_philox},
    {"rng_u32", op_rng_u32},
    {"u32_to_symmetric", op_u32_to_symmetric},
    {"u32_below", op_u32_below},
    {"mlp13k_init", op_mlp13k_init},
    {"mlp13k_batch", op_mlp13k_batch},
    {"mlp13k_loss_grad", op_mlp13k_loss_grad},
    {"sweep", op_sweep},
    {"sqrt", op_sqrt},
    {"relu_forward", op_relu_forward},
    {"relu_backward", op_relu_backward},
    {"attention_forward", op_attention_forward},
    {"attention_backward", op_attention_backward},
    {"adamw", op_adamw},
    {"addmod113_perm", op_addmod113_perm},
    {"addmod113_init", op_addmod113_init},
    {"addmod113_loss_grad", op_addmod113_loss_grad},
};

static const size_t n_ops = sizeof OPS / sizeof OPS[0];

/* every op table, in the order of the spec versions that brought them */
static const struct {
    const op_entry *ops;
    const size_t *n;
} TABLES[] = {{OPS, &n_ops}, {gptchar_ops, &n_gptchar_ops}};

static const op_entry *find_op(const char *name, size_t len)
{
    for (size_t t = 0; t < sizeof TABLES / sizeof TABLES[0]; t++)
        for (size_t i = 0; i < *TABLES[t].n; i++)
            if (strlen(TABLES[t].ops[i].name) == len && memcmp(TABLES[t].ops[i].name, name, len) == 0)
                return &TABLES[t].ops[i];
    return NULL;
}

/* ---- the request loop ------------------------------------------------------------ */

/* Replaces whatever was built with "id=<id> error=<what>". */
static void answer_error(wire_buf *resp, const char *id, size_t id_len, const char *what)
{
    wire_buf_reset(resp);
    wire_put_key(resp, "id");
    wire_put_bytes(resp, id, id_len);
    wire_put_key(resp, "error");
    wire_put_str(resp, what);
}

static void bad_request(wire_buf *resp, FILE *diag, const char *id, size_t id_len, const char *why)
{
    answer_error(resp, id, id_len, "bad-request");
    fprintf(diag, "isotrain ops: id=%.*s: bad request: %s\n", (int)(id_len > 80 ? 80 : id_len), id, why);
}

/* Answers one line (already read) into resp. */
static void handle(const char *line, size_t len, wire_line_status st, wire_tokens *toks, wire_buf *resp,
                   FILE *diag, uint64_t max_sweep_count)
{
    size_t id_len = 1;
    const char *id = wire_leading_id(line, len, &id_len);
    if (!id) {
        /* P3: a line without a readable id (none, malformed, or longer than
         * WIRE_MAX_ID) is answered as id=?, which keeps every error line short */
        id = "?";
        id_len = 1;
    }
    if (st == WIRE_LINE_TOO_LONG) {
        bad_request(resp, diag, id, id_len, "line longer than 4 MiB (4194304 bytes before the newline)");
        return;
    }
    if (st == WIRE_LINE_UNTERMINATED) {
        bad_request(resp, diag, id, id_len, "last line has no terminating newline");
        return;
    }
    char err[512];
    if (wire_split(line, len, toks, err, sizeof err) != 0) {
        bad_request(resp, diag, id, id_len, err);
        return;
    }
    const wire_kv *first = &toks->kv[0];
    if (first->key_len != 2 || memcmp(first->key, "id", 2) != 0 || first->val_len == 0) {
        bad_request(resp, diag, id, id_len, "the first token must be id=<case id>");
        return;
    }
    if (first->val_len > WIRE_MAX_ID) {
        char why[96];
        snprintf(why, sizeof why, "the id has %zu bytes (at most %d)", first->val_len, WIRE_MAX_ID);
        bad_request(resp, diag, id, id_len, why);
        return;
    }
    if (toks->n < 2 || toks->kv[1].key_len != 2 || memcmp(toks->kv[1].key, "op", 2) != 0) {
        bad_request(resp, diag, id, id_len, "the second token must be op=<op name>");
        return;
    }
    const wire_kv *op = &toks->kv[1];
    if (wire_parse_name(op->val, op->val_len, err, sizeof err) != 0) {
        bad_request(resp, diag, id, id_len, err);
        return;
    }
    const op_entry *entry = find_op(op->val, op->val_len);
    if (entry) {
        op_ctx c;
        c.req = toks;
        c.resp = resp;
        c.id_len = id_len;
        c.max_sweep_count = max_sweep_count;
        c.err[0] = '\0';
        c.n_allocs = 0;
        wire_buf_reset(resp);
        wire_put_key(resp, "id");
        wire_put_bytes(resp, id, id_len);
        int rc = entry->fn(&c);
        release(&c);
        if (rc != 0)
            bad_request(resp, diag, id, id_len, c.err);
        else if (resp->failed) {
            answer_error(resp, id, id_len, "out-of-memory");
            fprintf(diag, "isotrain ops: id=%.*s: out of memory for the response\n", (int)(id_len > 80 ? 80 : id_len),
                    id);
        } else if (resp->len > WIRE_MAX_LINE) {
            char why[128];
            snprintf(why, sizeof why, "the response would be %zu bytes, over the 4 MiB line limit", resp->len);
            bad_request(resp, diag, id, id_len, why);
        }
        return;
    }
    answer_error(resp, id, id_len, "unsupported");
    fprintf(diag, "isotrain ops: id=%.*s: unsupported op '%.*s'\n", (int)(id_len > 80 ? 80 : id_len), id,
            (int)op->val_len, op->val);
}

int it_ops_serve(FILE *in, FILE *out, FILE *diag) { return it_ops_serve_limited(in, out, diag, (uint64_t)1 << 32); }

int it_ops_serve_limited(FILE *in, FILE *out, FILE *diag, uint64_t max_sweep_count)
{
    char *line = malloc(WIRE_MAX_LINE);
    if (!line) {
        fprintf(diag, "isotrain ops: out of memory for the line buffer\n");
        return EXIT_IO;
    }
    wire_tokens toks;
    wire_buf resp;
    wire_tokens_init(&toks);
    wire_buf_init(&resp);
    int status = 0;
    for (;;) {
        size_t len;
        wire_line_status st = wire_read_line(in, line, WIRE_MAX_LINE, &len);
        if (st == WIRE_LINE_EOF)
            break;
        if (st == WIRE_LINE_READ_ERROR) {
            fprintf(diag, "isotrain ops: cannot read the request stream\n");
            status = EXIT_IO;
            break;
        }
        handle(line, len, st, &toks, &resp, diag, max_sweep_count);
        if (resp.failed || fwrite(resp.p, 1, resp.len, out) != resp.len || putc('\n', out) == EOF ||
            fflush(out) != 0) {
            fprintf(diag, "isotrain ops: cannot write a response\n");
            status = EXIT_IO;
            break;
        }
        if (st == WIRE_LINE_UNTERMINATED)
            break; /* it ended at end of input */
    }
    wire_buf_free(&resp);
    wire_tokens_free(&toks);
    free(line);
    return status;
}
