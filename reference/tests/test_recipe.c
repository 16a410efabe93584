/* Recipes of the GPT family (spec §16): the shipped recipes are read, the
 * one that spells §14's values makes gptchar's tensor table and initial
 * parameters exactly, and every bad recipe of the table is refused with
 * the field it is wrong in named (the negative controls: each case
 * differs from an accepted recipe in one field). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "isotrain_gpt.h"
#include "testutil.h"

/* ---- the shipped recipes ---- */

static void load_ok(const char *path, it_gpt_recipe *r)
{
    char err[1024] = "";
    int rc = it_gpt_recipe_load(path, r, err, sizeof err);
    cr_assert_eq(rc, 0, "%s refused: %s", path, err);
}

Test(recipe, shipped_recipes_are_accepted)
{
    const char *paths[] = {"spec/recipes/gptchar.json", "spec/recipes/shakespeare.json", "spec/recipes/tiny.json"};
    for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
        it_gpt_recipe r;
        load_ok(paths[i], &r);
        it_gpt_recipe_free(&r);
    }
}

/* §16.5: gptchar is the family at §14's values */
Test(recipe, gptchar_recipe_is_gptchar)
{
    it_gpt_recipe r;
    load_ok("spec/recipes/gptchar.json", &r);
    cr_assert_eq(r.shape.vocab, IT_GC_VOCAB);
    cr_assert_eq(r.d.nparams, IT_GC_NPARAMS);
    cr_assert_eq(r.d.ntensors, IT_GC_NTENSORS);
    cr_assert_eq(r.d.block_len, IT_GC_BLOCK);
    cr_assert_eq(r.d.off_h0, IT_GC_OFF_H0);
    cr_assert_eq(r.d.attn_scale_bits, 0x3e800000u);
    cr_assert_eq(r.d.loss_scale_bits, 0x3b000000u);
    cr_assert_eq(r.corpus_len, it_gptchar_corpus_len);
    cr_assert(memcmp(r.corpus, it_gptchar_corpus, r.corpus_len) == 0);
    it_gpt_tensors t;
    cr_assert_eq(it_gpt_tensors_make(&r.shape, &r.d, &t), 0);
    for (size_t k = 0; k < t.n; k++) {
        const it_tensor_info *a = &t.t[k], *b = &it_gptchar_tensors[k];
        cr_assert_str_eq(a->name, b->name);
        cr_assert(a->offset == b->offset && a->rows == b->rows && a->cols == b->cols && a->init == b->init &&
                      a->init_bits == b->init_bits && a->decay == b->decay,
                  "tensor %zu (%s) differs from gptchar's row", k, b->name);
    }
    float *mine = malloc(sizeof(float) * IT_GC_NPARAMS), *theirs = malloc(sizeof(float) * IT_GC_NPARAMS);
    cr_assert(mine && theirs);
    it_tensors_init(t.t, t.n, r.seed, mine);
    it_gptchar_init(IT_GC_SEED, theirs);
    cr_assert(memcmp(mine, theirs, sizeof(float) * IT_GC_NPARAMS) == 0);
    free(mine);
    free(theirs);
    it_gpt_tensors_free(&t);
    it_gpt_recipe_free(&r);
}

/* the document's SHA-256 is its bytes' (a receipt's "recipe sha256", and
 * what the ranks of an MPI job compare: heads, say, is in no row field) */
Test(recipe, document_sha256_is_the_files_bytes)
{
    const char *path = "spec/recipes/tiny.json";
    FILE *f = fopen(path, "rb");
    cr_assert(f, "%s cannot be opened", path);
    static char text[1 << 16];
    size_t n = fread(text, 1, sizeof text, f);
    fclose(f);
    cr_assert(n > 0 && n < sizeof text);
    unsigned char want[32];
    it_sha256(text, n, want);
    it_gpt_recipe r;
    load_ok(path, &r);
    cr_assert(memcmp(r.sha256, want, 32) == 0, "the recipe's sha256 is not its file's");
    it_gpt_recipe_free(&r);
}

