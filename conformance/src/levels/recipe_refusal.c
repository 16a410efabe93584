/* recipe_refusal.c — the fresh case fresh/<recipe>/corpus-digest of a
 * recipe set (P7 1.3.0; spec §16.1: an implementation MUST compute the
 * corpus's SHA-256 and MUST refuse the recipe when it differs, a usage
 * error, exit 2, before any file is created). The set's recipe is handed to
 * the IUT with its corpus altered: two bytes that differ, at places drawn
 * from the run seed, change places. The length and the bytes stay, so the
 * vocabulary and every range of §16.2 are still met and only the digest
 * can tell; the places are fresh, so no fixed list of altered corpora can
 * stand in for the check. The golden run and the fresh-seed run give the
 * IUT the pinned corpus, so this is the one case that sees an IUT that
 * never compares the digest (mutant recipe-digest-unchecked). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fresh/fresh.h"
#include "isotrain.h"
#include "levels/levels.h"
#include "levels/time_budget.h"

/* The corpus among the recipe's files: the one whose SHA-256 the recipe
 * names (the manifest verified every file); -1 when none is. */
static long corpus_index(const train_recipe *rec, const unsigned char want[32])
{
    for (size_t i = 0; i < rec->n_files; i++) {
        unsigned char got[32];
        it_sha256(rec->files[i].data, rec->files[i].len, got);
        if (!memcmp(got, want, 32))
            return (long)i;
    }
    return -1;
}

/* A copy of the corpus with the bytes at *a and *b swapped, *a drawn from
 * the run seed and *b the first byte unequal to it from a drawn place on;
 * NULL when every byte is the same (no recipe's corpus: V >= 2, §16.2). */
static unsigned char *altered_corpus(const train_input *in, uint64_t seed, size_t *a, size_t *b)
{
    const size_t n = in->len;
    if (n < 2 || n > UINT32_MAX)
        return NULL;
    fresh_rng g;
    fresh_rng_init(&g, seed, "recipe-corpus-digest");
    *a = fresh_below(&g, (uint32_t)n);
    const size_t from = fresh_below(&g, (uint32_t)n);
    for (size_t k = 0; k < n; k++) {
        *b = (from + k) % n;
        if (in->data[*b] != in->data[*a]) {
            unsigned char *c = xmalloc(n);
            memcpy(c, in->data, n);
            c[*a] = in->data[*b];
            c[*b] = in->data[*a];
            return c;
        }
    }
    return NULL;
}

/* Why the IUT's answer is not P7's refusal (exit 2, no file made), or NULL */
static char *refusal_problem(const train_exec *x, const char *corpus)
{
    if (!x->started)
        return xasprintf("runner: the IUT could not be started: %s", x->r.status_text);
    if (x->r.exited_ok)
        return xasprintf("the IUT trained a recipe whose corpus %s does not have the recipe's corpus.sha256 (exit "
                         "0); spec 16.1 and P7 1.3.0 require a refusal, exit 2",
                         corpus);
    if (!train_exec_refused(x) || x->r.exit_code != 2)
        return xasprintf("the IUT ended with %s given a recipe whose corpus %s does not have the recipe's "
                         "corpus.sha256; P7 1.3.0: a usage error, exit 2",
                         x->r.status_text, corpus);
    for (uint32_t t = 0; t <= x->steps; t++)
        if (x->ck[t].present)
            return xasprintf("the IUT refused (exit 2) but wrote step-%06u.bin first; P7: the refusal comes before "
                             "any file is created",
                             (unsigned)t);
    if (x->trace_exists)
        return xstrdup("the IUT refused (exit 2) but created its trace first; P7: the refusal comes before any file "
                       "is created");
    return NULL;
}

/* The IUT given the recipe with input ci replaced by data; 0, or -1 with err */
static int run_altered(run_ctx *rc, const train_vec *tv, const train_recipe *rec, long ci, const unsigned char *data,
                       train_exec *x, char *err, size_t cap)
{
    train_input *in = xcalloc(rec->n_files, sizeof *in);
    memcpy(in, rec->files, rec->n_files * sizeof *in);
    in[ci].data = data;
    const train_recipe alt = {rec->recipe_rel, in, rec->n_files};
    const train_request q = {.what = {.profile = tv->profile, .recipe = &alt},
                             .steps = 1,
                             .ck_size = 4 * tv->parameters,
                             .timeout = rc_timeout_train(rc, tv->profile, 1)};
    const int started = train_exec_run(rc->a->iut, &q, x, err, cap);
    free(in);
    return started;
}

/* The case's verdict and reason, and its line on the run's output */
static void record(run_ctx *rc, const char *suite, const char *id, verdict v, const char *why, double seconds,
                   const char *what)
{
    results_add(&rc->res, "fresh", suite, id, v, why, 1, seconds);
    if (why)
        fprintf(rc->out, "    %s %s: %s\n", verdict_name(v), id, why);
    else
        fprintf(rc->out, "  fresh %s refused, exit 2: passed (%.2f s)\n", what, seconds);
}

void recipe_refusal_run(run_ctx *rc, const train_vec *tv)
{
    char suite[64], id[96], err[512], what[160];
    snprintf(suite, sizeof suite, "fresh/train/%s", tv->profile);
    snprintf(id, sizeof id, "fresh/%s/corpus-digest", tv->profile);
    train_recipe rec;
    recipe_inputs(rc, &rec);
    const unsigned char *want = recipe_corpus_sha256(rc);
    const long ci = want ? corpus_index(&rec, want) : -1;
    size_t a = 0, b = 0;
    unsigned char *alt = ci < 0 ? NULL : altered_corpus(&rec.files[ci], rc->run_seed, &a, &b);
    if (!alt) {
        record(rc, suite, id, V_ERROR, "runner: the set holds no corpus of the recipe's digest with two unequal bytes",
               0, NULL);
        free((void *)rec.files);
        return;
    }
    const char *corpus = rec.files[ci].rel;
    snprintf(what, sizeof what, "%s, corpus %s with bytes %zu and %zu swapped,", tv->profile, corpus, a, b);
    train_exec x;
    if (run_altered(rc, tv, &rec, ci, alt, &x, err, sizeof err) != 0) {
        char *why = xasprintf("runner: %s", err);
        record(rc, suite, id, V_ERROR, why, 0, what);
        free(why);
    } else {
        char *why = refusal_problem(&x, corpus);
        /* P8: an IUT past its deadline is an ERROR, never a FAIL */
        record(rc, suite, id, !why ? V_PASS : x.r.timed_out ? V_ERROR : V_FAIL, why, x.r.seconds, what);
        free(why);
        train_exec_free(&x, 0);
    }
    free(alt);
    free((void *)rec.files);
}
