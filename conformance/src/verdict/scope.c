/* scope.c — see scope.h. */
#include "verdict/scope.h"

#include <stdlib.h>
#include <string.h>

#include "core/util.h"

static const char *const levels[3] = {"ops", "train", "fresh"};

static void reason(run_verdict *v, char *text)
{
    if (v->n_reasons < SCOPE_MAX_REASONS)
        v->reasons[v->n_reasons++] = text;
    else
        free(text);
}

void scope_facts_from_results(scope_facts *f, const results *r)
{
    f->ops = results_tally(r, "ops");
    f->train = results_tally(r, "train");
    f->fresh = results_tally(r, "fresh");
    f->protocol = results_tally(r, "protocol");
    for (int l = 0; l < 3; l++) {
        f->first_skip_id[l] = f->first_skip_reason[l] = NULL;
        for (size_t i = 0; i < r->n; i++) {
            const case_result *c = &r->c[i];
            if (c->v == V_SKIP && c->required && !strcmp(c->level, levels[l])) {
                f->first_skip_id[l] = c->id;
                f->first_skip_reason[l] = c->reason ? c->reason : "";
                break;
            }
        }
    }
}

/* A level that should have run but passed nothing, or skipped what it needed,
 * narrows the run: skipped is never passed (P1). */
static void level_scope(run_verdict *v, const char *name, const tally *t, const char *skip_id,
                        const char *skip_reason)
{
    if (t->skipped_required)
        reason(v, xasprintf("level %s: %zu required case%s skipped (first: %s: %s)", name, t->skipped_required,
                            t->skipped_required == 1 ? "" : "s", skip_id ? skip_id : "?",
                            skip_reason ? skip_reason : ""));
    else if (t->passed == 0)
        reason(v, xasprintf("level %s: no case ran", name));
}

void scope_verdict(const scope_facts *f, run_verdict *v)
{
    memset(v, 0, sizeof *v);
    size_t bad = f->ops.failed + f->ops.errors + f->train.failed + f->train.errors + f->fresh.failed +
                 f->fresh.errors + f->protocol.failed + f->protocol.errors;
    int all = !strcmp(f->level, "all");
    if (!all)
        reason(v, xasprintf("--level %s: a certification runs the ops and train levels", f->level));
    if (f->n_filters)
        reason(v, xasprintf("--filter: only the named group%s ran", f->n_filters == 1 ? "" : "s"));
    if (f->profile && f->profile_excludes)
        reason(v, xasprintf("--profile %s: not every profile of the vector set ran", f->profile));
    if (f->steps >= 0 && f->steps < f->set_steps)
        reason(v, xasprintf("--steps %ld: training stopped before step %ld", f->steps, f->set_steps));
    const tally *t[3] = {&f->ops, &f->train, &f->fresh};
    for (int l = 0; l < 3; l++) {
        int selected = all || !strcmp(f->level, levels[l]) || l == 2;
        if (selected)
            level_scope(v, levels[l], t[l], f->first_skip_id[l], f->first_skip_reason[l]);
    }
    size_t narrowing = v->n_reasons;
    if (!f->official)
        reason(v, xasprintf("UNOFFICIAL vector set: manifest digest %s is not one the runner pins",
                            f->manifest_digest ? f->manifest_digest : "(none)"));
    if (!f->hello_ok || bad) {
        v->word = "FAIL";
        v->exit_code = EXIT_FAIL;
    } else if (narrowing) {
        v->word = "PARTIAL";
        v->exit_code = EXIT_PARTIAL;
    } else if (!f->official) {
        v->word = "UNOFFICIAL";
        v->exit_code = EXIT_UNOFFICIAL;
    } else {
        v->word = "PASS";
        v->exit_code = EXIT_PASS;
    }
}

void run_verdict_free(run_verdict *v)
{
    for (size_t i = 0; i < v->n_reasons; i++)
        free(v->reasons[i]);
    v->n_reasons = 0;
}
