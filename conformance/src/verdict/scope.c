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
    f->res = r;
    f->first_bad_id = f->first_bad_reason = NULL;
    for (size_t i = 0; i < r->n && !f->first_bad_id; i++)
        if (r->c[i].v == V_FAIL || r->c[i].v == V_ERROR) {
            f->first_bad_id = r->c[i].id;
            f->first_bad_reason = r->c[i].reason ? r->c[i].reason : "";
        }
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

/* 1 when a fresh window (suite train/P/fresh-windows, levels/level_windows.c)
 * passed */
static int fresh_windows_passed(const results *r)
{
    static const char tail[] = "/fresh-windows";
    for (size_t i = 0; r && i < r->n; i++) {
        size_t n = strlen(r->c[i].suite);
        if (r->c[i].v == V_PASS && n > sizeof tail - 1 && !strcmp(r->c[i].suite + n - (sizeof tail - 1), tail))
            return 1;
    }
    return 0;
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
    /* spec §12.1: what was certified is the lower of the IUT's claim and the
     * vector set's version; a run that certifies less than the set tests is
     * not its full certification */
    const req_ctx *q = f->req;
    if (q && q->iut_known && q->major_apart)
        reason(v, xasprintf("spec: the IUT claims %s, the vector set is %s: another MAJOR version (spec §12.1: "
                            "bits may have moved), so the run certifies neither",
                            q->iut_text, q->vectors_text));
    else if (q && q->iut_known && spec_mm_cmp(q->certified, q->vectors) < 0) {
        char *ni = f->res ? req_not_implemented(q, f->res) : NULL;
        /* "judged by", as the summary's spec line says: a PARTIAL certifies
         * nothing (issue 27 item 8: the closing line said "certified") */
        reason(v, xasprintf("judged by spec %s, not %s: the IUT claims spec %s%s%s", q->certified_text,
                            q->vectors_text, q->iut_text, ni ? "; not implemented: " : "", ni ? ni : ""));
        free(ni);
    }
    const tally *t[3] = {&f->ops, &f->train, &f->fresh};
    for (int l = 0; l < 3; l++) {
        int selected = all || !strcmp(f->level, levels[l]) || l == 2;
        if (selected)
            level_scope(v, levels[l], t[l], f->first_skip_id[l], f->first_skip_reason[l]);
    }
    if (f->fresh_only)
        reason(v, xasprintf("--fresh-only: the golden vectors did not run"));
    if (f->subject_unbound)
        reason(v, xstrdup(SCOPE_SUBJECT_UNBOUND));
    size_t narrowing = v->n_reasons;
    if (f->seed_given)
        reason(v, xasprintf("a reproduction of run seed %s, not a certification: the fresh-case seed was chosen by "
                            "the caller (--seed)", f->seed ? f->seed : "?"));
    if (!f->official && !f->recipe_sha256)
        reason(v, xasprintf("UNOFFICIAL vector set: manifest digest %s is not one the runner pins",
                            f->manifest_digest ? f->manifest_digest : "(none)"));
    if (f->interrupted)
        reason(v, xasprintf("interrupted by signal %d: this run says nothing about the IUT", f->interrupted));
    if (f->interrupted) { /* P8: an interrupted run is never a verdict on the IUT */
        v->word = "ERROR";
        v->exit_code = 128 + f->interrupted;
    } else if (!f->hello_ok || bad) {
        v->word = "FAIL";
        v->exit_code = EXIT_FAIL;
        if (f->first_bad_id)
            v->first_failure = xasprintf("%s: %s", f->first_bad_id, f->first_bad_reason);
    } else if (narrowing) {
        v->word = "PARTIAL";
        v->exit_code = EXIT_PARTIAL;
    } else if (f->recipe_sha256 && !f->seed_given) {
        /* run --windows: windows from fresh start states passed too, what a
         * host too slow for the full run is certified by (DESIGN.md) */
        v->word = v->word_own = xasprintf("PASS (recipe sha256:%s%s)", f->recipe_sha256,
                                          fresh_windows_passed(f->res) ? ", windows" : "");
        v->exit_code = EXIT_RECIPE_PASS;
    } else if (!f->official && !f->recipe_sha256) {
        v->word = "UNOFFICIAL";
        v->exit_code = EXIT_UNOFFICIAL;
    } else if (f->seed_given) {
        v->word = "REPRODUCTION";
        v->exit_code = EXIT_REPRODUCTION;
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
    free(v->first_failure);
    v->first_failure = NULL;
    free(v->word_own);
    v->word_own = NULL;
}
