/* vectors.c — `isotrain-conform vectors --recipe R.json --out DIR [--steps N]
 * [--sign-key KEY]`: a recipe vector set made on demand (issue 32, spec
 * §16). The linked reference trains the recipe through its one run loop
 * (the row it_gpt_profile_make builds, the step `isotrain train --recipe`
 * takes), on the portable kernel set main() selected: the definition, so
 * the set is the same bits on every host. The set (conformance/README.md
 * "Recipe vector sets") holds the recipe byte for byte and its corpus, the
 * training file of every step (vectors/FORMAT.md §3), window start states
 * (§6), and a manifest (§4) naming the recipe and its SHA-256. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <dirent.h>

#include <cjson/cJSON.h>

#include "cli/commands.h"
#include "core/util.h"
#include "core/version.h"
#include "isotrain_gpt.h"
#include "isotrain_profile.h"
#include "trust/sshsig.h"
#include "vectorset/manifest.h"
#include "vectorset/recipe_set.h"
#include "vectorset/set_docs.h"

enum { RECIPE_FILE_MAX = 1 << 20, PROGRESS_EVERY_S = 5 };

/* The official sets' windows run 3 steps (v1.2.0 windows/gptchar.json):
 * long enough to cross an update of every moment, short under emulation. */
enum { WINDOW_STEPS = 3, N_WINDOWS = 3 };

typedef struct {
    const char *out;
    manifest_file *files;
    size_t n;
    char err[640];
} set_writer;

/* Writes rel inside the set and lists it for the manifest; 0 or -1. */
static int put(set_writer *w, const char *rel, const void *data, size_t len)
{
    char *full = xasprintf("%s/%s", w->out, rel);
    int rc = make_parent_dirs(full) != 0 ? (snprintf(w->err, sizeof w->err, "%s: cannot create its directory: %s",
                                                      full, strerror(errno)),
                                             -1)
                                          : write_file(full, data, len, w->err, sizeof w->err);
    free(full);
    if (rc)
        return -1;
    unsigned char d[32];
    it_sha256(data, len, d);
    w->files = xrealloc(w->files, (w->n + 1) * sizeof *w->files);
    manifest_file *f = &w->files[w->n++];
    memset(f, 0, sizeof *f);
    f->path = xstrdup(rel);
    f->size = len;
    it_hex(d, 32, f->sha256);
    return 0;
}

static int put_json(set_writer *w, const char *rel, cJSON *root)
{
    char *text = cJSON_Print(root);
    if (!text) {
        snprintf(w->err, sizeof w->err, "%s: out of memory", rel);
        return -1;
    }
    sbuf b;
    sbuf_init(&b);
    sbuf_adds(&b, text);
    sbuf_addc(&b, '\n');
    free(text);
    int rc = put(w, rel, b.p, b.len);
    sbuf_free(&b);
    return rc;
}

/* The params (or a moment) as checkpoint bytes (spec §8.1); digest in hex. */
static unsigned char *state_bytes(const float *x, size_t n, char hex[65])
{
    unsigned char *b = xmalloc(4 * n), d[32];
    it_store_f32le(x, n, b);
    it_sha256(b, 4 * n, d);
    it_hex(d, 32, hex);
    return b;
}

/* The out directory: new, or empty; 0, or -1 with what was expected. */
static int out_dir_ready(const char *out, char *err, size_t cap)
{
    if (mkdir(out, 0777) == 0)
        return 0;
    if (errno != EEXIST)
        return snprintf(err, cap, "--out %s: cannot create the directory: %s (expected a new or empty directory)",
                        out, strerror(errno)),
               -1;
    DIR *d = opendir(out);
    if (!d)
        return snprintf(err, cap, "--out %s: exists and is not a readable directory (%s); expected a new or empty "
                                  "directory",
                        out, strerror(errno)),
               -1;
    struct dirent *e;
    int empty = 1;
    while ((e = readdir(d)) != NULL)
        empty &= !strcmp(e->d_name, ".") || !strcmp(e->d_name, "..");
    closedir(d);
    if (!empty)
        return snprintf(err, cap, "--out %s: exists and is not empty (expected a new or empty directory: a set is "
                                  "never written over another)",
                        out),
               -1;
    return 0;
}

/* The steps the train file keeps checkpoint files of: the recipe's own up to
 * N, and N itself (a narrowed run ends on a file too). */
