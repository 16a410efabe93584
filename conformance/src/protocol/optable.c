/* optable.c — spec/iut-protocol.md P5, the operation table. */
#include "protocol/optable.h"

#include <stdio.h>
#include <string.h>

#include "isotrain.h"

#define F(k, t, l) {k, t, l}

/* P5, row by row. u32_below's array length is called `len` here because P5
 * writes it `n`, the same letter as its int input n (the bound). */
const op_def op_table[] = {
    {"exp", "3.2", {F("x", VT_F32, "n")}, 1, {F("y", VT_F32, "n")}, 1},
    {"log", "3.3", {F("x", VT_F32, "n")}, 1, {F("y", VT_F32, "n")}, 1},
    {"tanh", "3.4", {F("x", VT_F32, "n")}, 1, {F("y", VT_F32, "n")}, 1},
    {"dot", "4.2", {F("a", VT_F32, "n"), F("b", VT_F32, "n")}, 2, {F("y", VT_F32, "1")}, 1},
    {"linear_forward", "5.2",
     {F("in", VT_INT, NULL), F("out", VT_INT, NULL), F("w", VT_F32, "out*in"), F("b", VT_F32, "out"),
      F("x", VT_F32, "in")}, 5,
     {F("y", VT_F32, "out")}, 1},
    {"linear_backward", "5.7",
     {F("in", VT_INT, NULL), F("out", VT_INT, NULL), F("w", VT_F32, "out*in"), F("x", VT_F32, "in"),
      F("dy", VT_F32, "out"), F("dw", VT_F32, "out*in"), F("db", VT_F32, "out")}, 7,
     {F("dw", VT_F32, "out*in"), F("db", VT_F32, "out"), F("dx", VT_F32, "in")}, 3},
    {"tanh_backward", "5.6", {F("y", VT_F32, "n"), F("dy", VT_F32, "n")}, 2, {F("dx", VT_F32, "n")}, 1},
    {"softmax_xent_forward", "5.4", {F("z", VT_F32, "n"), F("target", VT_INT, NULL)}, 2,
     {F("probs", VT_F32, "n"), F("loss", VT_F32, "1")}, 2},
    {"softmax_xent_backward", "5.5",
     {F("probs", VT_F32, "n"), F("target", VT_INT, NULL), F("scale", VT_F32, "1")}, 3,
     {F("dz", VT_F32, "n")}, 1},
    {"embedding_forward", "5.1",
     {F("dim", VT_INT, NULL), F("e", VT_F32, "rows*dim"), F("token", VT_INT, NULL)}, 3,
     {F("out", VT_F32, "dim")}, 1},
    {"embedding_backward", "5.8",
     {F("dim", VT_INT, NULL), F("de", VT_F32, "rows*dim"), F("tokens", VT_INTS, "m"),
      F("dout", VT_F32, "m*dim")}, 4,
     {F("de", VT_F32, "rows*dim")}, 1},
    {"sgd", "7.1", {F("p", VT_F32, "n"), F("g", VT_F32, "n"), F("lr", VT_F32, "1")}, 3,
     {F("p", VT_F32, "n")}, 1},
    {"philox", "6.1", {F("ctr", VT_U32, "4"), F("key", VT_U32, "2")}, 2, {F("out", VT_U32, "4")}, 1},
    {"rng_u32", "6.2",
     {F("seed", VT_U64, NULL), F("stream", VT_INT, NULL), F("index", VT_U64, NULL), F("count", VT_INT, NULL)}, 4,
     {F("r", VT_U32, "count")}, 1},
    {"u32_to_symmetric", "6.3", {F("r", VT_U32, "n")}, 1, {F("y", VT_F32, "n")}, 1},
    {"u32_below", "6.4", {F("r", VT_U32, "len"), F("n", VT_INT, NULL)}, 2, {F("k", VT_U32, "len")}, 1},
    {"mlp13k_init", "11.4", {F("tensor", VT_NAME, NULL)}, 1, {F("values", VT_F32, "@tensor")}, 1},
    {"mlp13k_batch", "11.5", {F("step", VT_INT, NULL)}, 1, {F("x", VT_INTS, "64"), F("y", VT_INTS, "64")}, 2},
    {"mlp13k_loss_grad", "11.6",
     {F("params", VT_F32, "13088"), F("x", VT_INTS, "m"), F("y", VT_INTS, "m")}, 3,
     {F("loss", VT_F32, "1"), F("grads", VT_F32, "13088")}, 2},
    {"sweep", "P5.1", {F("fn", VT_NAME, NULL), F("lo", VT_U32, "1"), F("count", VT_INT, NULL)}, 3,
     {F("sha256", VT_SHA256, NULL)}, 1},
    /* 1.1.0: profile addmod113 */
    {"sqrt", "3.6", {F("x", VT_F32, "n")}, 1, {F("y", VT_F32, "n")}, 1},
    {"relu_forward", "5.9", {F("x", VT_F32, "n")}, 1, {F("y", VT_F32, "n")}, 1},
    {"relu_backward", "5.10", {F("x", VT_F32, "n"), F("dy", VT_F32, "n")}, 2, {F("dx", VT_F32, "n")}, 1},
    {"attention_forward", "5.11",
     {F("heads", VT_INT, NULL), F("width", VT_INT, NULL), F("c", VT_F32, "1"), F("q", VT_F32, "heads*width"),
      F("k", VT_F32, "t*heads*width"), F("v", VT_F32, "t*heads*width")}, 6,
     {F("w", VT_F32, "heads*t"), F("z", VT_F32, "heads*width")}, 2},
    {"attention_backward", "5.12",
     {F("heads", VT_INT, NULL), F("width", VT_INT, NULL), F("c", VT_F32, "1"), F("q", VT_F32, "heads*width"),
      F("k", VT_F32, "t*heads*width"), F("v", VT_F32, "t*heads*width"), F("w", VT_F32, "heads*t"),
      F("dz", VT_F32, "heads*width")}, 8,
     {F("dq", VT_F32, "heads*width"), F("dk", VT_F32, "t*heads*width"), F("dv", VT_F32, "t*heads*width")}, 3},
    {"adamw", "7.2",
     {F("p", VT_F32, "n"), F("g", VT_F32, "n"), F("m", VT_F32, "n"), F("v", VT_F32, "n"), F("t", VT_INT, NULL),
      F("hyper", VT_F32, "5")}, 6,
     {F("p", VT_F32, "n"), F("m", VT_F32, "n"), F("v", VT_F32, "n")}, 3},
    {"addmod113_perm", "13.3", {F("seed", VT_U64, NULL)}, 1, {F("perm", VT_U32, "12769")}, 1},
    {"addmod113_init", "13.4", {F("tensor", VT_NAME, NULL)}, 1, {F("values", VT_F32, "@amtensor")}, 1},
    {"addmod113_loss_grad", "13.5", {F("params", VT_F32, "226688"), F("pairs", VT_U32, "m")}, 2,
     {F("loss", VT_F32, "1"), F("grads", VT_F32, "226688")}, 2},
    /* 1.2.0: profile gptchar */
    {"residual_add", "5.13", {F("x", VT_F32, "n"), F("y", VT_F32, "n")}, 2, {F("z", VT_F32, "n")}, 1},
    {"layernorm_forward", "5.14",
     {F("n", VT_INT, NULL), F("x", VT_F32, "rows*n"), F("w", VT_F32, "n"), F("b", VT_F32, "n"),
      F("eps", VT_F32, "1")}, 5,
     {F("y", VT_F32, "rows*n"), F("mean", VT_F32, "rows"), F("rstd", VT_F32, "rows")}, 3},
    {"layernorm_backward", "5.15",
     {F("n", VT_INT, NULL), F("x", VT_F32, "rows*n"), F("w", VT_F32, "n"), F("eps", VT_F32, "1"),
      F("dy", VT_F32, "rows*n"), F("dw", VT_F32, "n"), F("db", VT_F32, "n")}, 7,
     {F("dw", VT_F32, "n"), F("db", VT_F32, "n"), F("dx", VT_F32, "rows*n")}, 3},
    {"gelu_forward", "5.16", {F("x", VT_F32, "n")}, 1, {F("y", VT_F32, "n")}, 1},
    {"gelu_backward", "5.17", {F("x", VT_F32, "n"), F("dy", VT_F32, "n")}, 2, {F("dx", VT_F32, "n")}, 1},
    {"causal_attention_forward", "5.18",
     {F("heads", VT_INT, NULL), F("width", VT_INT, NULL), F("c", VT_F32, "1"), F("q", VT_F32, "t*heads*width"),
      F("k", VT_F32, "t*heads*width"), F("v", VT_F32, "t*heads*width")}, 6,
     {F("w", VT_F32, "t*heads*t"), F("z", VT_F32, "t*heads*width")}, 2},
    {"causal_attention_backward", "5.19",
     {F("heads", VT_INT, NULL), F("width", VT_INT, NULL), F("c", VT_F32, "1"), F("q", VT_F32, "t*heads*width"),
      F("k", VT_F32, "t*heads*width"), F("v", VT_F32, "t*heads*width"), F("w", VT_F32, "t*heads*t"),
      F("dz", VT_F32, "t*heads*width")}, 8,
     {F("dq", VT_F32, "t*heads*width"), F("dk", VT_F32, "t*heads*width"), F("dv", VT_F32, "t*heads*width")}, 3},
    {"tied_embedding_grad", "5.20",
     {F("dim", VT_INT, NULL), F("f", VT_F32, "m*dim"), F("dlogits", VT_F32, "m*vocab"), F("tokens", VT_INTS, "m"),
      F("dx", VT_F32, "m*dim")}, 5,
     {F("de", VT_F32, "vocab*dim")}, 1},
    {"clip_grad_norm", "7.3", {F("g", VT_F32, "n"), F("max_norm", VT_F32, "1"), F("eps", VT_F32, "1")}, 3,
     {F("g", VT_F32, "n"), F("norm", VT_F32, "1")}, 2},
    {"lr_schedule", "7.4",
     {F("step", VT_INT, NULL), F("warmup", VT_INT, NULL), F("total", VT_INT, NULL), F("lr_max", VT_F32, "1")}, 4,
     {F("lr", VT_F32, "1")}, 1},
    {"gptchar_init", "14.4", {F("tensor", VT_NAME, NULL)}, 1, {F("values", VT_F32, "@gctensor")}, 1},
    {"gptchar_batch", "14.5", {F("step", VT_INT, NULL)}, 1, {F("x", VT_INTS, "512"), F("y", VT_INTS, "512")}, 2},
    {"gptchar_loss_grad", "14.6", {F("params", VT_F32, "106176"), F("x", VT_INTS, "m"), F("y", VT_INTS, "m")}, 3,
     {F("loss", VT_F32, "1"), F("grads", VT_F32, "106176")}, 2},
};
const size_t op_table_n = sizeof op_table / sizeof op_table[0];

