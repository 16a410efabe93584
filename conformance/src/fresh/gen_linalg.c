/* gen_linalg.c — fresh cases for dot (spec §4.2), linear (§5.2, §5.7),
 * tanh_backward (§5.6), sgd (§7.1) and embedding (§5.1, §5.8): sums whose
 * result depends on the order (large terms that cancel), products a fused
 * multiply-add would round differently (full 24-bit significands), and
 * products that underflow into subnormals. */
#include <stdlib.h>
#include <string.h>

#include "fresh/fresh.h"
#include "isotrain.h"

/* A vector of n values of one kind: 0 typical, 1 order-sensitive (alternating
 * huge terms that cancel around small ones), 2 full-significand (FMA
 * sensitive), 3 tiny (subnormal products). */
static void fill(fresh_rng *r, float *x, size_t n, int kind)
{
    for (size_t i = 0; i < n; i++) {
        switch (kind) {
        case 1:
            x[i] = i % 3 == 0 ? fresh_f32(r, FC_TYPICAL) * 1.0e7f : fresh_f32(r, FC_TYPICAL);
            break;
        case 2:
            x[i] = it_f32_from_bits(0x3f800000u | (fresh_u32(r) & 0x7fffffu)) *
                   (fresh_u32(r) & 1 ? -1.0f : 1.0f);
            break;
        case 3:
            x[i] = fresh_f32(r, FC_TINY);
            break;
        default:
            x[i] = fresh_f32(r, FC_TYPICAL);
        }
    }
}

static const char *const kinds[5] = {"Typical", "OrderSensitive", "FmaSensitive", "Subnormal (products underflow)",
                                     "SpecialValue: every product -0 (the sum starts from +0, spec §4.2)"};

static void dot_case(fresh_list *l, fresh_rng *r, int kind)
{
    size_t n = 8 + fresh_below(r, 57);
    float *a = xmalloc(n * sizeof *a), *b = xmalloc(n * sizeof *b);
    if (kind == 4) {
        /* ±0 times a number of the other sign, every product -0: the sum is
         * +0 only because it starts from +0 (a sum started from -0 gives -0) */
        for (size_t i = 0; i < n; i++) {
            int neg = fresh_u32(r) & 1;
            a[i] = neg ? -0.0f : 0.0f;
            float m = fresh_f32(r, FC_TYPICAL);
            m = m < 0 ? -m : m;
            b[i] = neg ? (m ? m : 1.0f) : -(m ? m : 1.0f);
        }
    } else {
        fill(r, a, n, kind);
        fill(r, b, n, kind == 1 ? 0 : kind);
    }
    float y = it_dot(a, b, n);
    sbuf s;
    sbuf_init(&s);
    fresh_kv_f32(&s, "a", a, n);
    fresh_kv_f32(&s, "b", b, n);
    fresh_want_f32(&fresh_add(l, "dot", "dot", kinds[kind], sbuf_take(&s))[0], &y, 1);
    free(a);
    free(b);
}

static void linear_cases(fresh_list *l, fresh_rng *r, int kind)
{
    size_t in = 2 + fresh_below(r, 31), out = 1 + fresh_below(r, 16);
    float *w = xmalloc(in * out * sizeof *w), *b = xmalloc(out * sizeof *b), *x = xmalloc(in * sizeof *x);
    float *y = xmalloc(out * sizeof *y), *dy = xmalloc(out * sizeof *dy), *dw = xmalloc(in * out * sizeof *dw);
    float *db = xmalloc(out * sizeof *db), *dx = xmalloc(in * sizeof *dx);
    fill(r, w, in * out, kind);
    fill(r, b, out, 0);
    fill(r, x, in, kind == 1 ? 0 : kind);
    it_linear_forward(w, b, x, in, out, y);
    sbuf s;
    sbuf_init(&s);
    sbuf_printf(&s, "in=%zu out=%zu", in, out);
    fresh_kv_f32(&s, "w", w, in * out);
    fresh_kv_f32(&s, "b", b, out);
    fresh_kv_f32(&s, "x", x, in);
    fresh_want_f32(&fresh_add(l, "linear", "linear_forward", kinds[kind], sbuf_take(&s))[0], y, out);

    fill(r, dy, out, kind);
    fill(r, dw, in * out, 0);
    fill(r, db, out, 0);
    sbuf_init(&s);
    sbuf_printf(&s, "in=%zu out=%zu", in, out);
    fresh_kv_f32(&s, "w", w, in * out);
    fresh_kv_f32(&s, "x", x, in);
    fresh_kv_f32(&s, "dy", dy, out);
    fresh_kv_f32(&s, "dw", dw, in * out);
    fresh_kv_f32(&s, "db", db, out);
    it_linear_backward(w, x, dy, in, out, dw, db, dx);
    value *v = fresh_add(l, "linear", "linear_backward", kinds[kind], sbuf_take(&s));
    fresh_want_f32(&v[0], dw, in * out);
    fresh_want_f32(&v[1], db, out);
    fresh_want_f32(&v[2], dx, in);
    free(w), free(b), free(x), free(y), free(dy), free(dw), free(db), free(dx);
}