/* §16.5, P7: the fresh-seed run is min(steps, W + 3): gptchar's recipe
 * gives gptchar's row (53), a long recipe is cut (shakespeare: W 30, 300
 * steps), a short one runs whole (tiny: 5 steps, W 2). */
Test(recipe, fresh_run_is_three_steps_past_the_warmup)
{
    const struct {
        const char *path;
        uint32_t want;
    } cases[] = {{"spec/recipes/gptchar.json", 53}, {"spec/recipes/shakespeare.json", 33}, {"spec/recipes/tiny.json", 5}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        it_gpt_recipe r;
        load_ok(cases[i].path, &r);
        it_gpt_profile g;
        cr_assert_eq(it_gpt_profile_make(&r, &g), 0);
        cr_assert_eq(g.p.fresh_steps, cases[i].want, "%s: fresh_steps %u, want %u", cases[i].path, g.p.fresh_steps,
                     cases[i].want);
        cr_assert_eq(it_gpt_fresh_steps(&r), cases[i].want);
        if (i == 0)
            cr_assert_eq(g.p.fresh_steps, it_profile_gptchar.fresh_steps, "gptchar's recipe is gptchar's row");
        it_gpt_profile_free(&g);
        it_gpt_recipe_free(&r);
    }
}

/* §16.3: two roundings, not one. Head width 6, d_model 24 and mlp 72 are
 * sizes where RN(1/sqrt(n)) from a wider format differs from the spec's. */
Test(recipe, constants_are_rounded_twice)
{
    it_gpt_recipe r;
    load_ok("spec/recipes/tiny.json", &r);
    cr_assert_eq(r.d.head_width, 6);
    cr_assert_eq(r.d.attn_scale_bits, 0x3ed105ebu, "got 0x%08x", (unsigned)r.d.attn_scale_bits);
    /* the other rounding, as a control that the two differ at this width */
    cr_assert_neq(B((float)(1.0 / 2.449489742783178)), r.d.attn_scale_bits);
    cr_assert_eq(r.d.loss_scale_bits, 0x3c800000u); /* 1/64 */
    it_gpt_recipe_free(&r);
}

/* ---- the bad recipes ---- */

/* tiny.json's fields, as the document the cases change */
static const char *const BASE[][2] = {
    {"format", "\"isotrain-recipe-v1\""},
    {"name", "\"tiny\""},
    {"corpus", "{\"path\": \"shakespeare100k.txt\", \"sha256\": "
               "\"b4a657aedf64a7c4dbb5201c11d9c2443df0145061c8df8c386b30266dc1f389\"}"},
    {"blocks", "1"},
    {"d_model", "24"},
    {"heads", "4"},
    {"mlp", "72"},
    {"context", "16"},
    {"batch", "4"},
    {"steps", "5"},
    {"warmup", "2"},
    {"schedule_length", "10"},
    {"lr_max", "\"0x3b449ba6\""},
    {"beta1", "\"0x3f666666\""},
    {"beta2", "\"0x3f733333\""},
    {"eps", "\"0x322bcc77\""},
    {"weight_decay", "\"0x3dcccccd\""},
    {"clip", "\"0x3f800000\""},
    {"seed", "\"0x69736f747261696e\""},
    {"sampling_stream", "64"},
    {"checkpoint_steps", "[5]"},
};
enum { NBASE = sizeof BASE / sizeof BASE[0] };

typedef struct {
    const char *key, *value; /* the field changed (value NULL: left out; a key not in BASE: added) */
    const char *named;       /* what the message must contain */
    const char *key2, *value2; /* a second field changed with it, or NULL */
} bad_case;

