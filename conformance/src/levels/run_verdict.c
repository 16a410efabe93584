/* run_verdict.c — the facts of one run for the verdict table (verdict/scope.h):
 * what the options selected, whether the set is pinned, and the cases. */
#include <string.h>

#include "levels/levels.h"

void run_scope_verdict(run_ctx *rc, int hello_ok)
{
    const conform_args *a = rc->a;
    scope_facts f;
    memset(&f, 0, sizeof f);
    f.hello_ok = hello_ok;
    f.level = a->level;
    f.n_filters = a->n_filters;
    f.profile = a->profile;
    f.steps = a->steps;
    f.set_steps = 0;
    for (size_t i = 0; i < rc->vs.n_trains; i++) {
        const train_vec *tv = &rc->vs.trains[i];
        if (a->profile && strcmp(a->profile, tv->profile) != 0)
            f.profile_excludes = 1;
        else if (!f.set_steps || tv->steps < (uint32_t)f.set_steps)
            f.set_steps = tv->steps;
    }
    f.official = rc->official != NULL;
    f.manifest_digest = rc->man.digest;
    scope_facts_from_results(&f, &rc->res);
    scope_verdict(&f, &rc->verdict);
}
