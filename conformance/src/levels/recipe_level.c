/* recipe_level.c — what a run against a recipe set (issue 32;
 * vectorset/recipe_set.h) needs beyond an official set's: the recipe the
 * manifest pinned, read by the linked reference's strict reader (spec
 * §16.1), and the files an IUT is told to train (P7 1.3.0, `train --recipe
 * FILE`). The train level judges its steps as any profile's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "isotrain_gpt.h"
#include "levels/levels.h"
#include "levels/runner_profiles.h"
#include "levels/time_budget.h"
#include "vectorset/ops_base.h"
#include "vectorset/recipe_set.h"

/* The recipe a run holds (run_ctx.h): read once, its row of the run loop
 * built from it, and the runner's row around that (no localizer: the op
 * replay is per profile, and a failed recipe step is told by its tensor
 * and element alone). */
struct it_gpt_recipe_ctx {
    it_gpt_recipe r;
    it_gpt_profile row;
    runner_profile rp;
};

void recipe_ctx_free(struct it_gpt_recipe_ctx *c)
{
    if (!c)
        return;
    it_gpt_profile_free(&c->row);
    it_gpt_recipe_free(&c->r);
    free(c);
}

const runner_profile *rc_runner_profile(const run_ctx *rc, const train_vec *tv)
{
    if (rc->recipe && !strcmp(tv->profile, RECIPE_SET_PROFILE))
        return rc->recipe->rp.ref->nparams == tv->parameters ? &rc->recipe->rp : NULL;
    return runner_profile_of(tv);
}

int recipe_set_open(run_ctx *rc, char *err, size_t cap)
{
    struct it_gpt_recipe_ctx *c = xcalloc(1, sizeof *c);
    if (recipe_set_recipe(rc->a->vectors, &rc->man, &c->r, err, cap) != 0) {
        free(c);
        return -1;
    }
    if (it_gpt_profile_make(&c->r, &c->row) != 0) {
        it_gpt_recipe_free(&c->r);
        free(c);
        return snprintf(err, cap, "out of memory for the recipe's tensors"), -1;
    }
    c->rp.ref = &c->row.p;
    rc->recipe = c;
    rc->recipe_name = xstrdup(c->r.name);
    return 0;
}

int recipe_ops_open(run_ctx *rc)
{
    problems pr;
    problems_init(&pr);
    rc->ops_dir = recipe_ops_dir(rc->a->ops_vectors);
    manifest_info m;
    size_t bad = recipe_ops_adopt(rc->ops_dir, &rc->vs, req_group_family, &m, &pr);
    snprintf(rc->ops_digest, sizeof rc->ops_digest, "%s", m.digest);
    manifest_free(&m);
    if (bad) {
        fprintf(stderr, "isotrain-conform: refusing the op vectors %s of recipe set %s:\n", rc->ops_dir,
                rc->a->vectors);
        problems_print(&pr, stderr, "  ");
        fprintf(rc->out, "vectors: REFUSED (the op vectors %s: %zu problem%s, see stderr; --ops-vectors DIR names "
                         "the set v%s); no case was run\n", rc->ops_dir, bad, bad == 1 ? "" : "s", RECIPE_OPS_SET);
    }
    problems_free(&pr);
    return bad ? -1 : 0;
}

const unsigned char *recipe_corpus_sha256(const run_ctx *rc)
{
    return rc->recipe ? rc->recipe->r.corpus_sha256 : NULL;
}

/* The set's files outside the vector files: the recipe and its corpus. */
static int recipe_input(const char *path)
{
    return strncmp(path, "train/", 6) != 0 && strncmp(path, "windows/", 8) != 0;
}

void recipe_inputs(const run_ctx *rc, train_recipe *rec)
{
    memset(rec, 0, sizeof *rec);
    rec->recipe_rel = rc->man.recipe_path;
    train_input *in = xcalloc(rc->man.n_files ? rc->man.n_files : 1, sizeof *in);
    for (size_t i = 0; i < rc->man.n_files; i++) {
        const manifest_file *f = &rc->man.files[i];
        if (recipe_input(f->path) && f->data)
            in[rec->n_files++] = (train_input){f->path, f->data, f->len};
    }
    rec->files = in;
}

int rc_train_run(run_ctx *rc, const train_vec *tv, train_request q, train_exec *x, char *err, size_t cap)
{
    train_recipe rec;
    memset(&rec, 0, sizeof rec);
    q.what = (train_what){.profile = tv->profile};
    if (rc->recipe_name) {
        recipe_inputs(rc, &rec);
        q.what.recipe = &rec;
    }
    q.ck_size = 4 * tv->parameters; /* P8 */
    if (q.timeout <= 0)
        q.timeout = rc_timeout_train(rc, tv->profile, q.steps - q.from);
    const int started = train_exec_run(rc->a->iut, &q, x, err, cap);
    free((void *)rec.files);
    /* P7, spec §9.2/§9.4: every run's header names what was asked (the
     * recipe's name for a recipe) and its last step N; a trace of another
     * run is no trace of this one, whichever level asked for it */
    const char *name = rc->recipe_name ? rc->recipe_name : tv->profile;
    if (started == 0 && x->trace_ok && (strcmp(x->tr.profile, name) != 0 || x->tr.steps != q.steps)) {
        x->trace_ok = 0;
        snprintf(x->trace_err, sizeof x->trace_err,
                 "its header says profile=%.64s steps=%u, expected profile=%.64s steps=%u: the trace of another run",
                 x->tr.profile, (unsigned)x->tr.steps, name, (unsigned)q.steps);
    }
    return started;
}
