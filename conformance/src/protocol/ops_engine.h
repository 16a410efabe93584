/* ops_engine.h — runs a list of op requests through one `ops` process
 * (spec/iut-protocol.md P3-P6, P8): requests are written while responses are
 * read (poll, so neither side deadlocks), each response is matched to its
 * request in order and compared with the expected outputs. Used by the ops
 * level and by the op-level replay of localization. */
#ifndef CONFORM_OPS_ENGINE_H
#define CONFORM_OPS_ENGINE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "protocol/optable.h"
#include "core/results.h"

typedef struct {
    const char *id;       /* case id, first token of the request */
    const op_def *op;
    char *line;           /* the whole request line including "\n" (owned) */
    size_t line_len;
    const value *want;    /* op->n_out expected outputs */
    double timeout;       /* seconds for its response */
} ops_req;

typedef struct {
    verdict v;
    char *reason;         /* NULL for PASS */
    double seconds;
    /* the first differing output element, when the outputs differ */
    int has_diff;
    size_t diff_key;      /* index into op->out */
    size_t diff_index;
    uint64_t got, want;   /* bits / values of that element */
    size_t diff_count;    /* differing elements of that key */
    uint64_t diff_ulp;    /* ULP distance of the first differing f32 element */
} ops_res;

typedef struct {
    int verb_unsupported; /* exited 64 before answering (P1) */
    int started;          /* the process could be started */
    char status[160];     /* how the process ended */
    char *stderr_tail;
    char *problem;        /* time-out, closed stdout, cap: why cases are ERROR */
    char *end_problem;    /* every case answered, but the process did not end
                           * cleanly: output after the last response, a
                           * non-zero exit, no exit by the deadline (P3) */
    double seconds;
    size_t answered;
} ops_summary;

enum { OPS_LINE_CAP = 4 << 20 }; /* P3, P8: 4 MiB per line */

/* Progress lines for long exchanges (sweeps, emulated IUTs): every `every`
 * seconds, "  (LABEL: K of N answered, waiting for ID)" on out. */
typedef struct {
    FILE *out;
    double every;
    const char *label;
} ops_progress;

/* Runs reqs[0..n) through `CMD ops` and fills res[0..n). Never fails: every
 * request gets a verdict (ERROR when the process could not answer it).
 * run_timeout bounds the whole session (<= 0: the sum of the cases'
 * timeouts); prog may be NULL. */
void ops_engine_run(const char *cmd, ops_req *reqs, size_t n, double run_timeout, ops_res *res, ops_summary *sum,
                    const ops_progress *prog);
void ops_res_free(ops_res *r);
/* P3, P5, P6: the verdict on one response line (without its '\n') to q;
 * r must be zeroed or freed first. ops_engine_run calls it per response. */
void ops_judge(const ops_req *q, const char *line, size_t len, ops_res *r);
void ops_summary_free(ops_summary *s);

/* Builds "id=ID op=OP " + caller's key=value text + "\n" into a request. */
void ops_req_set_line(ops_req *r, const char *id, const op_def *op, const char *kv_text);

#endif
