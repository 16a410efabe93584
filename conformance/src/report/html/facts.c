/* facts.c — what the page shows of one accepted receipt beyond the matrix's
 * row: per profile every step's case verdict and loss bits, the checkpoint
 * columns; per op group its passed/failed counts, vector and fresh cases.
 * Every field is read from the typed receipt (trust/receipt_record.h): of
 * the table's kind or absent; verify has checked the case list, the counts
 * and the digests, and a field it does not check may be absent, which is
 * then shown as absent, never trusted and never fatal. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "report/html/report.h"

/* ---- the localization's members: "first_op.op" ----------------------------- */

const cJSON *rj_at(const cJSON *root, const char *path)
{
    const cJSON *cur = root;
    const char *p = path;
    while (cur && *p) {
        char key[64];
        size_t n = strcspn(p, ".[");
        if (n) {
            if (n >= sizeof key || !cJSON_IsObject(cur))
                return NULL;
            memcpy(key, p, n);
            key[n] = '\0';
            cur = cJSON_GetObjectItemCaseSensitive(cur, key);
            p += n;
        }
        if (*p == '[') {
            char *end;
            long i = strtol(p + 1, &end, 10);
            if (*end != ']' || i < 0 || !cJSON_IsArray(cur))
                return NULL;
            cur = cJSON_GetArrayItem(cur, (int)i);
            p = end + 1;
        }
        if (*p == '.')
            p++;
    }
    return cur;
}