static size_t ck_steps_of(const it_gpt_recipe *r, uint32_t n, uint32_t *ck)
{
    size_t k = 0;
    for (size_t i = 0; i < r->n_checkpoint_steps; i++)
        if (r->checkpoint_steps[i] < n)
            ck[k++] = r->checkpoint_steps[i];
    ck[k++] = n;
    return k;
}

/* The window starts, spread over the run: 0, N/3, 2N/3 (distinct, each
 * leaving room for at least one step). */
static size_t window_starts(uint32_t n, uint32_t *from)
{
    size_t k = 0;
    for (uint32_t i = 0; i < N_WINDOWS; i++) {
        uint32_t f = (uint32_t)((uint64_t)n * i / N_WINDOWS);
        if (f < n && (k == 0 || f > from[k - 1]))
            from[k++] = f;
    }
    return k;
}

typedef struct {
    uint32_t steps;
    char (*digest)[65]; /* steps + 1 */
    uint32_t *loss;     /* steps + 1, [0] unused */
    float **ck;         /* a copy of the params at each ck step */
    uint32_t ck_steps[1024];
    size_t n_ck;
    uint32_t from[N_WINDOWS];
    size_t n_from;
    float *win[N_WINDOWS][3]; /* params, m, v at each window start */
} recipe_run;

static float *copy_of(const float *x, size_t n)
{
    float *c = xmalloc(n * sizeof *c);
    memcpy(c, x, n * sizeof *c);
    return c;
}

/* Trains the recipe to run->steps, keeping every step's digest and loss,
 * the checkpoints and the window states; 0, or -1 with err. */
static int train(const it_gpt_profile *g, recipe_run *run, const char *name, char *err, size_t cap)
{
    const it_profile *p = &g->p;
    if (it_fpenv_check(err, cap) != IT_OK)
        return -1;
    it_train_config cfg = it_train_config_default(p);
    it_train_state *s = it_train_state_new(p);
    if (!s)
        return snprintf(err, cap, "out of memory for %zu parameters", p->nparams), -1;
    it_train_start(p, &cfg, s);
    it_train_run tr = {p, &cfg, s, &it_reducer_local, NULL};
    if (p->work_new && !(tr.work = p->work_new(&tr))) {
        it_train_state_free(s);
        return snprintf(err, cap, "out of memory for the recipe's workspace"), -1;
    }
    double t0 = now_s(), last = t0;
    size_t ci = 0, wi = 0;
    int rc = 0;
    for (uint32_t t = 0;; t++) {
        unsigned char *b = state_bytes(s->params, p->nparams, run->digest[t]);
        free(b);
        if (t > 0) {
            uint32_t bits;
            memcpy(&bits, &s->last_loss, 4);
            run->loss[t] = bits;
        }
        if (ci < run->n_ck && run->ck_steps[ci] == t)
            run->ck[ci++] = copy_of(s->params, p->nparams);
        if (wi < run->n_from && run->from[wi] == t) {
            run->win[wi][0] = copy_of(s->params, p->nparams);
            run->win[wi][1] = copy_of(s->m, p->nparams);
            run->win[wi][2] = copy_of(s->v, p->nparams);
            wi++;
        }
        if (t == run->steps)
            break;
        it_status st = it_train_step(&tr);
        if (st != IT_OK) {
            snprintf(err, cap, "the reference failed at step %u of recipe %s (status %d)", (unsigned)t + 1, name,
                     (int)st);
            rc = -1;
            break;
        }
        double now = now_s();
        if (now - last >= PROGRESS_EVERY_S) { /* a long run says it is alive */
            fprintf(stderr, "isotrain-conform vectors: recipe %s: step %u/%u (%.0f%%), %.0f s\n", name,
                    (unsigned)t + 1, (unsigned)run->steps, 100.0 * (t + 1) / run->steps, now - t0);
            last = now;
        }
    }
    if (p->work_free)
        p->work_free(tr.work);
    it_train_state_free(s);
    if (!rc)
        fprintf(stderr, "isotrain-conform vectors: recipe %s: %u steps trained in %.1f s\n", name,
                (unsigned)run->steps, now_s() - t0);
    return rc;
}

