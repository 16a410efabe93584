/* What one op of the `ops` verb (spec/iut-protocol.md P5) works with: the
 * parsed request, the response being built, and the getters that parse an
 * input strictly (P4) and report "input 'key': why". ops_server.c serves the
 * ops of spec 1.0 and 1.1; each later profile's ops live in a file of their
 * own (ops_gptchar.c) and are listed in ops_server.c's table. */
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

/* ops_gptchar.c (spec 1.2.0) */
int op_residual_add(op_ctx *c);
int op_layernorm_forward(op_ctx *c);
int op_layernorm_backward(op_ctx *c);
int op_gelu_forward(op_ctx *c);
int op_gelu_backward(op_ctx *c);
int op_causal_attention_forward(op_ctx *c);
int op_causal_attention_backward(op_ctx *c);
int op_tied_embedding_grad(op_ctx *c);
int op_clip_grad_norm(op_ctx *c);
int op_lr_schedule(op_ctx *c);
int op_gptchar_init(op_ctx *c);
int op_gptchar_batch(op_ctx *c);
int op_gptchar_loss_grad(op_ctx *c);

#endif