/* P5: the op of a name (unknown ops are a lint error in vectors). */
const op_def *op_find(const char *name, size_t len)
{
    for (size_t i = 0; i < op_table_n; i++)
        if (strlen(op_table[i].name) == len && memcmp(op_table[i].name, name, len) == 0)
            return &op_table[i];
    return NULL;
}

typedef struct {
    char name[16];
    uint64_t v;
} binding;

typedef struct {
    binding b[12];
    size_t n;
} env;

static binding *lookup(env *e, const char *name, size_t len)
{
    for (size_t i = 0; i < e->n; i++)
        if (strlen(e->b[i].name) == len && memcmp(e->b[i].name, name, len) == 0)
            return &e->b[i];
    return NULL;
}

static void bind(env *e, const char *name, size_t len, uint64_t v)
{
    if (lookup(e, name, len) || e->n == sizeof e->b / sizeof e->b[0] || len >= sizeof e->b[0].name)
        return;
    memcpy(e->b[e->n].name, name, len);
    e->b[e->n].name[len] = '\0';
    e->b[e->n].v = v;
    e->n++;
}

static int am_tensor_size(const char *name, uint64_t *size)
{
    for (size_t t = 0; t < 11; t++)
        if (strcmp(it_addmod113_tensors[t].name, name) == 0) {
            *size = it_addmod113_tensors[t].rows * it_addmod113_tensors[t].cols;
            return 0;
        }
    return -1;
}