static void run_free(recipe_run *run)
{
    free(run->digest);
    free(run->loss);
    for (size_t i = 0; i < run->n_ck; i++)
        free(run->ck[i]);
    free(run->ck);
    for (size_t i = 0; i < N_WINDOWS; i++)
        for (int k = 0; k < 3; k++)
            free(run->win[i][k]);
}

static cJSON *header(const char *schema, const char *clause, const char *generator)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "schema", schema);
    cJSON_AddStringToObject(o, "spec_version", RECIPE_SET_SPEC_VERSION);
    cJSON_AddStringToObject(o, "vector_version", RECIPE_SET_SPEC_VERSION);
    cJSON_AddStringToObject(o, "profile", RECIPE_SET_PROFILE);
    cJSON_AddStringToObject(o, "spec_clause", clause);
    cJSON_AddStringToObject(o, "generator", generator);
    return o;
}

static int sink_put(void *ctx, const char *rel, const void *data, size_t len)
{
    return put(ctx, rel, data, len);
}

/* train/recipe.json and its checkpoint files (FORMAT.md §3), through the
 * builder the official sets' generator uses too. */
static int write_train(set_writer *w, const it_gpt_profile *g, const recipe_run *run, const char *gen)
{
    const it_profile *p = &g->p;
    char corpus[65];
    it_hex(g->r->corpus_sha256, 32, corpus);
    const train_file tf = {RECIPE_SET_PROFILE, p->tensors, p->ntensors, p->nparams, corpus, run->steps, run->loss,
                           run->digest, run->ck_steps, run->n_ck, (const float *const *)run->ck};
    const set_sink sink = {sink_put, w};
    cJSON *root = header("isotrain-train-vectors-v1", p->clause, gen);
    int rc = set_docs_train(root, &tf, &sink, w->err, sizeof w->err);
    if (!rc)
        rc = put_json(w, "train/" RECIPE_SET_PROFILE ".json", root);
    cJSON_Delete(root);
    return rc;
}

/* windows/recipe.json and the state files of each start (FORMAT.md §6). */
static int write_windows(set_writer *w, const it_gpt_profile *g, const recipe_run *run, const char *gen)
{
    window_desc wd[N_WINDOWS];
    for (size_t i = 0; i < run->n_from; i++) {
        uint32_t f = run->from[i];
        wd[i] = (window_desc){f, f + WINDOW_STEPS < run->steps ? f + WINDOW_STEPS : run->steps, run->win[i][0],
                              run->win[i][1], run->win[i][2]};
    }
    const set_sink sink = {sink_put, w};
    cJSON *root = header("isotrain-window-vectors-v1", "8.4", gen);
    int rc = set_docs_windows(root, RECIPE_SET_PROFILE, g->p.nparams, 1, wd, run->n_from, run->digest, &sink, w->err,
                              sizeof w->err);
    if (!rc)
        rc = put_json(w, "windows/" RECIPE_SET_PROFILE ".json", root);
    cJSON_Delete(root);
    return rc;
}

static int by_path(const void *a, const void *b)
{
    return strcmp(((const manifest_file *)a)->path, ((const manifest_file *)b)->path);
}

/* MANIFEST.json (FORMAT.md §4, with the recipe's entry) and, with a key,
 * MANIFEST.json.sig over its bytes. */
