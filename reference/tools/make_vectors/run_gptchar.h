/* The gptchar reference run (run_gptchar.c) as g_gptchar.c uses it. */
#ifndef MAKE_VECTORS_RUN_GPTCHAR_H
#define MAKE_VECTORS_RUN_GPTCHAR_H

#include "mv.h"

enum { GC_CKPTS = IT_GC_STEPS / 100 + 1, GC_WINDOWS = 2 };

extern float gc_hist[GC_CKPTS][IT_GC_NPARAMS];
extern uint32_t gc_loss[IT_GC_STEPS + 1];
extern char gc_digest[IT_GC_STEPS + 1][65];
extern float gc_state[GC_WINDOWS][3][IT_GC_NPARAMS];
extern float gc_grad1[IT_GC_NPARAMS];
extern uint32_t gc_x1[IT_GC_ROWS], gc_y1[IT_GC_ROWS];

/* the intermediates of step 1 (initial parameters, batch 1); layer 0 where
 * a layer applies; rows row-major */
typedef struct {
    float *x0, *ln1, *q, *k, *v, *o, *xmid, *h, *lnf, *dlogits, *dx0;
} gc_taps;
extern gc_taps gc_step1;

const char *gc_trace_digest(uint32_t step);

#endif
