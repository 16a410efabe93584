/* requirements.c — see requirements.h. */
#include "verdict/requirements.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "isotrain_profile.h"

/* Spec §12.4, the requirements 1.1.0 added to 1.0.0 (1.0.1 and 1.1.1 are
 * errata: no requirement). A new MINOR version adds its rows here; the op
 * groups and profiles it adds carry their version in their vector files. */
const requirement_row requirement_table[] = {
    {REQ_FRESH_SEED_RUN, {1, 1}, "a fresh-seed training run (hello train_seed=1, train --seed S)",
     "spec §11.9, iut-protocol P2, P7"},
    {REQ_EXIT_64_PROFILE, {1, 1}, "exit status 64 for a profile the IUT does not implement", "iut-protocol P7"},
};
const size_t requirement_table_n = sizeof requirement_table / sizeof requirement_table[0];

/* Which profiles' recipes use each op of P5: mlp13k's step (spec §11.4-§11.7:
 * init and batch from §6.1-§6.4, §5.1-§5.8 with tanh, SGD), addmod113's
 * (§13.3-§13.6: the permutation of §6.5 over §6.4, init over §6.3, embedding
 * lookup and scatter-add, linear layers, attention, ReLU, softmax
 * cross-entropy, AdamW with sqrt) and gptchar's (§14.4-§14.7: init over
 * §6.3, batches over §6.4, embeddings, linear layers, LayerNorm with sqrt,
 * GELU on tanh, causal attention on §5.11-§5.12, the tied gradient, softmax
 * cross-entropy, clipping, the schedule, AdamW). exp and log serve every
 * profile (softmax cross-entropy, tanh), and so do their sweeps. An op missing
 * from this table serves every profile, and so does every op a profile the
 * table does not name: the safe side, they stay required. */
#define M &it_profile_mlp13k
#define A &it_profile_addmod113
#define G &it_profile_gptchar
static const struct {
    const char *op;
    const it_profile *users[3]; /* the reference's rows (isotrain_profile.h); NULL ends */
} op_users[] = {
    {"exp", {M, A, G}},
    {"log", {M, A, G}},
    {"sweep", {M, A, G}},
    {"tanh", {M, G}},
    {"dot", {M, A, G}},
    {"linear_forward", {M, A, G}},
    {"linear_backward", {M, A, G}},
    {"tanh_backward", {M}},
    {"softmax_xent_forward", {M, A, G}},
    {"softmax_xent_backward", {M, A, G}},
    {"embedding_forward", {M, A, G}},
    {"embedding_backward", {M, A, G}},
    {"sgd", {M}},
    {"philox", {M, A, G}},
    {"rng_u32", {M, A, G}},
    {"u32_to_symmetric", {M, A, G}},
    {"u32_below", {M, A, G}},
    {"mlp13k_init", {M}},
    {"mlp13k_batch", {M}},
    {"mlp13k_loss_grad", {M}},
    {"sqrt", {A, G}},
    {"relu_forward", {A}},
    {"relu_backward", {A}},
    {"attention_forward", {A, G}},
    {"attention_backward", {A, G}},
    {"adamw", {A, G}},
    {"addmod113_perm", {A}},
    {"addmod113_init", {A}},
    {"addmod113_loss_grad", {A}},
    {"residual_add", {G}},
    {"layernorm_forward", {G}},
    {"layernorm_backward", {G}},
    {"gelu_forward", {G}},
    {"gelu_backward", {G}},
    {"causal_attention_forward", {G}},
    {"causal_attention_backward", {G}},
    {"tied_embedding_grad", {G}},
    {"clip_grad_norm", {G}},
    {"lr_schedule", {G}},
    {"gptchar_init", {G}},
    {"gptchar_batch", {G}},
    {"gptchar_loss_grad", {G}},
};
#undef M
#undef A
#undef G

int spec_mm_parse(const char *s, spec_mm *out)
{
    unsigned a, b, c;
    char tail;
    if (!s || sscanf(s, "%u.%u.%u%c", &a, &b, &c, &tail) != 3)
        return -1;
    out->major = a;
    out->minor = b;
    return 0;
}

int spec_mm_cmp(spec_mm a, spec_mm b)
{
    if (a.major != b.major)
        return a.major < b.major ? -1 : 1;
    if (a.minor != b.minor)
        return a.minor < b.minor ? -1 : 1;
    return 0;
}

