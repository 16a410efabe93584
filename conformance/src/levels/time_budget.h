/* time_budget.h — the deadline of a training run (spec/iut-protocol.md P8;
 * conformance/README.md "Time-outs"). One fixed default did not fit: a
 * correct IUT took 235-341 s for addmod113's golden run on a loaded 2-core
 * machine, against 600 s. So the runner measures, on this machine and at
 * this moment, how long the reference linked into it takes for a step of
 * the profile, and gives a run of N steps TB_FACTOR times that per step, at
 * least --timeout-run's default, times --slowdown. The deadline stays
 * absolute: it is never disabled, and --timeout-run S sets it outright. */
#ifndef CONFORM_TIME_BUDGET_H
#define CONFORM_TIME_BUDGET_H

#include <stdint.h>

#include "levels/run_ctx.h"

/* How many times slower than the linked reference (one thread, the
 * kernels the runner uses) a correct IUT may be: a script or an
 * interpreter on a loaded machine. */
#define TB_FACTOR 10.0

/* The linked reference's seconds per training step of profile, measured the
 * first time it is asked in a run (and printed with the budget it gives);
 * < 0 when the runner links no reference for the profile. */
double tb_step_seconds(run_ctx *rc, const char *profile);

/* The deadline in seconds of a training run of `steps` steps of profile
 * (a golden run, a window, a fresh-seed run): --timeout-run S x --slowdown
 * when S was given, else max(default, TB_FACTOR x step x (steps + 1)) x
 * --slowdown. */
double rc_timeout_train(run_ctx *rc, const char *profile, uint32_t steps);

#endif
