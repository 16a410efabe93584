/* time_budget.c — see time_budget.h (P8). */
#include "levels/time_budget.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "isotrain.h"
#include "isotrain_profile.h"

/* One step of the profile from its init (no files), one thread: what an
 * IUT does per step, at the least. Found through the reference's row
 * (isotrain_profile.h), so a profile the runner links is measured without
 * its name spelled here. Seconds, or -1 (no such row, or the step failed). */
static double one_step_run(const char *profile)
{
    const it_profile *p = it_profile_find(profile);
    it_train_state *s = p ? it_train_state_new(p) : NULL;
    if (!s)
        return -1.0;
    it_train_config c = it_train_config_default(p);
    c.threads = 1;
    double t0 = now_s();
    it_train_start(p, &c, s);
    it_status st = it_train_step_alone(p, &c, s);
    double t = now_s() - t0;
    it_train_state_free(s);
    return st == IT_OK ? t : -1.0;
}

double tb_step_seconds(run_ctx *rc, const char *profile)
{
    for (size_t i = 0; i < rc->n_costs; i++)
        if (!strcmp(rc->costs[i].profile, profile))
            return rc->costs[i].step_s;
    /* repeated until 50 ms were measured: a clock tick is no measurement */
    double total = 0, t;
    int n = 0;
    while (n < 1000 && total < 0.05 && (t = one_step_run(profile)) >= 0) {
        total += t;
        n++;
    }
    double step = n ? total / n : -1.0;
    if (rc->n_costs < sizeof rc->costs / sizeof rc->costs[0]) {
        struct step_cost *c = &rc->costs[rc->n_costs++];
        snprintf(c->profile, sizeof c->profile, "%s", profile);
        c->step_s = step;
    }
    if (step >= 0)
        fprintf(rc->out,
                "  time-out: the linked reference takes %.4f s a step of %s here; a training run of N steps may take "
                "max(%g, %g x %.4f x (N + 1)) s x --slowdown %g (--timeout-run S sets it outright, --slowdown F "
                "scales it)\n",
                step, profile, rc->a->timeout_run, TB_FACTOR, step, rc->a->slowdown);
    return step;
}

double rc_timeout_train(run_ctx *rc, const char *profile, uint32_t steps)
{
    double base = rc->a->timeout_run;
    if (!rc->a->timeout_run_given) {
        double step = tb_step_seconds(rc, profile);
        double need = TB_FACTOR * step * ((double)steps + 1.0);
        if (need > base)
            base = need;
    }
    return base * rc->a->slowdown;
}