static void tanh_backward_case(fresh_list *l, fresh_rng *r, int kind)
{
    enum { N = 24 };
    float y[N], dy[N], dx[N];
    for (int i = 0; i < N; i++)
        y[i] = it_u32_to_symmetric(fresh_u32(r)); /* a tanh output, in [-1, 1) */
    fill(r, dy, N, kind == 1 ? 0 : kind);
    it_tanh_backward(y, dy, N, dx);
    sbuf s;
    sbuf_init(&s);
    fresh_kv_f32(&s, "y", y, N);
    fresh_kv_f32(&s, "dy", dy, N);
    fresh_want_f32(&fresh_add(l, "tanh_backward", "tanh_backward", kinds[kind], sbuf_take(&s))[0], dx, N);
}

static void sgd_case(fresh_list *l, fresh_rng *r, int kind)
{
    enum { N = 32 };
    float p[N], g[N];
    fill(r, p, N, 0);
    fill(r, g, N, kind == 1 ? 0 : kind);
    float lr = it_f32_from_bits(0x3c000000u + (fresh_u32(r) & 0xffffffu)); /* about 0.008 to 0.03 */
    sbuf s;
    sbuf_init(&s);
    fresh_kv_f32(&s, "p", p, N);
    fresh_kv_f32(&s, "g", g, N);
    fresh_kv_f32(&s, "lr", &lr, 1);
    it_sgd_update(p, g, N, lr);
    fresh_want_f32(&fresh_add(l, "sgd", "sgd", kinds[kind], sbuf_take(&s))[0], p, N);
}

/* Repeated tokens make the scatter-add's order visible (§5.8). */
static void embedding_cases(fresh_list *l, fresh_rng *r, int kind)
{
    size_t dim = 1 + fresh_below(r, 16), rows = 2 + fresh_below(r, 14), m = 2 + fresh_below(r, 15);
    float *e = xmalloc(rows * dim * sizeof *e), *out = xmalloc(dim * sizeof *out);
    float *dout = xmalloc(m * dim * sizeof *dout);
    uint64_t *tok = xmalloc(m * sizeof *tok);
    fill(r, e, rows * dim, kind == 1 ? 0 : kind);
    unsigned token = fresh_below(r, (uint32_t)rows);
    it_embedding_forward(e, dim, token, out);
    sbuf s;
    sbuf_init(&s);
    sbuf_printf(&s, "dim=%zu", dim);
    fresh_kv_f32(&s, "e", e, rows * dim);
    sbuf_printf(&s, " token=%u", token);
    fresh_want_f32(&fresh_add(l, "embedding", "embedding_forward", kinds[kind], sbuf_take(&s))[0], out, dim);

    fill(r, dout, m * dim, kind);
    sbuf_init(&s);
    sbuf_printf(&s, "dim=%zu", dim);
    fresh_kv_f32(&s, "de", e, rows * dim);
    for (size_t i = 0; i < m; i++)
        tok[i] = fresh_below(r, (uint32_t)(rows < 3 ? rows : 3)); /* few rows: many repeats */
    sbuf_adds(&s, " tokens=");
    encode_ints(&s, tok, m);
    fresh_kv_f32(&s, "dout", dout, m * dim);
    for (size_t i = 0; i < m; i++)
        it_embedding_backward(e, dim, (unsigned)tok[i], dout + i * dim);
    fresh_want_f32(&fresh_add(l, "embedding", "embedding_backward", kinds[kind], sbuf_take(&s))[0], e, rows * dim);
    free(e), free(out), free(dout), free(tok);
}

size_t fresh_gen_linalg(fresh_list *l, const char *group, fresh_rng *r)
{
    size_t before = l->n;
    /* FRESH_MIN_PER_GROUP or more: the four kinds in turn (linear and
     * embedding add two cases per kind, forward and backward) */
    int n_kinds = !strcmp(group, "dot") ? 5 : 4; /* dot: the signed-zero sum too */
    for (int i = 0; l->n - before < FRESH_MIN_PER_GROUP && (i < n_kinds || l->n > before); i++) {
        int kind = i % n_kinds;
        if (!strcmp(group, "dot"))
            dot_case(l, r, kind);
        else if (!strcmp(group, "linear"))
            linear_cases(l, r, kind);
        else if (!strcmp(group, "tanh_backward"))
            tanh_backward_case(l, r, kind);
        else if (!strcmp(group, "sgd"))
            sgd_case(l, r, kind);
        else if (!strcmp(group, "embedding"))
            embedding_cases(l, r, kind);
    }
    return l->n - before;
}
