/* A recipe of the GPT family (spec §16.1, spec/recipe.schema.json): read
 * strictly, every field checked against its range and the rules between
 * fields, the corpus read and checked against its SHA-256. Each refusal
 * names the file, the field and what was expected. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "isotrain_gpt.h"
#include "isotrain_profile.h"
#include "recipe_json.h"

#define RECIPE_FORMAT "isotrain-recipe-v1"

typedef enum { F_FORMAT, F_NAME, F_CORPUS, F_U32, F_BITS, F_SEED, F_STEPS_LIST } field_kind;

/* A binary32 constant's range: [lo, hi] as bit patterns of non-negative
 * values (their order is the values'), plus +0 where zero_ok. */
typedef struct {
    const char *key;
    field_kind kind;
    size_t off;         /* in it_gpt_recipe */
    uint32_t lo, hi;    /* F_U32: the integer's range; F_BITS: the bits' */
    int zero_ok;        /* F_BITS: +0 also allowed */
    const char *expect; /* F_BITS: the range in words */
} field;

#define OFF(m) offsetof(it_gpt_recipe, m)
static const field FIELDS[] = {
    {"format", F_FORMAT, 0, 0, 0, 0, NULL},
    {"name", F_NAME, 0, 0, 0, 0, NULL},
    {"corpus", F_CORPUS, 0, 0, 0, 0, NULL},
    {"blocks", F_U32, OFF(shape.blocks), 1, IT_GPT_MAX_BLOCKS, 0, NULL},
    {"d_model", F_U32, OFF(shape.d_model), 1, IT_GPT_MAX_D, 0, NULL},
    {"heads", F_U32, OFF(shape.heads), 1, IT_GPT_MAX_D, 0, NULL},
    {"mlp", F_U32, OFF(shape.mlp), 1, IT_GPT_MAX_MLP, 0, NULL},
    {"context", F_U32, OFF(shape.context), 1, IT_GPT_MAX_CONTEXT, 0, NULL},
    {"batch", F_U32, OFF(shape.batch), 1, IT_GPT_MAX_BATCH, 0, NULL},
    {"steps", F_U32, OFF(steps), 1, IT_GPT_MAX_SCHEDULE, 0, NULL},
    {"warmup", F_U32, OFF(warmup), 1, IT_GPT_MAX_SCHEDULE, 0, NULL},
    {"schedule_length", F_U32, OFF(schedule_length), 1, IT_GPT_MAX_SCHEDULE, 0, NULL},
    {"lr_max", F_BITS, OFF(lr_bits), 0x00800000u, 0x3f800000u, 0, "a normal number in (0, 1]"},
    {"beta1", F_BITS, OFF(beta1_bits), 0x3f000000u, 0x3f7fffffu, 0, "a number in [0.5, 1)"},
    {"beta2", F_BITS, OFF(beta2_bits), 0x3f000000u, 0x3f7fffffu, 0, "a number in [0.5, 1)"},
    {"eps", F_BITS, OFF(eps_bits), 0x00800000u, 0x3f800000u, 0, "a normal number in (0, 1]"},
    {"weight_decay", F_BITS, OFF(wd_bits), 0x00800000u, 0x3f800000u, 1, "+0 or a normal number in (0, 1]"},
    {"clip", F_BITS, OFF(clip_bits), 0x00800000u, 0x7f7fffffu, 0, "a positive normal finite number"},
    {"seed", F_SEED, OFF(seed), 0, 0, 0, NULL},
    {"sampling_stream", F_U32, OFF(sampling_stream), 0, UINT32_MAX, 0, NULL},
    {"checkpoint_steps", F_STEPS_LIST, 0, 0, 0, 0, NULL},
};
#undef OFF
enum { NFIELDS = sizeof FIELDS / sizeof FIELDS[0] };

static const char *type_name(rj_type t)
{
    static const char *const names[] = {"an object", "an array", "a string", "an integer", "true, false or null"};
    return names[t];
}

/* n hex digits (lower case) into *out */
static int hex_digits(const char *s, size_t n, uint64_t *out)
{
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c >= '0' && c <= '9')
            v = v << 4 | (uint64_t)(c - '0');
        else if (c >= 'a' && c <= 'f')
            v = v << 4 | (uint64_t)(c - 'a' + 10);
        else
            return 1;
    }
    *out = v;
    return 0;
}

