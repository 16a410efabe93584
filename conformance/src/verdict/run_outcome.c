/* run_outcome.c — the facts of one run for the verdict table (verdict/scope.h):
 * what the options selected, whether the set is pinned, the spec versions,
 * and the cases; and the level each profile reached. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "verdict/run_outcome.h"
#include "core/util.h"
#include "protocol/iut_keeper.h"

void run_outcome_verdict(const run_outcome *o, run_verdict *out)
{
    const conform_args *a = o->a;
    scope_facts f;
    memset(&f, 0, sizeof f);
    f.hello_ok = o->hello_ok;
    f.level = a->level;
    f.n_filters = a->n_filters;
    f.profile = a->profile;
    f.steps = a->steps;
    f.set_steps = 0;
    for (size_t i = 0; i < o->vs->n_trains; i++) {
        const train_vec *tv = &o->vs->trains[i];
        if (a->profile && strcmp(a->profile, tv->profile) != 0)
            f.profile_excludes = 1;
        else if (!f.set_steps || tv->steps < (uint32_t)f.set_steps)
            f.set_steps = tv->steps;
    }
    f.official = o->official;
    f.recipe_sha256 = o->recipe_sha256;
    f.manifest_digest = o->manifest_digest;
    f.req = o->req;
    req_apply(o->req, o->res); /* every case, the protocol ones too */
    /* trust: who chose the seed, whether the subject is bound, what ran */
    char seed[24]; /* scope_verdict copies what it quotes */
    snprintf(seed, sizeof seed, "%llu", (unsigned long long)o->run_seed);
    f.seed_given = a->seed_given;
    f.seed = seed;
    f.subject_unbound = o->subject_unbound;
    f.fresh_only = a->fresh_only;
    f.interrupted = contain_interrupted();
    scope_facts_from_results(&f, o->res);
    scope_verdict(&f, out);
}

/* A profile's cases at one level pass: at least one passed, none failed or
 * errored, no required one skipped. -1: the level has no case of it. */
static int profile_level_ok(const run_outcome *o, const char *profile, const char *level)
{
    size_t pass = 0, bad = 0;
    for (size_t i = 0; i < o->res->n; i++) {
        const case_result *c = &o->res->c[i];
        if (strcmp(c->level, level) != 0)
            continue;
        int mine;
        if (!strcmp(level, "train"))
            mine = !strncmp(c->suite, "train/", 6) && !strcmp(c->suite + 6, profile);
        else {
            mine = 0;
            for (size_t g = 0; g < o->vs->n_groups && !mine; g++)
                mine = !strncmp(c->suite, "ops/", 4) && !strcmp(c->suite + 4, o->vs->groups[g].group) &&
                       req_group_serves(&o->vs->groups[g], profile);
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
size_t run_outcome_reached(const run_outcome *o, reached_level **out)
{
    const conform_args *a = o->a;
    reached_level *r = NULL;
    size_t n = 0;
    for (size_t i = 0; i < o->vs->n_trains; i++) {
        const char *p = o->vs->trains[i].profile;
        if (a->profile && strcmp(a->profile, p) != 0)
            continue;
        const char *reached = "none";
        /* a profile newer than the IUT's spec is not implemented, whatever
         * the op groups it shares with older profiles did */
        int stop = !o->hello_ok || req_beyond_iut(o->req, o->vs->trains[i].spec_version);
        const char *ln[2] = {"ops", "train"};
        for (int l = 0; l < 2; l++) {
            int ok = profile_level_ok(o, p, ln[l]);
            if (ok < 0) /* not run, or none of its cases selected */
                continue;
            /* the ops process misbehaved around its cases (P3): no profile's ops pass */
            if (ok != 1 || (l == 0 && o->lv_ops == L_ERROR))
                stop = 1;
            if (!stop)
                reached = ln[l];
        }
        r = xrealloc(r, (n + 1) * sizeof *r);
        r[n].profile = p;
        r[n].level = reached;
        n++;
    }
    *out = r;
    return n;
}

char *run_outcome_reached_text(const reached_level *r, size_t n)
{
    if (!n)
        return xstrdup("none");
    int same = 1;
    for (size_t i = 1; i < n; i++)
        same &= !strcmp(r[i].level, r[0].level);
    if (same)
        return xstrdup(r[0].level);
    sbuf b;
    sbuf_init(&b);
    for (size_t i = 0; i < n; i++)
        sbuf_printf(&b, "%s%s %s", i ? ", " : "", r[i].profile, r[i].level);
    return sbuf_take(&b);
}