static int gc_tensor_size(const char *name, uint64_t *size)
{
    for (size_t t = 0; t < IT_GC_NTENSORS; t++)
        if (strcmp(it_gptchar_tensors[t].name, name) == 0) {
            *size = it_gptchar_tensors[t].rows * it_gptchar_tensors[t].cols;
            return 0;
        }
    return -1;
}

static int tensor_size(const char *name, uint64_t *size)
{
    for (size_t t = 0; t < 5; t++)
        if (strcmp(it_mlp13k_tensors[t].name, name) == 0) {
            *size = it_mlp13k_tensors[t].rows * it_mlp13k_tensors[t].cols;
            return 0;
        }
    return -1;
}

/* The sizes "@tensor", "@amtensor", "@gctensor" name: rows*cols of the
 * tensor the case's first input names, in that profile. */
static const struct {
    const char *len;
    int (*size)(const char *name, uint64_t *size);
    const char *none;
} TENSOR_LENS[] = {
    {"@tensor", tensor_size, "no size: tensor is not embed, w1, b1, w2 or b2"},
    {"@amtensor", am_tensor_size, "no size: tensor is not one of addmod113's (spec 13.2)"},
    {"@gctensor", gc_tensor_size, "no size: tensor is not one of gptchar's (spec 14.2)"},
};