void req_init(req_ctx *q, const vector_set *vs, const char *iut_spec, const char *profile, int exhaustive)
{
    memset(q, 0, sizeof q[0]);
    q->vs = vs;
    q->profile = profile;
    q->exhaustive = exhaustive;
    const char *vv = vs && vs->spec_version ? vs->spec_version : "?";
    snprintf(q->vectors_text, sizeof q->vectors_text, "%s", vv);
    if (spec_mm_parse(vv, &q->vectors) != 0)
        q->vectors.major = 1, q->vectors.minor = 0;
    q->certified = q->vectors;
    q->iut_known = spec_mm_parse(iut_spec, &q->iut) == 0;
    if (q->iut_known) {
        snprintf(q->iut_text, sizeof q->iut_text, "%s", iut_spec);
        if (spec_mm_cmp(q->iut, q->certified) < 0)
            q->certified = q->iut;
        q->major_apart = q->iut.major != q->vectors.major;
    }
    snprintf(q->certified_text, sizeof q->certified_text, "%u.%u", q->certified.major, q->certified.minor);
}

void req_describe(const req_ctx *q, int lng, char *buf, size_t cap)
{
    if (!q->iut_known)
        snprintf(buf, cap, "nothing certified: the IUT named no spec version (hello failed; the vector set is %s)",
                 q->vectors_text);
    else if (q->major_apart)
        snprintf(buf, cap, "the IUT claims %s, the vector set is %s: another MAJOR version (spec §12.1: bits may "
                           "have moved)%s",
                 q->iut_text, q->vectors_text, lng ? "; not a certification of either (PARTIAL at best)" : "");
    else if (!lng)
        snprintf(buf, cap, "spec %s (the IUT claims %s, the vector set is %s)", q->certified_text, q->iut_text,
                 q->vectors_text);
    else if (spec_mm_cmp(q->certified, q->vectors) < 0)
        snprintf(buf, cap, "judged by spec %s, the lower of the IUT's %s and the vector set's %s (MAJOR.MINOR, "
                           "spec §12.1): what the set tests from %u.%u on is not required of this IUT, and the set "
                           "cannot be fully certified (PARTIAL at best)",
                 q->certified_text, q->iut_text, q->vectors_text, q->certified.major, q->certified.minor + 1);
    else
        snprintf(buf, cap, "judged by spec %s, the lower of the IUT's %s and the vector set's %s (MAJOR.MINOR: a "
                           "patch adds no requirement, spec §12.1)",
                 q->certified_text, q->iut_text, q->vectors_text);
}

static spec_mm since_of(spec_requirement r)
{
    for (size_t i = 0; i < requirement_table_n; i++)
        if (requirement_table[i].req == r)
            return requirement_table[i].since;
    return (spec_mm){1, 0};
}

int req_certified_has(const req_ctx *q, spec_requirement r)
{
    return spec_mm_cmp(q->certified, since_of(r)) >= 0;
}

int req_iut_has(const req_ctx *q, spec_requirement r)
{
    return q->iut_known && spec_mm_cmp(q->iut, since_of(r)) >= 0;
}

int req_beyond_iut(const req_ctx *q, const char *file_spec_version)
{
    spec_mm f;
    return q->iut_known && spec_mm_parse(file_spec_version, &f) == 0 && spec_mm_cmp(f, q->iut) > 0;
}

/* PROFILE (a name) is one of a row's users */
static int lists(const it_profile *const users[3], const char *profile)
{
    const it_profile *p = it_profile_find(profile);
    for (size_t i = 0; p && i < 3; i++)
        if (users[i] == p)
            return 1;
    return 0;
}

static int op_serves(const char *op, const char *profile)
{
    int known = 0; /* a profile the table does not name yet: every op serves it */
    for (size_t i = 0; i < sizeof op_users / sizeof op_users[0]; i++)
        known |= lists(op_users[i].users, profile);
    if (!known)
        return 1;
    for (size_t i = 0; i < sizeof op_users / sizeof op_users[0]; i++)
        if (!strcmp(op_users[i].op, op))
            return lists(op_users[i].users, profile);
    return 1;
}

int req_group_serves(const op_group *g, const char *profile)
{
    for (size_t i = 0; i < g->n_cases; i++)
        if (g->cases[i].op && op_serves(g->cases[i].op->name, profile))
            return 1;
    return g->n_cases == 0;
}

int req_group_family(const op_group *g)
{
    return req_group_serves(g, it_profile_gptchar.name);
}

int req_group_in_scope(const req_ctx *q, const op_group *g)
{
    return !q->profile || req_group_serves(g, q->profile);
}