static const bad_case BAD[] = {
    {"surprise", "1", "surprise: unknown key", NULL, NULL},
    {"blocks", NULL, "blocks: missing", NULL, NULL},
    {"format", "\"isotrain-recipe-v2\"", "format:", NULL, NULL},
    {"name", "\"Tiny-1\"", "name:", NULL, NULL},
    {"blocks", "0", "blocks: out of range", NULL, NULL},
    {"blocks", "65", "blocks: out of range", NULL, NULL},
    {"d_model", "2049", "d_model: out of range", NULL, NULL},
    {"heads", "5", "heads: 5 does not divide d_model 24", NULL, NULL},
    {"heads", "0", "heads: out of range", NULL, NULL},
    {"mlp", "0", "mlp: out of range", NULL, NULL},
    {"context", "4096", "context: out of range", NULL, NULL},
    {"batch", "4096", "batch: 4096 sequences of 512 positions are 2097152 rows", "context", "512"},
    {"blocks", "64", "blocks: the shape has", "d_model", "2048"},
    {"d_model", "\"24\"", "d_model: a string; expected an integer", NULL, NULL},
    {"d_model", "24.0", "a fraction or an exponent", NULL, NULL},
    {"d_model", "-24", "a negative number", NULL, NULL},
    {"d_model", "024", "a leading zero", NULL, NULL},
    {"d_model", "true", "d_model: true, false or null; expected an integer", NULL, NULL},
    {"steps", "11", "steps: 11; expected at most schedule_length", NULL, NULL},
    {"steps", "0", "steps: out of range", NULL, NULL},
    {"warmup", "11", "warmup: 11; expected at most schedule_length", NULL, NULL},
    {"schedule_length", "16777216", "schedule_length: out of range", NULL, NULL},
    {"lr_max", "\"0x00000000\"", "lr_max: 0x00000000 is out of range", NULL, NULL},
    {"lr_max", "\"0x3f800001\"", "lr_max: 0x3f800001 is out of range", NULL, NULL},
    {"lr_max", "\"0x3B449BA6\"", "lr_max: expected a binary32 bit pattern", NULL, NULL},
    {"lr_max", "0.003", "a fraction or an exponent", NULL, NULL},
    {"beta1", "\"0x3e800000\"", "beta1: 0x3e800000 is out of range", NULL, NULL},
    {"beta2", "\"0x3f800000\"", "beta2: 0x3f800000 is out of range", NULL, NULL},
    {"eps", "\"0x00000001\"", "eps: 0x00000001 is out of range", NULL, NULL},
    {"weight_decay", "\"0x80000000\"", "weight_decay: 0x80000000 is out of range", NULL, NULL},
    {"clip", "\"0x7f800000\"", "clip: 0x7f800000 is out of range", NULL, NULL},
    {"seed", "\"0x69736f74\"", "seed: expected", NULL, NULL},
    {"seed", "7", "seed: expected", NULL, NULL},
    {"sampling_stream", "19", "sampling_stream: 19 is the stream of tensor 19", NULL, NULL},
    {"sampling_stream", "4294967296", "sampling_stream: out of range", NULL, NULL},
    {"checkpoint_steps", "[5, 5]", "checkpoint_steps[1]: 5; expected ascending", NULL, NULL},
    {"checkpoint_steps", "[6]", "checkpoint_steps[0]: 6", NULL, NULL},
    {"checkpoint_steps", "[0]", "checkpoint_steps[0]: 0", NULL, NULL},
    {"checkpoint_steps", "5", "checkpoint_steps: expected an array", NULL, NULL},
    {"corpus", "\"shakespeare100k.txt\"", "corpus: a string; expected an object", NULL, NULL},
    {"corpus", "{\"path\": \"shakespeare100k.txt\"}", "corpus.sha256: missing", NULL, NULL},
    {"corpus", "{\"path\": \"shakespeare100k.txt\", \"sha\": \"00\"}", "corpus.sha: unknown key", NULL, NULL},
    {"corpus",
     "{\"path\": \"shakespeare100k.txt\", \"sha256\": "
     "\"b4a657aedf64a7c4dbb5201c11d9c2443df0145061c8df8c386b30266dc1f388\"}",
     "corpus.sha256: spec/recipes/shakespeare100k.txt has SHA-256 b4a657ae", NULL, NULL},
    {"corpus", "{\"path\": \"no-such-file.txt\", \"sha256\": "
               "\"b4a657aedf64a7c4dbb5201c11d9c2443df0145061c8df8c386b30266dc1f389\"}",
     "corpus.path: spec/recipes/no-such-file.txt cannot be read", NULL, NULL},
};
enum { NBAD = sizeof BAD / sizeof BAD[0] };