/* 1 if f->len names a tensor's size (then 0 or -1 in *rc), else 0. */
static int check_tensor_len(const op_field *f, const value *in0, const value *x, int *rc, char *why, size_t cap)
{
    for (size_t k = 0; k < sizeof TENSOR_LENS / sizeof TENSOR_LENS[0]; k++) {
        if (strcmp(f->len, TENSOR_LENS[k].len) != 0)
            continue;
        uint64_t size;
        *rc = -1;
        if (!in0->text || TENSOR_LENS[k].size(in0->text, &size) != 0)
            snprintf(why, cap, "%s", TENSOR_LENS[k].none);
        else if (x->n != size)
            snprintf(why, cap, "expected %llu values (rows*cols of %s), got %zu", (unsigned long long)size, in0->text,
                     x->n);
        else
            *rc = 0;
        return 1;
    }
    return 0;
}

/* The product of a length expression's constants and bound variables; the
 * one unbound variable (if exactly one) in *unbound, their count returned. */
static int len_product(env *e, const char *expr, uint64_t *known, const char **unbound, size_t *unbound_len)
{
    int n_unbound = 0;
    *known = 1;
    for (const char *p = expr; *p;) {
        const char *q = strchr(p, '*');
        size_t len = q ? (size_t)(q - p) : strlen(p);
        if (p[0] >= '0' && p[0] <= '9') {
            uint64_t c = 0;
            for (size_t i = 0; i < len; i++)
                c = c * 10 + (uint64_t)(p[i] - '0');
            *known *= c;
        } else {
            binding *b = lookup(e, p, len);
            if (b) {
                if (b->v != 0 && *known > UINT64_MAX / b->v)
                    *known = UINT64_MAX;
                else
                    *known *= b->v;
            } else {
                *unbound = p;
                *unbound_len = len;
                n_unbound++;
            }
        }
        p = q ? q + 1 : p + len;
    }
    return n_unbound;
}

/* Checks one array's length against its expression, binding at most one new
 * variable. */
