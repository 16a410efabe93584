/* localize_replay.h — the op replay of localization, shared by the profile
 * files (localize.c: mlp13k and addmod113; localize_gptchar.c): a list of
 * op requests with the outputs the linked reference expects, sent through
 * one `ops` process. */
#ifndef CONFORM_LOCALIZE_REPLAY_H
#define CONFORM_LOCALIZE_REPLAY_H

#include "levels/localize.h"
#include "protocol/ops_engine.h"

typedef struct {
    ops_req *reqs;
    value *wants; /* 4 per request */
    char **ids;
    size_t n, cap;
} replay;

/* Adds a request; returns its 4 expected outputs to fill. */
value *rp_add(replay *rp, const char *op_name, const char *id, const char *kv);
void replay_free(replay *rp);
void want_f32(value *v, const float *x, size_t n);
void kv_f32(sbuf *b, const char *key, const float *x, size_t n);
void kv_int(sbuf *b, const char *key, unsigned long v);
/* One indented line of the localization text. */
void line(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The first differing checkpoint element of step T, its lines and receipt
 * keys (localize.c); returns its flat index, or n when none differs. */
size_t first_difference(sbuf *t, cJSON *j, uint32_t T, const float *iut, const float *ref, size_t n,
                        const it_tensor_info *tensors, size_t ntensors);

/* profile gptchar (localize_gptchar.c) */
int localize_is_gptchar(const train_vec *tv);
void localize_gptchar(run_ctx *rc, const train_vec *tv, int ck_fd, uint32_t T, const localize_origin *o,
                      train_report *rep, cJSON *j);
/* the message when the linked reference does not give what step T must be */
void localize_not_reproduced(sbuf *t, cJSON *j, const localize_origin *o, uint32_t T);

#endif