/* the document with one field changed */
static char *document2(const bad_case *c, const char *key2, const char *value2)
{
    size_t cap = 8192, n = 0;
    char *doc = malloc(cap);
    cr_assert(doc);
    n += (size_t)snprintf(doc + n, cap - n, "{");
    int added = 1;
    for (size_t i = 0; i < NBASE; i++) {
        const char *v = BASE[i][1];
        if (c && strcmp(c->key, BASE[i][0]) == 0) {
            v = c->value;
            added = 0;
        }
        if (key2 && strcmp(key2, BASE[i][0]) == 0)
            v = value2;
        if (v)
            n += (size_t)snprintf(doc + n, cap - n, "%s\n  \"%s\": %s", n > 1 ? "," : "", BASE[i][0], v);
    }
    if (c && added)
        n += (size_t)snprintf(doc + n, cap - n, ",\n  \"%s\": %s", c->key, c->value);
    n += (size_t)snprintf(doc + n, cap - n, "\n}\n");
    cr_assert(n < cap);
    return doc;
}

static char *document(const bad_case *c) { return document2(c, c ? c->key2 : NULL, c ? c->value2 : NULL); }

static int parse(const char *doc, char *err, size_t cap)
{
    it_gpt_recipe r;
    int rc = it_gpt_recipe_parse(doc, strlen(doc), "case.json", "spec/recipes", &r, err, cap);
    if (rc == 0)
        it_gpt_recipe_free(&r);
    return rc;
}

Test(recipe, the_unchanged_document_is_accepted)
{
    char err[1024] = "";
    char *doc = document(NULL);
    cr_assert_eq(parse(doc, err, sizeof err), 0, "%s", err);
    free(doc);
}

Test(recipe, each_bad_recipe_is_refused_naming_its_field)
{
    for (size_t i = 0; i < NBAD; i++) {
        char err[1024] = "";
        char *doc = document(&BAD[i]);
        int rc = parse(doc, err, sizeof err);
        cr_expect_neq(rc, 0, "case %zu (%s = %s) was accepted", i, BAD[i].key, BAD[i].value ? BAD[i].value : "-");
        cr_expect(strncmp(err, "case.json: ", 11) == 0, "case %zu: the message does not name the file: %s", i, err);
        cr_expect(strstr(err, BAD[i].named) != NULL, "case %zu: want \"%s\" in: %s", i, BAD[i].named, err);
        free(doc);
    }
}

