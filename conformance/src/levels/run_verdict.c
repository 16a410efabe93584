/* run_verdict.c — the facts of one run for the verdict table (verdict/scope.h):
 * what the options selected, whether the set is pinned, the spec versions,
 * and the cases; and the level each profile reached. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "levels/levels.h"
#include "protocol/iut_keeper.h"

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
    f.recipe_sha256 = rc->recipe_name ? rc->man.recipe_sha256 : NULL;
    f.manifest_digest = rc->man.digest;
    f.req = &rc->req;
    req_apply(&rc->req, &rc->res); /* every case, the protocol ones too */
    /* trust: who chose the seed, whether the subject is bound, what ran */
    static char seed[24];
    snprintf(seed, sizeof seed, "%llu", (unsigned long long)rc->run_seed);
    f.seed_given = a->seed_given;
    f.seed = seed;
    f.subject_unbound = rc->target == NULL;
    f.fresh_only = a->fresh_only;
    f.interrupted = contain_interrupted();
    scope_facts_from_results(&f, &rc->res);
    scope_verdict(&f, &rc->verdict);
}

/* A profile's cases at one level pass: at least one passed, none failed or
 * errored, no required one skipped. -1: the level has no case of it. */
static int profile_level_ok(const run_ctx *rc, const char *profile, const char *level)
{
    size_t pass = 0, bad = 0;
    for (size_t i = 0; i < rc->res.n; i++) {
        const case_result *c = &rc->res.c[i];
        if (strcmp(c->level, level) != 0)
            continue;
        int mine;
        if (!strcmp(level, "train"))
            mine = !strncmp(c->suite, "train/", 6) && !strcmp(c->suite + 6, profile);
        else {
            mine = 0;
            for (size_t g = 0; g < rc->vs.n_groups && !mine; g++)
                mine = !strncmp(c->suite, "ops/", 4) && !strcmp(c->suite + 4, rc->vs.groups[g].group) &&
                       req_group_serves(&rc->vs.groups[g], profile);
        }
        if (!mine || (c->v == V_SKIP && !c->required))
            continue;
        if (c->v == V_PASS)
            pass++;
        else
            bad++;
    }
    if (!pass && !bad)
        return -1;
    return pass && !bad;
}

/* conformance/README.md "Verdicts": per profile, ops when every required op
 * case of the groups it uses passed, train when its golden run passed too
 * (a level with no case of the profile is passed over, as --level and
 * --filter ask). */
void run_levels_reached(run_ctx *rc, int hello_ok)
{
    const conform_args *a = rc->a;
    for (size_t i = 0; i < rc->vs.n_trains; i++) {
        const char *p = rc->vs.trains[i].profile;
        if (a->profile && strcmp(a->profile, p) != 0)
            continue;
        const char *reached = "none";
        /* a profile newer than the IUT's spec is not implemented, whatever
         * the op groups it shares with older profiles did */
        int stop = !hello_ok || req_beyond_iut(&rc->req, rc->vs.trains[i].spec_version);
        const char *ln[2] = {"ops", "train"};
        for (int l = 0; l < 2; l++) {
            int ok = profile_level_ok(rc, p, ln[l]);
            if (ok < 0) /* not run, or none of its cases selected */
                continue;
            /* the ops process misbehaved around its cases (P3): no profile's ops pass */
            if (ok != 1 || (l == 0 && rc->lv_ops == L_ERROR))
                stop = 1;
            if (!stop)
                reached = ln[l];
        }
        rc->reached = xrealloc(rc->reached, (rc->n_reached + 1) * sizeof *rc->reached);
        rc->reached[rc->n_reached].profile = p;
        rc->reached[rc->n_reached].level = reached;
        rc->n_reached++;
    }
}

char *run_levels_reached_text(const run_ctx *rc)
{
    if (!rc->n_reached)
        return xstrdup("none");
    int same = 1;
    for (size_t i = 1; i < rc->n_reached; i++)
        same &= !strcmp(rc->reached[i].level, rc->reached[0].level);
    if (same)
        return xstrdup(rc->reached[0].level);
    sbuf b;
    sbuf_init(&b);
    for (size_t i = 0; i < rc->n_reached; i++)
        sbuf_printf(&b, "%s%s %s", i ? ", " : "", rc->reached[i].profile, rc->reached[i].level);
    return sbuf_take(&b);
}