static int check_len(env *e, const op_field *f, const value *in0, const value *x, char *why, size_t cap)
{
    int rc;
    if (!f->len)
        return 0;
    if (check_tensor_len(f, in0, x, &rc, why, cap))
        return rc;
    uint64_t known;
    const char *unbound = NULL;
    size_t unbound_len = 0;
    int n_unbound = len_product(e, f->len, &known, &unbound, &unbound_len);
    if (n_unbound == 0) {
        if (x->n != known) {
            snprintf(why, cap, "expected %llu elements (%s), got %zu", (unsigned long long)known, f->len, x->n);
            return -1;
        }
        return 0;
    }
    if (n_unbound > 1 || known == 0 || x->n % known != 0) {
        snprintf(why, cap, "length %zu is not a multiple of %llu (%s)", x->n, (unsigned long long)known, f->len);
        return -1;
    }
    bind(e, unbound, unbound_len, x->n / known);
    return 0;
}

static uint64_t var(env *e, const char *name)
{
    binding *b = lookup(e, name, strlen(name));
    return b ? b->v : 0;
}

/* Input ranges the clauses imply (indices inside their arrays, P5.1's
 * lo + count <= 2^32, tensor names, 1-based steps): one check per op, each
 * 0 or -1 with the input's index in *where and why. */
#define RANGE_FN(name) static int name(const op_def *d, env *e, const value *in, int *where, char *why, size_t cap)
#define BAD(idx, ...) do { *where = (idx); snprintf(why, cap, __VA_ARGS__); return -1; } while (0)
#define UNUSED (void)d, (void)e, (void)in, (void)where, (void)why, (void)cap