/* what a JSON reader could read two ways is refused, with its place */
Test(recipe, ambiguous_json_is_refused)
{
    static const char *const cases[][2] = {
        {"{\"blocks\": 1, \"blocks\": 2}", "line 1, column 15: a key that appears twice"},
        {"{\"name\": \"t\\u0000\"}", "an escape in a string"},
        {"{} {}", "bytes after the document"},
        {"{\"blocks\": 1", "expected ',' or '}'"},
        {"[1]", "the document is an array; expected an object"},
        {"", "the document ends early"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char err[1024] = "";
        cr_expect_neq(parse(cases[i][0], err, sizeof err), 0, "case %zu accepted", i);
        cr_expect(strstr(err, cases[i][1]) != NULL, "case %zu: want \"%s\" in: %s", i, cases[i][1], err);
    }
}

/* §16.2: a corpus shorter than context + 1 */
Test(recipe, a_corpus_shorter_than_the_context_is_refused)
{
    char dir[] = "/tmp/isotrain-recipe-XXXXXX", path[128];
    cr_assert(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/short.txt", dir);
    FILE *f = fopen(path, "wb");
    cr_assert(f);
    fputs("abcdefghijklmnop", f); /* 16 bytes */
    fclose(f);
    unsigned char d[32];
    char hex[65], value[256], err[1024] = "";
    it_sha256("abcdefghijklmnop", 16, d);
    for (int i = 0; i < 32; i++)
        snprintf(hex + 2 * i, 3, "%02x", d[i]);
    snprintf(value, sizeof value, "{\"path\": \"%s\", \"sha256\": \"%s\"}", path, hex);
    const bad_case c = {"corpus", value, "corpus: 16 bytes; expected at least context + 1 = 17", NULL, NULL};
    char *doc = document(&c);
    cr_expect_neq(parse(doc, err, sizeof err), 0);
    cr_expect(strstr(err, c.named) != NULL, "want \"%s\" in: %s", c.named, err);
    free(doc);
    /* the control: a context of 15 takes it */
    doc = document2(&c, "context", "15");
    cr_expect_eq(parse(doc, err, sizeof err), 0, "%s", err);
    free(doc);
    remove(path);
    remove(dir);
}

/* the file's own name leads the message, and a missing file is named */
Test(recipe, load_names_the_file)
{
    it_gpt_recipe r;
    char err[1024] = "";
    cr_assert_neq(it_gpt_recipe_load("spec/recipes/no-such.json", &r, err, sizeof err), 0);
    cr_assert(strstr(err, "spec/recipes/no-such.json: cannot be read") != NULL, "%s", err);
}

/* §16.4's vectors for tiny.json (a shape that is not gptchar's: head width
 * 6, d_model 24 and mlp 72, where the bounds' two roundings matter) */
Test(recipe, tiny_init_is_the_spec_vector)
{
    it_gpt_recipe r;
    load_ok("spec/recipes/tiny.json", &r);
    cr_assert_eq(r.shape.vocab, 61);
    cr_assert_eq(r.d.nparams, 7944);
    cr_assert_eq(r.d.init_d_bits, 0x3e5105ebu);
    cr_assert_eq(r.d.init_f_bits, 0x3df15bf0u);
    it_gpt_tensors t;
    cr_assert_eq(it_gpt_tensors_make(&r.shape, &r.d, &t), 0);
    float *p = malloc(sizeof(float) * r.d.nparams);
    cr_assert(p);
    it_tensors_init(t.t, t.n, r.seed, p);
    static const struct {
        size_t tensor;
        uint32_t first[4], last;
    } want[] = {
        {0, {0x3c9b7a48u, 0xbcde999au, 0x3cee758cu, 0x3a3f4040u}, 0xbc18767cu},  /* wte */
        {4, {0xbddce73au, 0xbde744bdu, 0x3e355be8u, 0xbd46fe16u}, 0x3e25ba73u},  /* h0_q_w */
        {16, {0x3ddfaa18u, 0xbdad868fu, 0xbd05d379u, 0x3d459dd3u}, 0x3dd72314u}, /* h0_proj_w */
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const it_tensor_info *ti = &t.t[want[i].tensor];
        const float *x = p + ti->offset;
        for (int j = 0; j < 4; j++)
            assert_bits(x[j], want[i].first[j], "%s[%d]", ti->name, j);
        assert_bits(x[ti->rows * ti->cols - 1], want[i].last, "%s's last", ti->name);
    }
    char hex[65];
    it_params_digest(p, r.d.nparams, hex);
    cr_assert_str_eq(hex, "8efec482304e9e95a09689ba22847436390892dd994e9e060d40257e55c6a4d3");
    free(p);
    it_gpt_tensors_free(&t);
    it_gpt_recipe_free(&r);
}

/* every proper prefix of an accepted document is refused (and read safely:
 * the sanitized suite runs this too) */
Test(recipe, every_prefix_is_refused)
{
    char *doc = document(NULL);
    size_t n = strlen(doc);
    for (size_t len = 0; len + 2 < n; len++) { /* the last two bytes are "}\n" */
        char err[1024] = "";
        it_gpt_recipe r;
        char *copy = malloc(len + 1);
        cr_assert(copy);
        memcpy(copy, doc, len);
        int rc = it_gpt_recipe_parse(copy, len, "case.json", "spec/recipes", &r, err, sizeof err);
        cr_expect_neq(rc, 0, "a prefix of %zu bytes was accepted", len);
        free(copy);
    }
    free(doc);
}