/* "0x" and exactly n lower-case hex digits */
static int hex_word(const rj_value *v, size_t n, uint64_t *out)
{
    return v->type != RJ_STRING || v->str_len != n + 2 || memcmp(v->str, "0x", 2) != 0 ||
           hex_digits(v->str + 2, n, out);
}

static int read_file(const char *path, unsigned char **data, size_t *len, size_t max)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return 1;
    size_t cap = 1 << 16, n = 0;
    unsigned char *buf = malloc(cap);
    while (buf) {
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap || cap > max)
            break;
        unsigned char *more = realloc(buf, cap * 2);
        if (!more) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = more, cap *= 2;
    }
    int bad = !buf || ferror(f) || n > max;
    fclose(f);
    if (bad) {
        free(buf);
        return bad && buf ? 2 : 1;
    }
    *data = buf, *len = n;
    return 0;
}

typedef struct {
    const char *name; /* of the document, for messages */
    char *err;
    size_t cap;
} ctx;

#define REFUSE(c, ...) it_errf((c)->err, (c)->cap, 1, __VA_ARGS__)

static int corpus_field(const ctx *c, const rj_value *v, const char *dir, it_gpt_recipe *r)
{
    if (v->type != RJ_OBJECT)
        return REFUSE(c, "%s: corpus: %s; expected an object {\"path\", \"sha256\"}", c->name, type_name(v->type));
    const rj_value *path = NULL, *sha = NULL;
    for (size_t i = 0; i < v->n; i++) {
        if (strcmp(v->keys[i], "path") == 0)
            path = &v->items[i];
        else if (strcmp(v->keys[i], "sha256") == 0)
            sha = &v->items[i];
        else
            return REFUSE(c, "%s: corpus.%s: unknown key; expected only \"path\" and \"sha256\"", c->name,
                          v->keys[i]);
    }
    if (!path || path->type != RJ_STRING || path->str_len == 0 || path->str_len > 4095 ||
        memchr(path->str, 0, path->str_len))
        return REFUSE(c, "%s: corpus.path: %s; expected a non-empty string (a path, relative to the recipe's "
                         "directory)", c->name, path ? type_name(path->type) : "missing");
    if (!sha || sha->type != RJ_STRING || sha->str_len != 64)
        return REFUSE(c, "%s: corpus.sha256: %s; expected 64 lower-case hex digits", c->name,
                      sha ? type_name(sha->type) : "missing");
    for (int i = 0; i < 32; i++) {
        uint64_t b;
        if (hex_digits(sha->str + 2 * i, 2, &b))
            return REFUSE(c, "%s: corpus.sha256: \"%.64s\"; expected 64 lower-case hex digits", c->name, sha->str);
        r->corpus_sha256[i] = (unsigned char)b;
    }
    char full[8192];
    if (path->str[0] == '/' || !dir || !*dir)
        snprintf(full, sizeof full, "%.*s", (int)path->str_len, path->str);
    else
        snprintf(full, sizeof full, "%s/%.*s", dir, (int)path->str_len, path->str);
    int rc = read_file(full, &r->corpus, &r->corpus_len, IT_GPT_MAX_CORPUS);
    if (rc)
        return REFUSE(c, "%s: corpus.path: %s %s; expected a readable file of at most %zu bytes", c->name, full,
                      rc == 2 ? "is too long" : "cannot be read", IT_GPT_MAX_CORPUS);
    unsigned char got[32];
    it_sha256(r->corpus, r->corpus_len, got);
    if (memcmp(got, r->corpus_sha256, 32) != 0) {
        char hex[65];
        for (int i = 0; i < 32; i++)
            snprintf(hex + 2 * i, 3, "%02x", got[i]);
        return REFUSE(c, "%s: corpus.sha256: %s has SHA-256 %s; expected the recipe's %.64s", c->name, full, hex,
                      sha->str);
    }
    return 0;
}