RANGE_FN(r_softmax_xent)
{
    UNUSED;
    if (in[1].v[0] >= var(e, "n"))
        BAD(1, "target %llu is not below n = %llu", (unsigned long long)in[1].v[0], (unsigned long long)var(e, "n"));
    return 0;
}
RANGE_FN(r_embedding_forward)
{
    UNUSED;
    if (in[0].v[0] == 0)
        BAD(0, "dim must be at least 1");
    if (in[2].v[0] >= var(e, "rows"))
        BAD(2, "token %llu is not below rows = %llu", (unsigned long long)in[2].v[0], (unsigned long long)var(e, "rows"));
    return 0;
}
RANGE_FN(r_embedding_backward)
{
    UNUSED;
    if (in[0].v[0] == 0)
        BAD(0, "dim must be at least 1");
    for (size_t i = 0; i < in[2].n; i++)
        if (in[2].v[i] >= var(e, "rows"))
            BAD(2, "tokens[%zu] = %llu is not below rows = %llu", i, (unsigned long long)in[2].v[i],
                (unsigned long long)var(e, "rows"));
    return 0;
}
RANGE_FN(r_linear)
{
    UNUSED;
    if (in[0].v[0] == 0 || in[1].v[0] == 0)
        BAD(in[0].v[0] == 0 ? 0 : 1, "in and out must be at least 1");
    return 0;
}
RANGE_FN(r_rng_u32)
{
    UNUSED;
    if (in[1].v[0] > 0xffffffffu)
        BAD(1, "stream must be below 2^32");
    if (in[3].v[0] == 0)
        BAD(3, "count must be at least 1");
    return 0;
}
RANGE_FN(r_u32_below)
{
    UNUSED;
    if (in[1].v[0] == 0 || in[1].v[0] > 0xffffffffu)
        BAD(1, "n must be in [1, 2^32)");
    return 0;
}
RANGE_FN(r_mlp13k_init)
{
    UNUSED;
    uint64_t size;
    if (tensor_size(in[0].text, &size) != 0)
        BAD(0, "tensor '%s' is not embed, w1, b1, w2 or b2", in[0].text);
    return 0;
}
RANGE_FN(r_batch_step)
{
    UNUSED;
    if (in[0].v[0] == 0 || in[0].v[0] > 0xffffffffu)
        BAD(0, "step must be in [1, 2^32) (steps are 1-based)");
    return 0;
}
RANGE_FN(r_mlp13k_loss_grad)
{
    UNUSED;
    for (size_t k = 1; k <= 2; k++)
        for (size_t i = 0; i < in[k].n; i++)
            if (in[k].v[i] > 255)
                BAD(k, "%s[%zu] = %llu is not a byte", d->in[k].key, i, (unsigned long long)in[k].v[i]);
    return 0;
}
RANGE_FN(r_attention)
{
    UNUSED;
    if (in[0].v[0] == 0 || in[1].v[0] == 0 || in[0].v[0] * in[1].v[0] > 65536)
        BAD(in[0].v[0] == 0 ? 0 : 1, "heads and width must be at least 1, heads*width at most 65536");
    if (var(e, "t") < 1 || var(e, "t") > 16)
        BAD(4, "k must hold t = 1..16 keys of heads*width values");
    return 0;
}
RANGE_FN(r_adamw)
{
    UNUSED;
    if (in[4].v[0] == 0 || in[4].v[0] > 1000000)
        BAD(4, "t must be in [1, 1000000]");
    return 0;
}
RANGE_FN(r_addmod113_init)
{
    UNUSED;
    uint64_t size;
    if (am_tensor_size(in[0].text, &size) != 0)
        BAD(0, "tensor '%s' is not one of addmod113's (spec 13.2)", in[0].text);
    return 0;
}
RANGE_FN(r_addmod113_loss_grad)
{
    UNUSED;
    for (size_t i = 0; i < in[1].n; i++)
        if (in[1].v[i] >= 12769)
            BAD(1, "pairs[%zu] = %llu is not below 12769", i, (unsigned long long)in[1].v[i]);
    return 0;
}
RANGE_FN(r_layernorm)
{
    UNUSED;
    if (in[0].v[0] == 0 || in[0].v[0] > (1u << 20))
        BAD(0, "n must be in [1, 2^20]");
    if (var(e, "rows") < 1)
        BAD(1, "x must hold at least one row of n values");
    return 0;
}
RANGE_FN(r_causal_attention)
{
    UNUSED;
    if (in[0].v[0] == 0 || in[1].v[0] == 0 || in[0].v[0] * in[1].v[0] > 65536)
        BAD(in[0].v[0] == 0 ? 0 : 1, "heads and width must be at least 1, heads*width at most 65536");
    if (var(e, "t") < 1 || var(e, "t") > 64)
        BAD(3, "q must hold t = 1..64 positions of heads*width values");
    return 0;
}
RANGE_FN(r_tied_embedding_grad)
{
    UNUSED;
    if (in[0].v[0] == 0 || in[0].v[0] > (1u << 20))
        BAD(0, "dim must be in [1, 2^20]");
    if (var(e, "m") < 1 || var(e, "vocab") < 1)
        BAD(3, "at least one row and a vocabulary of at least one");
    for (size_t i = 0; i < in[3].n; i++)
        if (in[3].v[i] >= var(e, "vocab"))
            BAD(3, "tokens[%zu] = %llu is not below vocab = %llu", i, (unsigned long long)in[3].v[i],
                (unsigned long long)var(e, "vocab"));
    return 0;
}
RANGE_FN(r_lr_schedule)
{
    UNUSED;
    if (in[2].v[0] == 0 || in[2].v[0] >= (1u << 24))
        BAD(2, "total must be in [1, 2^24)");
    if (in[0].v[0] == 0 || in[0].v[0] > in[2].v[0])
        BAD(0, "step must be in [1, total]");
    if (in[1].v[0] == 0 || in[1].v[0] > in[2].v[0])
        BAD(1, "warmup must be in [1, total]");
    return 0;
}
RANGE_FN(r_gptchar_init)
{
    UNUSED;
    uint64_t size;
    if (gc_tensor_size(in[0].text, &size) != 0)
        BAD(0, "tensor '%s' is not one of gptchar's (spec 14.2)", in[0].text);
    return 0;
}
RANGE_FN(r_gptchar_loss_grad)
{
    UNUSED;
    if (in[1].n % 32 != 0 || in[1].n == 0)
        BAD(1, "x must hold whole sequences of 32 tokens");
    for (size_t k = 1; k <= 2; k++)
        for (size_t i = 0; i < in[k].n; i++)
            if (in[k].v[i] > 62)
                BAD(k, "%s[%zu] = %llu is not a token (0..62)", d->in[k].key, i, (unsigned long long)in[k].v[i]);
    return 0;
}
RANGE_FN(r_sweep)
{
    UNUSED;
    if (strcmp(in[0].text, "exp") != 0 && strcmp(in[0].text, "log") != 0)
        BAD(0, "fn must be exp or log");
    if (in[2].v[0] == 0 || in[1].v[0] + in[2].v[0] > 0x100000000ull)
        BAD(2, "count must be at least 1 and lo + count at most 2^32 (P5.1)");
    return 0;
}
#undef UNUSED
#undef BAD