const char *rj_str(const cJSON *root, const char *path)
{
    const cJSON *v = rj_at(root, path);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

int rj_num(const cJSON *root, const char *path, double *out)
{
    const cJSON *v = rj_at(root, path);
    if (!cJSON_IsNumber(v) || v->valuedouble != v->valuedouble)
        return -1;
    *out = v->valuedouble;
    return 0;
}

float rp_f32(uint32_t bits)
{
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

const char *rp_state_word(rp_state s)
{
    static const char *const words[] = {
        [RS_NONE] = "not reached", [RS_PASS] = "equal", [RS_FAIL] = "differs", [RS_SKIP] = "skipped", [RS_ERROR] = "error",
    };
    return (size_t)s < sizeof words / sizeof *words ? words[s] : words[RS_NONE];
}

/* ---- the words of the matrix's table (report/matrix/table.c) --------------- */

void rp_result_text(const mrow *w, char *buf, size_t cap)
{
    mx_result_text(w, buf, cap);
}

/* ---- profiles and steps ------------------------------------------------------ */

/* A bounded list of named entries (the profiles, the op groups): the entry
 * named name, else a new one, zeroed, named (capped); NULL when the list is
 * full, counted in *more. Entries are size bytes, each name a char * at
 * name_at. */
typedef struct {
    void *base;
    size_t size, name_at, max;
    size_t *n, *more;
} named_list;

static void *entry_named(const named_list *l, const char *name, int *added)
{
    char *b = l->base;
    *added = 0;
    for (size_t i = 0; i < *l->n; i++) {
        char *const *nm = (char *const *)(void *)(b + i * l->size + l->name_at);
        if (!strcmp(*nm, name))
            return b + i * l->size;
    }
    if (*l->n == l->max) {
        (*l->more)++;
        return NULL;
    }
    char *e = b + (*l->n)++ * l->size;
    memset(e, 0, l->size);
    *(char **)(void *)(e + l->name_at) = xstrndup(name, strnlen(name, HW_CAP_NAME));
    *added = 1;
    return e;
}

static rp_profile *profile(rp_receipt *x, const char *name, const mreceipt *r)
{
    const named_list l = {x->prof, sizeof *x->prof, offsetof(rp_profile, name), RP_MAX_PROFILES,
                          &x->n_prof, &x->prof_more};
    int added;
    rp_profile *p = entry_named(&l, name, &added);
    if (!p || !added)
        return p;
    p->first_diff = -1;
    mx_profile_view(r, p->name, &p->ck); /* shallow: the host's facts, this profile's checkpoints */
    return p;
}

static rp_step *step_at(rp_profile *p, uint64_t s)
{
    if (s >= RP_MAX_STEPS)
        return NULL;
    if (s >= p->n_steps) {
        p->step = xrealloc(p->step, (size_t)(s + 1) * sizeof *p->step);
        memset(p->step + p->n_steps, 0, (size_t)(s + 1 - p->n_steps) * sizeof *p->step);
        p->n_steps = (size_t)s + 1;
    }
    return &p->step[s];
}

static int parse_step(const char *s, uint64_t *out)
{
    if (!*s || strlen(s) > 9)
        return -1;
    uint64_t v = 0;
    for (; *s; s++) {
        if (*s < '0' || *s > '9')
            return -1;
        v = v * 10 + (uint64_t)(*s - '0');
    }
    *out = v;
    return 0;
}

static int parse_bits(const char *s, uint32_t *out)
{
    if (!s || strlen(s) != 10 || s[0] != '0' || s[1] != 'x' || !is_lower_hex(s + 2, 8))
        return -1;
    *out = (uint32_t)strtoul(s + 2, NULL, 16);
    return 0;
}

static int verdict_index(const char *v)
{
    static const char *const names[4] = {"PASS", "FAIL", "SKIP", "ERROR"};
    for (int i = 0; v && i < 4; i++)
        if (!strcmp(v, names[i]))
            return i;
    return -1;
}

static rp_group *group(rp_receipt *x, const char *name)
{
    const named_list l = {x->groups, sizeof *x->groups, offsetof(rp_group, group), RP_MAX_GROUPS,
                          &x->n_groups, &x->groups_more};
    int added;
    return entry_named(&l, name, &added);
}

/* The case list, once: op groups, fresh cases, every training step. */
static void read_cases(rp_receipt *x, const mreceipt *r)
{
    for (size_t k = 0; k < rv_len(x->receipt, RF_CASES); k++) {
        const rv *c = rv_el(x->receipt, RF_CASES, k);
        if (c->null)
            continue;
        const char *id = rv_str(c, RF_CASES_ID), *lv = rv_str(c, RF_CASES_LEVEL), *su = rv_str(c, RF_CASES_SUITE);
        int v = verdict_index(rv_str(c, RF_CASES_VERDICT));
        if (!id || !lv || !su || v < 0)
            continue;
        if (!strcmp(lv, "ops") && !strncmp(su, "ops/", 4)) {
            rp_group *g = group(x, su + 4);
            if (g)
                g->vec[v]++;
        } else if (!strcmp(lv, "fresh") && !strncmp(su, "fresh/ops/", 10)) {
            rp_group *g = group(x, su + 10);
            if (g)
                g->fresh[v]++;
        } else if (!strcmp(lv, "fresh"))
            x->fresh_train[v]++;
        else if (!strcmp(lv, "train") && !strncmp(su, "train/", 6) && !strchr(su + 6, '/')) {
            /* a profile's steps ("train/P"); its windows ("train/P/windows")
             * are the matrix's (mprofile.win) */
            rp_profile *p = profile(x, su + 6, r);
            if (!p)
                continue;
            p->count[v]++;
            const char *slash = strrchr(id, '/');
            uint64_t s;
            rp_step *st;
            if (slash && parse_step(slash + 1, &s) == 0 && (st = step_at(p, s)) != NULL)
                st->state = (unsigned char)(v == 0 ? RS_PASS : v == 1 ? RS_FAIL : v == 2 ? RS_SKIP : RS_ERROR);
        }
    }
}

/* levels.train.profiles[]: the trace's loss bits, the checkpoints, the
 * first differing step. */
static void read_profiles(rp_receipt *x, const mreceipt *r)
{
    for (size_t k = 0; k < rv_len(x->receipt, RF_LEVELS_TRAIN_PROFILES); k++) {
        const rv *po = rv_el(x->receipt, RF_LEVELS_TRAIN_PROFILES, k);
        const char *name = po->null ? NULL : rv_str(po, RF_LEVELS_TRAIN_PROFILES_PROFILE);
        rp_profile *p = name ? profile(x, name, r) : NULL;
        if (!p)
            continue;
        p->obj = po;
        double fd;
        if (rv_num(po, RF_LEVELS_TRAIN_PROFILES_FIRST_DIFFERING_STEP, &fd) == 0 && fd >= 0 && fd < RP_MAX_STEPS)
            p->first_diff = (int)fd;
        for (size_t i = 0; i < rv_len(po, RF_LEVELS_TRAIN_PROFILES_TRACE); i++) {
            const rv *t = rv_el(po, RF_LEVELS_TRAIN_PROFILES_TRACE, i);
            double s;
            rp_step *st;
            if (t->null || rv_num(t, RF_LEVELS_TRAIN_PROFILES_TRACE_STEP, &s) != 0 || s < 0 || s >= RP_MAX_STEPS ||
                s != (double)(uint32_t)s || (st = step_at(p, (uint64_t)s)) == NULL)
                continue;
            st->in_trace = 1;
            st->has_loss = parse_bits(rv_str(t, RF_LEVELS_TRAIN_PROFILES_TRACE_LOSS), &st->loss) == 0;
        }
        /* its checkpoints and windows exactly as the matrix read them */
        mx_profile_view(r, p->name, &p->ck);
    }
}

void rp_facts(rp_receipt *x, const mreceipt *r)
{
    if (!x->receipt)
        return;
    read_profiles(x, r);
    read_cases(x, r);
}

void rp_receipt_free(rp_receipt *x)
{
    free(x->file);
    receipt_record_free(&x->rec);
    free(x->signer);
    for (size_t i = 0; i < x->n_fp; i++)
        free(x->key_fp[i]);
    free(x->key_fp);
    for (size_t i = 0; i < x->n_prof; i++) {
        free(x->prof[i].name);
        free(x->prof[i].step);
    }
    for (size_t i = 0; i < x->n_groups; i++)
        free(x->groups[i].group);
    memset(x, 0, sizeof *x);
}
