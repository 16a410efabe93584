/* run_ctx.c — the shared state of one run (run_ctx.h): warnings, the
 * effective time-outs, and freeing it. */
#include "levels/run_ctx.h"

#include <stdarg.h>
#include <stdlib.h>

double rc_timeout_case(const run_ctx *rc)
{
    return rc->a->timeout_case * rc->a->slowdown;
}

double rc_timeout_run(const run_ctx *rc)
{
    return rc->a->timeout_run * rc->a->slowdown;
}

void run_warn(run_ctx *rc, const char *fmt, ...)
{
    if (rc->n_warnings == sizeof rc->warnings / sizeof rc->warnings[0])
        return;
    va_list ap;
    va_start(ap, fmt);
    rc->warnings[rc->n_warnings++] = xvasprintf(fmt, ap); /* the one formatter (core/util.h) */
    va_end(ap);
}

void run_ctx_free(run_ctx *rc)
{
    manifest_free(&rc->man);
    vectors_free(&rc->vs);
    results_free(&rc->res);
    free(rc->hello_line);
    free(rc->iut_name);
    free(rc->iut_version);
    free(rc->iut_spec);
    free(rc->hello_problem);
    free(rc->info_status);
    for (size_t i = 0; i < rc->n_info; i++) {
        free(rc->info[i].key);
        free(rc->info[i].val);
    }
    free(rc->info);
    for (size_t i = 0; i < rc->n_emu_warnings; i++)
        free(rc->emu_warnings[i]);
    free(rc->emu_warnings);
    free(rc->ops_note);
    free(rc->train_note);
    free(rc->fresh_note);
    free(rc->fresh_steps);
    iut_binary_free(&rc->bin_before);
    if (rc->target) {
        iut_target_free(rc->target);
        free(rc->target);
    }
    run_verdict_free(&rc->verdict);
    ops_summary_free(&rc->ops_sum);
    for (size_t i = 0; i < rc->n_trains; i++) {
        train_report *t = &rc->trains[i];
        free(t->profile);
        free(t->failure);
        free(t->stderr_tail);
        free(t->stdout_tail);
        free(t->problem);
        free(t->work_dir);
        free(t->ck);
        free(t->steps_seen);
        sbuf_free(&t->loc_text);
        if (t->loc_json)
            cJSON_Delete(t->loc_json);
    }
    free(rc->trains);
    free(rc->reached);
    free(rc->recipe_name);
    recipe_ctx_free(rc->recipe);
    free(rc->ops_dir);
    for (size_t i = 0; i < rc->n_warnings; i++)
        free(rc->warnings[i]);
}
