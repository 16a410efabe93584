/* What one op of the `ops` verb (spec/iut-protocol.md P5) works with: the
 * parsed request, the response being built, and the getters that parse an
 * input strictly (P4) and report "input 'key': why". ops_server.c serves the
 * ops of spec 1.0 and 1.1; each later profile's ops live in a file of their
 * own (ops_gptchar.c) with a table of their own that ops_server.c searches. */
#ifndef IT_OPS_CTX_H
#define IT_OPS_CTX_H

#include <stddef.h>
#include <stdint.h>

#include "wire.h"

enum { MAX_ALLOCS = 32 };

typedef struct {
    const wire_tokens *req;
    wire_buf *resp;
    size_t id_len;            /* the answer echoes the id: P3's cap counts it */
    uint64_t max_sweep_count; /* 2^32 (P5.1) unless a harness lowers it */
    char err[512];
    void *allocs[MAX_ALLOCS];
    size_t n_allocs;
} op_ctx;

/* Records why the request is malformed; returns -1. */
#if defined(__GNUC__)
__attribute__((format(IT_PRINTF_FORMAT, 2, 3)))
#endif
int bad(op_ctx *c, const char *fmt, ...);
void *track(op_ctx *c, void *p);     /* freed after the request; NULL on failure */
float *scratch(op_ctx *c, size_t n); /* n zeroed floats for this request */
int get_u32s(op_ctx *c, const char *key, uint32_t **v, size_t *n);
int get_f32s(op_ctx *c, const char *key, float **v, size_t *n);
int get_int(op_ctx *c, const char *key, uint64_t min, uint64_t max, uint64_t *v);
int get_ints(op_ctx *c, const char *key, uint64_t max, uint32_t **v, size_t *n);
int get_u64(op_ctx *c, const char *key, uint64_t *v);
const wire_kv *get_name(op_ctx *c, const char *key);
int name_is(const wire_kv *kv, const char *s);
int want_len(op_ctx *c, const char *key, size_t n, uint64_t want, const char *why);
void put_f32s(op_ctx *c, const char *key, const float *v, size_t n);
void put_u32s(op_ctx *c, const char *key, const uint32_t *v, size_t n);
/* y = f(x) and out = f(a, b) element by element (a, b of one length) */
int unary(op_ctx *c, void (*f)(const float *, float *, size_t));
int binary(op_ctx *c, const char *a, const char *b, const char *out,
           void (*f)(const float *, const float *, size_t, float *));
/* the ops every profile has and the inputs of the attention ops */
struct it_profile;
int profile_init(op_ctx *c, const struct it_profile *p);
typedef struct {
    float *params, *grads; /* the row's parameters; its gradient, zeroed */
    uint32_t *x, *y;       /* n tokens and their targets */
    size_t n;
} loss_grad_in;
int loss_grad_inputs(op_ctx *c, const struct it_profile *p, uint32_t vocab, loss_grad_in *in);
int attention_heads(op_ctx *c, uint64_t *heads, uint64_t *width, float **cs);
int attention_rows(op_ctx *c, const char *key, size_t n, uint64_t hw, unsigned max_t, size_t *t);

/* A row of an op table: P5's name of the op and its function. */
typedef struct {
    const char *name;
    int (*fn)(op_ctx *c);
} op_entry;

/* ops_gptchar.c: the ops of spec 1.2.0 (profile gptchar) */
extern const op_entry gptchar_ops[];
extern const size_t n_gptchar_ops;

#endif