static const op_group *group_named(const vector_set *vs, const char *name, size_t len)
{
    for (size_t i = 0; vs && i < vs->n_groups; i++)
        if (strlen(vs->groups[i].group) == len && !strncmp(vs->groups[i].group, name, len))
            return &vs->groups[i];
    return NULL;
}

static const train_vec *train_named(const vector_set *vs, const char *name)
{
    for (size_t i = 0; vs && i < vs->n_trains; i++)
        if (!strcmp(vs->trains[i].profile, name))
            return &vs->trains[i];
    return NULL;
}

static const op_case *case_named(const op_group *g, const char *id)
{
    for (size_t i = 0; i < g->n_cases; i++)
        if (!strcmp(g->cases[i].id, id))
            return &g->cases[i];
    return NULL;
}

/* suites (results.h): ops/<group>, fresh/ops/<group>, train/<profile>,
 * fresh/train/<profile> */
req_kind req_case_kind(const req_ctx *q, const case_result *c)
{
    const char *s = c->suite;
    int fresh = !strncmp(s, "fresh/", 6);
    if (fresh)
        s += 6;
    if (!strncmp(s, "ops/", 4)) {
        const op_group *g = group_named(q->vs, s + 4, strlen(s + 4));
        if (!g)
            return RQ_REQUIRED;
        if (!req_group_in_scope(q, g))
            return RQ_PROFILE_SCOPE;
        if (req_beyond_iut(q, g->spec_version))
            return RQ_BEYOND_IUT;
        const op_case *oc = fresh ? NULL : case_named(g, c->id);
        if (oc && !q->exhaustive && (op_case_has_flag(oc, "Chunk") || op_case_has_flag(oc, "Exhaustive")))
            return RQ_EXHAUSTIVE;
        return RQ_REQUIRED;
    }
    if (!strncmp(s, "train/", 6)) {
        const train_vec *tv = train_named(q->vs, s + 6);
        if (tv && req_beyond_iut(q, tv->spec_version))
            return RQ_BEYOND_IUT;
        if (fresh && !req_certified_has(q, REQ_FRESH_SEED_RUN))
            return RQ_NOT_CERTIFIED;
        return RQ_REQUIRED;
    }
    return RQ_REQUIRED;
}

void req_apply(const req_ctx *q, results *r)
{
    for (size_t i = 0; i < r->n; i++)
        r->c[i].required = req_case_kind(q, &r->c[i]) == RQ_REQUIRED;
}

/* 1 if a case of the suite ops/NAME or train/NAME (fresh/ included) was skipped */
static int skipped_in(const req_ctx *q, const results *r, const char *kind, const char *name)
{
    size_t k = strlen(kind);
    for (size_t i = 0; i < r->n; i++) {
        const char *s = r->c[i].suite;
        if (!strncmp(s, "fresh/", 6))
            s += 6;
        if (r->c[i].v == V_SKIP && !strncmp(s, kind, k) && s[k] == '/' && !strcmp(s + k + 1, name) &&
            req_case_kind(q, &r->c[i]) == RQ_BEYOND_IUT) /* not the groups --profile left out */
            return 1;
    }
    return 0;
}

/* One list: "profile P" / "profiles P, Q", then "op group G" / "op groups G, H". */
static void list_beyond(const req_ctx *q, const results *r, int groups, sbuf *b)
{
    size_t count = groups ? q->vs->n_groups : q->vs->n_trains, n = 0;
    sbuf names;
    sbuf_init(&names);
    for (size_t k = 0; k < count; k++) {
        const char *name = groups ? q->vs->groups[k].group : q->vs->trains[k].profile;
        const char *since = groups ? q->vs->groups[k].spec_version : q->vs->trains[k].spec_version;
        if (req_beyond_iut(q, since) && skipped_in(q, r, groups ? "ops" : "train", name))
            sbuf_printf(&names, "%s%s", n++ ? ", " : "", name);
    }
    if (n)
        sbuf_printf(b, "%s%s%s %s", b->len ? "; " : "", groups ? "op group" : "profile", n > 1 ? "s" : "", names.p);
    sbuf_free(&names);
}

char *req_not_implemented(const req_ctx *q, const results *r)
{
    if (!q->vs)
        return NULL;
    sbuf b;
    sbuf_init(&b);
    list_beyond(q, r, 0, &b);
    list_beyond(q, r, 1, &b);
    if (!b.len) {
        sbuf_free(&b);
        return NULL;
    }
    return sbuf_take(&b);
}