static int write_manifest(set_writer *w, const char *recipe_rel, const char *gen, const char *key)
{
    qsort(w->files, w->n, sizeof *w->files, by_path);
    const manifest_file *rf = NULL;
    for (size_t i = 0; i < w->n; i++)
        if (!strcmp(w->files[i].path, recipe_rel))
            rf = &w->files[i];
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "schema", "isotrain-manifest-v1");
    cJSON_AddStringToObject(root, "spec_version", RECIPE_SET_SPEC_VERSION);
    cJSON_AddStringToObject(root, "vector_version", RECIPE_SET_SPEC_VERSION);
    cJSON_AddStringToObject(root, "generator", gen);
    cJSON *rec = cJSON_AddObjectToObject(root, "recipe");
    cJSON_AddStringToObject(rec, "path", recipe_rel);
    cJSON_AddStringToObject(rec, "sha256", rf->sha256);
    cJSON *files = cJSON_AddArrayToObject(root, "files");
    for (size_t i = 0; i < w->n; i++) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "path", w->files[i].path);
        cJSON_AddNumberToObject(o, "size", (double)w->files[i].size);
        cJSON_AddStringToObject(o, "sha256", w->files[i].sha256);
        cJSON_AddItemToArray(files, o);
    }
    char digest[65];
    manifest_digest_of(w->files, w->n, digest);
    cJSON_AddStringToObject(root, "manifest_digest", digest);
    char *text = cJSON_Print(root);
    cJSON_Delete(root);
    char *doc = xasprintf("%s\n", text);
    free(text);
    char *mpath = xasprintf("%s/MANIFEST.json", w->out);
    int rc = write_file(mpath, doc, strlen(doc), w->err, sizeof w->err);
    free(mpath);
    if (!rc && key) {
        char *sig = NULL, serr[512];
        if (sshsig_sign(key, doc, strlen(doc), &sig, serr, sizeof serr) != 0) {
            snprintf(w->err, sizeof w->err, "--sign-key %s: %s", key, serr);
            rc = -1;
        } else {
            char *spath = xasprintf("%s/" RECIPE_SET_SIGNATURE, w->out);
            rc = write_file(spath, sig, strlen(sig), w->err, sizeof w->err);
            free(spath);
        }
        free(sig);
    }
    if (!rc)
        printf("vectors: %s: recipe sha256:%s, manifest %s, %zu files%s\n", w->out, rf->sha256, digest, w->n,
               key ? ", signed (" RECIPE_SET_SIGNATURE ")" : "");
    free(doc);
    return rc;
}

/* The recipe's corpus path as a path inside the set: the recipe lies in
 * recipe/, its corpus where its path (relative to the recipe, spec §16.1)
 * leads; NULL (with err) when that leaves the set or meets its own files. */
static char *corpus_rel(const char *text, size_t len, const char *recipe_path, char *err, size_t cap)
{
    cJSON *root = cJSON_ParseWithLength(text, len);
    const cJSON *c = root ? cJSON_GetObjectItemCaseSensitive(root, "corpus") : NULL;
    const cJSON *pth = c ? cJSON_GetObjectItemCaseSensitive(c, "path") : NULL;
    char *rel = NULL;
    if (cJSON_IsString(pth) && pth->valuestring[0] != '/') {
        char *parts[64], *copy = xasprintf("recipe/%s", pth->valuestring), *save = NULL;
        size_t n = 0;
        int ok = 1;
        for (char *tok = strtok_r(copy, "/", &save); tok && ok; tok = strtok_r(NULL, "/", &save)) {
            if (!strcmp(tok, "."))
                continue;
            if (!strcmp(tok, ".."))
                ok = n-- > 0;
            else if (n < 64)
                parts[n++] = tok;
            else
                ok = 0;
        }
        sbuf b;
        sbuf_init(&b);
        for (size_t i = 0; ok && i < n; i++)
            sbuf_printf(&b, "%s%s", i ? "/" : "", parts[i]);
        rel = ok && n > 0 ? sbuf_take(&b) : (sbuf_free(&b), NULL);
        free(copy);
    }
    cJSON_Delete(root);
    static const char *const taken[] = {"MANIFEST.json", "train/", "windows/", "ops/", "receipts/"};
    for (size_t i = 0; rel && i < sizeof taken / sizeof taken[0]; i++)
        if (!strncmp(rel, taken[i], strlen(taken[i]))) {
            free(rel);
            rel = NULL;
        }
    if (!rel)
        snprintf(err, cap, "%s: corpus.path: expected a path that stays inside the set when the recipe lies in "
                           "recipe/ (the corpus is copied beside it), not under train/, windows/, ops/ or receipts/",
                 recipe_path);
    return rel;
}

/* One `vectors` command's parts, freed together whatever step failed. */
typedef struct {
    it_gpt_recipe r;
    int loaded;
    char *text; /* the recipe's bytes, copied into the set as they are */
    size_t len;
    char *crel, *rrel, *gen; /* the corpus's and recipe's paths in the set; the generator line */
    it_gpt_profile g;
    recipe_run run;
    set_writer w;
} recipe_job;

static void job_free(recipe_job *j)
{
    for (size_t i = 0; i < j->w.n; i++)
        free(j->w.files[i].path);
    free(j->w.files);
    run_free(&j->run);
    if (j->g.p.name)
        it_gpt_profile_free(&j->g);
    if (j->loaded)
        it_gpt_recipe_free(&j->r);
    free(j->text);
    free(j->crel);
    free(j->rrel);
    free(j->gen);
}