static int one_field(const ctx *c, const field *f, const rj_value *v, const char *dir, it_gpt_recipe *r)
{
    char *base = (char *)r;
    uint64_t x = 0;
    switch (f->kind) {
    case F_FORMAT:
        if (v->type != RJ_STRING || v->str_len != strlen(RECIPE_FORMAT) ||
            memcmp(v->str, RECIPE_FORMAT, v->str_len) != 0)
            return REFUSE(c, "%s: format: expected the string \"%s\"", c->name, RECIPE_FORMAT);
        return 0;
    case F_NAME:
        if (v->type != RJ_STRING || v->str_len < 1 || v->str_len > 32 ||
            strspn(v->str, "abcdefghijklmnopqrstuvwxyz0123456789_") < v->str_len)
            return REFUSE(c, "%s: name: expected 1 to 32 of [a-z0-9_]", c->name);
        memcpy(r->name, v->str, v->str_len);
        r->name[v->str_len] = 0;
        return 0;
    case F_CORPUS:
        return corpus_field(c, v, dir, r);
    case F_U32:
        if (v->type != RJ_INTEGER)
            return REFUSE(c, "%s: %s: %s; expected an integer in [%u, %u]", c->name, f->key, type_name(v->type),
                          (unsigned)f->lo, (unsigned)f->hi);
        if (v->num_big || v->num < f->lo || v->num > f->hi)
            return REFUSE(c, "%s: %s: out of range; expected an integer in [%u, %u]", c->name, f->key,
                          (unsigned)f->lo, (unsigned)f->hi);
        *(uint32_t *)(base + f->off) = (uint32_t)v->num;
        return 0;
    case F_BITS:
        if (hex_word(v, 8, &x))
            return REFUSE(c, "%s: %s: expected a binary32 bit pattern \"0x\" and 8 lower-case hex digits", c->name,
                          f->key);
        if (!((x >= f->lo && x <= f->hi) || (f->zero_ok && x == 0)))
            return REFUSE(c, "%s: %s: 0x%08x is out of range; expected %s", c->name, f->key, (unsigned)x, f->expect);
        *(uint32_t *)(base + f->off) = (uint32_t)x;
        return 0;
    case F_SEED:
        if (hex_word(v, 16, &x))
            return REFUSE(c, "%s: seed: expected \"0x\" and 16 lower-case hex digits (a u64)", c->name);
        r->seed = x;
        return 0;
    case F_STEPS_LIST:
        if (v->type != RJ_ARRAY || v->n > IT_GPT_MAX_CHECKPOINTS)
            return REFUSE(c, "%s: checkpoint_steps: expected an array of at most %d integers", c->name,
                          IT_GPT_MAX_CHECKPOINTS);
        r->checkpoint_steps = malloc((v->n ? v->n : 1) * sizeof *r->checkpoint_steps);
        if (!r->checkpoint_steps)
            return REFUSE(c, "%s: out of memory", c->name);
        for (size_t i = 0; i < v->n; i++) {
            const rj_value *e = &v->items[i];
            if (e->type != RJ_INTEGER || e->num_big || e->num > UINT32_MAX)
                return REFUSE(c, "%s: checkpoint_steps[%zu]: expected an integer", c->name, i);
            r->checkpoint_steps[i] = (uint32_t)e->num;
        }
        r->n_checkpoint_steps = v->n;
        return 0;
    }
    return REFUSE(c, "%s: internal: field kind", c->name);
}