static const struct {
    const char *op;
    int (*check)(const op_def *d, env *e, const value *in, int *where, char *why, size_t cap);
} RANGES[] = {
    {"softmax_xent_forward", r_softmax_xent},
    {"softmax_xent_backward", r_softmax_xent},
    {"embedding_forward", r_embedding_forward},
    {"embedding_backward", r_embedding_backward},
    {"linear_forward", r_linear},
    {"linear_backward", r_linear},
    {"rng_u32", r_rng_u32},
    {"u32_below", r_u32_below},
    {"mlp13k_init", r_mlp13k_init},
    {"mlp13k_batch", r_batch_step},
    {"mlp13k_loss_grad", r_mlp13k_loss_grad},
    {"attention_forward", r_attention},
    {"attention_backward", r_attention},
    {"adamw", r_adamw},
    {"addmod113_init", r_addmod113_init},
    {"addmod113_loss_grad", r_addmod113_loss_grad},
    {"layernorm_forward", r_layernorm},
    {"layernorm_backward", r_layernorm},
    {"causal_attention_forward", r_causal_attention},
    {"causal_attention_backward", r_causal_attention},
    {"tied_embedding_grad", r_tied_embedding_grad},
    {"lr_schedule", r_lr_schedule},
    {"gptchar_init", r_gptchar_init},
    {"gptchar_batch", r_batch_step},
    {"gptchar_loss_grad", r_gptchar_loss_grad},
    {"sweep", r_sweep},
};

static int check_ranges(const op_def *d, env *e, const value *in, int *where, char *why, size_t cap)
{
    for (size_t k = 0; k < sizeof RANGES / sizeof RANGES[0]; k++)
        if (!strcmp(d->name, RANGES[k].op))
            return RANGES[k].check(d, e, in, where, why, cap);
    return 0;
}

/* P5: lengths and ranges of one case. */
int op_check(const op_def *d, const value *in, const value *out, int *where_out, size_t *where_index,
             char *why, size_t cap)
{
    env e;
    e.n = 0;
    for (size_t i = 0; i < d->n_in; i++) {
        if (d->in[i].type == VT_INT)
            bind(&e, d->in[i].key, strlen(d->in[i].key), in[i].v[0]);
        if (check_len(&e, &d->in[i], &in[0], &in[i], why, cap) != 0) {
            *where_out = 0;
            *where_index = i;
            return -1;
        }
    }
    int where;
    if (check_ranges(d, &e, in, &where, why, cap) != 0) {
        *where_out = 0;
        *where_index = (size_t)where;
        return -1;
    }
    if (!out)
        return 0;
    for (size_t i = 0; i < d->n_out; i++)
        if (check_len(&e, &d->out[i], &in[0], &out[i], why, cap) != 0) {
            *where_out = 1;
            *where_index = i;
            return -1;
        }
    return 0;
}
