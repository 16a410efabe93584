/* The GPT family trained (spec §16.5): a recipe's row, made at run time,
 * through the run loop every profile uses. gptchar's recipe trains
 * gptchar's published steps; the tiny recipe gives one set of bits on
 * every kernel set and thread count; and the schedule length is the
 * recipe's S, not its steps (the control: with S = steps the bits move). */
#include <stdlib.h>
#include <string.h>

#include "isotrain_gpt.h"
#include "testutil.h"

/* trains `steps` steps of row p; digests[t] is step t's checkpoint digest */
static void train(const it_profile *p, unsigned threads, uint32_t steps, char digests[][65], float *loss1)
{
    it_train_config cfg = it_train_config_default(p);
    cfg.threads = threads;
    it_train_state *s = it_train_state_new(p);
    cr_assert(s);
    it_train_start(p, &cfg, s);
    it_params_digest(s->params, p->nparams, digests[0]);
    for (uint32_t t = 1; t <= steps; t++) {
        cr_assert_eq(it_train_step_alone(p, &cfg, s), IT_OK, "step %u", (unsigned)t);
        if (t == 1 && loss1)
            *loss1 = s->last_loss;
        it_params_digest(s->params, p->nparams, digests[t]);
    }
    it_train_state_free(s);
}

/* a recipe and the row made of it (g.p) */
typedef struct {
    it_gpt_recipe r;
    it_gpt_profile g;
} recipe_row;

static void load(const char *path, recipe_row *x)
{
    char err[1024] = "";
    cr_assert_eq(it_gpt_recipe_load(path, &x->r, err, sizeof err), 0, "%s", err);
    cr_assert_eq(it_gpt_profile_make(&x->r, &x->g), 0);
}

static void unload(recipe_row *x)
{
    it_gpt_profile_free(&x->g);
    it_gpt_recipe_free(&x->r);
}

/* §16.6, and §14.8's published digests of steps 0 ... 3 */
Test(gpt_family, gptchar_recipe_trains_gptchar, .timeout = 120)
{
    static const char *const published[4] = {
        "7a78ab5ff89433dab16c2dac6c0b061528985fc33e10cec40ef5a7e7096a023d",
        "9151d8952ad6dc14c47f7524fc6d370d7ac3c79e42dd5a70023445666455a325",
        "f9d785ecf689b1792bb02fdcc09f5f2decc7a0253594e69b606f1644578be297",
        "54458a5ddd79362c46a3240588b03c86efb5f8112b259a6fddad1457e8285f46",
    };
    recipe_row x;
    load("spec/recipes/gptchar.json", &x);
    char mine[4][65], row[4][65];
    float loss = 0;
    train(&x.g.p, 1, 3, mine, &loss);
    train(&it_profile_gptchar, 1, 3, row, NULL);
    assert_bits(loss, 0x40849123u);
    for (int t = 0; t <= 3; t++) {
        cr_assert_str_eq(mine[t], published[t], "step %d", t);
        cr_assert_str_eq(row[t], published[t], "step %d (gptchar's row)", t);
    }
    unload(&x);
}

/* Row p trained `steps` steps on every kernel set and on 1 and 2 threads:
 * the step-1 loss is loss1_bits and every step's digest the first run's
 * (returned in first[0 .. steps]) in every run. */
static void one_run_everywhere(const it_profile *p, uint32_t steps, uint32_t loss1_bits, char first[][65])
{
    const char *sets[16];
    size_t n = it_kernels_available(sets, 16);
    char (*d)[65] = calloc(steps + 1, sizeof *d);
    cr_assert_not_null(d);
    for (size_t i = 0; i < n; i++)
        for (unsigned threads = 1; threads <= 2; threads++) {
            cr_assert_eq(it_kernels_select(sets[i]), 0);
            float loss = 0;
            train(p, threads, steps, d, &loss);
            cr_assert_eq(B(loss), loss1_bits, "step-1 loss 0x%08x (kernel set %s, %u threads)", (unsigned)B(loss),
                         sets[i], threads);
            if (i == 0 && threads == 1)
                memcpy(first, d, (steps + 1) * sizeof *d);
            for (uint32_t t = 0; t <= steps; t++)
                cr_assert_str_eq(d[t], first[t], "step %u: kernel set %s, %u threads", (unsigned)t, sets[i], threads);
        }
    it_kernels_select(NULL);
    free(d);
}

/* §16.5's vectors of tiny.json: the step-1 loss and the digests of its run,
 * the same on every kernel set and on 1 and 2 threads */
Test(gpt_family, tiny_recipe_is_one_run_everywhere, .timeout = 120)
{
    recipe_row x;
    load("spec/recipes/tiny.json", &x);
    char first[6][65];
    one_run_everywhere(&x.g.p, 5, 0x40836d2bu, first);
    cr_assert_str_eq(first[0], "8efec482304e9e95a09689ba22847436390892dd994e9e060d40257e55c6a4d3");
    cr_assert_str_eq(first[5], "b34581bd32a663de17718e60db5c87c3b7adf030584fb1f756ecbac6266658a3");
    unload(&x);
}

/* §16.2: a context longer than 64 (up to 2,048). tiny.json with context
 * 130, 2 steps: one run on every kernel set and 1 and 2 threads, and the
 * bits a trainer written from the spec alone (2026-12-04, not this code)
 * trained for that recipe, step by step through the runner: step-1 loss
 * 0x40834d18, step-2 digest c6de79d7... Before that day the reference's
 * §5.12 kept 64 keys per query on the stack and crashed here. */
Test(gpt_family, a_context_over_64_is_one_run_everywhere, .timeout = 120)
{
    recipe_row x;
    char err[1024] = "";
    cr_assert_eq(it_gpt_recipe_load("spec/recipes/tiny.json", &x.r, err, sizeof err), 0, "%s", err);
    x.r.shape.context = 130;
    cr_assert_eq(it_gpt_derive(&x.r.shape, &x.r.d, err, sizeof err), 0, "%s", err);
    cr_assert_eq(it_gpt_profile_make(&x.r, &x.g), 0);
    char first[3][65];
    one_run_everywhere(&x.g.p, 2, 0x40834d18u, first);
    cr_assert_str_eq(first[2], "c6de79d77e36506c90ad6b02a9937b9b27266ce158db0608662656a25936a5be");
    unload(&x);
}

/* §16.2: S is the recipe's schedule_length. The control: the same row with
 * S taken from its steps trains other bits from step 1 (the warm-up's
 * rates are the same; the decay's are not) */
Test(gpt_family, schedule_length_is_not_the_steps, .timeout = 120)
{
    recipe_row x;
    load("spec/recipes/tiny.json", &x);
    char right[6][65], wrong[6][65];
    train(&x.g.p, 1, 5, right, NULL);
    x.g.p.schedule_length = 0; /* the run loop's default: the row's steps */
    train(&x.g.p, 1, 5, wrong, NULL);
    cr_assert_str_eq(right[2], wrong[2], "the warm-up (steps 1, 2) does not depend on S");
    for (int t = 3; t <= 5; t++)
        cr_assert_str_neq(right[t], wrong[t], "step %d: the decay's rates depend on S", t);
    unload(&x);
}