/* the rules between fields (§16.2), once every field has its value */
static int cross_checks(const ctx *c, it_gpt_recipe *r)
{
    char why[512];
    int seen[256] = {0};
    for (size_t i = 0; i < r->corpus_len; i++)
        seen[r->corpus[i]] = 1;
    uint32_t v = 0;
    for (int b = 0; b < 256; b++) {
        r->token_of[b] = seen[b] ? (int)v : -1;
        if (seen[b])
            r->vocab_bytes[v++] = (unsigned char)b;
    }
    r->shape.vocab = v;
    if (v < 2)
        return REFUSE(c, "%s: corpus: %u distinct bytes; expected at least 2 (the vocabulary)", c->name,
                      (unsigned)v);
    if (it_gpt_derive(&r->shape, &r->d, why, sizeof why))
        return REFUSE(c, "%s: %s", c->name, why);
    if (r->corpus_len < (size_t)r->shape.context + 1)
        return REFUSE(c, "%s: corpus: %zu bytes; expected at least context + 1 = %u", c->name, r->corpus_len,
                      (unsigned)r->shape.context + 1);
    if (r->warmup > r->schedule_length)
        return REFUSE(c, "%s: warmup: %u; expected at most schedule_length (%u)", c->name, (unsigned)r->warmup,
                      (unsigned)r->schedule_length);
    if (r->steps > r->schedule_length)
        return REFUSE(c, "%s: steps: %u; expected at most schedule_length (%u)", c->name, (unsigned)r->steps,
                      (unsigned)r->schedule_length);
    if (r->sampling_stream < r->d.ntensors)
        return REFUSE(c, "%s: sampling_stream: %u is the stream of tensor %u; expected at least %zu (the %zu "
                         "tensors use streams 0 to %zu)",
                      c->name, (unsigned)r->sampling_stream, (unsigned)r->sampling_stream, r->d.ntensors,
                      r->d.ntensors, r->d.ntensors - 1);
    for (size_t i = 0; i < r->n_checkpoint_steps; i++) {
        uint32_t s = r->checkpoint_steps[i];
        if (s < 1 || s > r->steps || (i > 0 && s <= r->checkpoint_steps[i - 1]))
            return REFUSE(c, "%s: checkpoint_steps[%zu]: %u; expected ascending steps in [1, steps = %u], each once",
                          c->name, i, (unsigned)s, (unsigned)r->steps);
    }
    return 0;
}

static int parse_doc(const ctx *c, const rj_value *doc, const char *dir, it_gpt_recipe *r)
{
    if (doc->type != RJ_OBJECT)
        return REFUSE(c, "%s: the document is %s; expected an object", c->name, type_name(doc->type));
    int have[NFIELDS] = {0};
    for (size_t i = 0; i < doc->n; i++) {
        size_t k = 0;
        while (k < NFIELDS && strcmp(FIELDS[k].key, doc->keys[i]) != 0)
            k++;
        if (k == NFIELDS)
            return REFUSE(c, "%s: %s: unknown key; expected only the keys of spec/recipe.schema.json", c->name,
                          doc->keys[i]);
        have[k] = 1;
    }
    for (size_t k = 0; k < NFIELDS; k++)
        if (!have[k])
            return REFUSE(c, "%s: %s: missing; every key of spec/recipe.schema.json is required", c->name,
                          FIELDS[k].key);
    /* the corpus last: a recipe wrong elsewhere is refused without reading it */
    for (int corpus_pass = 0; corpus_pass < 2; corpus_pass++)
        for (size_t i = 0; i < doc->n; i++) {
            size_t k = 0;
            while (strcmp(FIELDS[k].key, doc->keys[i]) != 0)
                k++;
            if ((FIELDS[k].kind == F_CORPUS) == corpus_pass && one_field(c, &FIELDS[k], &doc->items[i], dir, r))
                return 1;
        }
    return cross_checks(c, r);
}

int it_gpt_recipe_parse(const char *text, size_t len, const char *name, const char *dir, it_gpt_recipe *r,
                        char *err, size_t cap)
{
    memset(r, 0, sizeof *r);
    const ctx c = {name, err, cap};
    char why[256];
    rj_value *doc = rj_parse(text, len, why, sizeof why);
    if (!doc)
        return REFUSE(&c, "%s: %s", name, why);
    int rc = parse_doc(&c, doc, dir, r);
    rj_free(doc);
    if (rc)
        it_gpt_recipe_free(r);
    else
        it_sha256(text, len, r->sha256);
    return rc;
}

int it_gpt_recipe_load(const char *path, it_gpt_recipe *r, char *err, size_t cap)
{
    memset(r, 0, sizeof *r);
    unsigned char *text;
    size_t len;
    if (read_file(path, &text, &len, 1 << 20))
        return it_errf(err, cap, 1, "%s: cannot be read (or exceeds 1 MiB); expected a recipe file", path);
    char dir[4096];
    const char *slash = strrchr(path, '/');
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path) : 1, slash ? path : ".");
    int rc = it_gpt_recipe_parse((const char *)text, len, path, dir, r, err, cap);
    free(text);
    return rc;
}

void it_gpt_recipe_free(it_gpt_recipe *r)
{
    free(r->checkpoint_steps);
    free(r->corpus);
    memset(r, 0, sizeof *r);
}