/* The run's steps (--steps N narrows it), its checkpoint steps and window
 * starts, and the arrays the training fills. */
static int plan_run(const recipe_job *j, long steps, recipe_run *run, const char *recipe, char *err, size_t cap)
{
    const it_gpt_recipe *r = &j->r;
    if (steps == 0 || steps > (long)r->steps)
        return snprintf(err, cap, "--steps %ld: expected 1 to the recipe's steps (%u, %s)", steps,
                        (unsigned)r->steps, recipe),
               -1;
    if (r->n_checkpoint_steps >= sizeof run->ck_steps / sizeof run->ck_steps[0])
        return snprintf(err, cap, "%s: checkpoint_steps: expected at most %zu entries for a vector set", recipe,
                        sizeof run->ck_steps / sizeof run->ck_steps[0] - 1),
               -1;
    run->steps = steps >= 1 ? (uint32_t)steps : r->steps;
    run->digest = xcalloc(run->steps + 1, sizeof *run->digest);
    run->loss = xcalloc(run->steps + 1, sizeof *run->loss);
    run->n_ck = ck_steps_of(r, run->steps, run->ck_steps);
    run->ck = xcalloc(run->n_ck, sizeof *run->ck);
    run->n_from = window_starts(run->steps, run->from);
    return 0;
}

/* Everything before training: the recipe read and checked, where its files
 * go in the set, the out directory, the profile and the run's plan. */
static int job_prepare(const conform_args *a, recipe_job *j, char *err, size_t cap)
{
    if (it_gpt_recipe_load(a->recipe, &j->r, err, cap) != 0) /* its message names the file and field */
        return -1;
    j->loaded = 1;
    if (read_file(a->recipe, RECIPE_FILE_MAX, &j->text, &j->len, err, cap) != 0)
        return -1;
    const char *base = strrchr(a->recipe, '/') ? strrchr(a->recipe, '/') + 1 : a->recipe;
    j->rrel = xasprintf("recipe/%s", base);
    /* no git revision, time or host: like make_vectors' sets, a recipe set
     * is a function of the reference's bits, so any checkout regenerates it
     * byte for byte (ci/check-recipe-set.sh cmp's vectors/v1.3.0/recipes/) */
    j->gen = xasprintf("isotrain-conform vectors %s (reference %s, portable kernels)", CONFORM_VERSION, IT_VERSION);
    j->w = (set_writer){a->out, NULL, 0, ""};
    if (!(j->crel = corpus_rel(j->text, j->len, a->recipe, err, cap)))
        return -1;
    if (!strcmp(j->crel, j->rrel))
        return snprintf(err, cap, "%s: corpus.path: expected another file than the recipe itself", a->recipe), -1;
    if (plan_run(j, a->steps, &j->run, a->recipe, err, cap) != 0 || out_dir_ready(a->out, err, cap) != 0)
        return -1;
    if (it_gpt_profile_make(&j->r, &j->g) != 0)
        return snprintf(err, cap, "%s: out of memory", a->recipe), -1;
    return 0;
}

/* The set's files in the order FORMAT.md lists them, then the manifest. */
static int write_set(recipe_job *j, const char *sign_key, char *err, size_t cap)
{
    set_writer *w = &j->w;
    if (put(w, j->rrel, j->text, j->len) != 0 || put(w, j->crel, j->r.corpus, j->r.corpus_len) != 0 ||
        write_train(w, &j->g, &j->run, j->gen) != 0 || write_windows(w, &j->g, &j->run, j->gen) != 0 ||
        write_manifest(w, j->rrel, j->gen, sign_key) != 0)
        return snprintf(err, cap, "%s", w->err), -1;
    return 0;
}

int vectors_command(const conform_args *a)
{
    char err[640] = "";
    recipe_job j;
    memset(&j, 0, sizeof j);
    int rc = job_prepare(a, &j, err, sizeof err);
    if (!rc)
        rc = train(&j.g, &j.run, j.r.name, err, sizeof err);
    if (!rc)
        rc = write_set(&j, a->sign_key, err, sizeof err);
    if (rc)
        fprintf(stderr, "isotrain-conform vectors: %s\n", err);
    job_free(&j);
    return rc ? 2 : 0;
}
