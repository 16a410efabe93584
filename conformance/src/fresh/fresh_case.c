/* fresh_case.c — the run seed, the case stream and the case list (fresh.h). */
#include "fresh/fresh.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "isotrain.h"

uint64_t fresh_draw_seed(void)
{
    unsigned char b[8];
    FILE *f = fopen("/dev/urandom", "rb");
    size_t got = f ? fread(b, 1, sizeof b, f) : 0;
    if (f)
        fclose(f);
    uint64_t s = 0;
    if (got == sizeof b) {
        for (int i = 0; i < 8; i++)
            s = s << 8 | b[i];
        return s;
    }
    fprintf(stderr, "isotrain-conform: warning: /dev/urandom unreadable; the run seed comes from time and pid\n");
    return (uint64_t)time(NULL) * 6364136223846793005ull ^ (uint64_t)getpid();
}

/* Each group draws from its own stream (FNV-1a of its name), so adding a
 * group never changes another group's cases. */
void fresh_rng_init(fresh_rng *r, uint64_t run_seed, const char *group)
{
    uint32_t h = 2166136261u;
    for (const char *p = group; *p; p++)
        h = (h ^ (unsigned char)*p) * 16777619u;
    r->seed = run_seed;
    r->stream = h;
    r->index = 0;
}

uint32_t fresh_u32(fresh_rng *r)
{
    return it_rng_u32(r->seed, r->stream, r->index++);
}

uint32_t fresh_below(fresh_rng *r, uint32_t n)
{
    return it_u32_below(fresh_u32(r), n);
}

float fresh_f32(fresh_rng *r, fresh_class c)
{
    uint32_t u = fresh_u32(r), sign = u & 0x80000000u;
    switch (c) {
    case FC_TYPICAL:
        return it_u32_to_symmetric(u) * 4.0f;
    case FC_WIDE: {
        uint32_t e = 1 + fresh_below(r, 254);
        return it_f32_from_bits(sign | e << 23 | (fresh_u32(r) & 0x7fffffu));
    }
    case FC_SUBNORMAL: {
        uint32_t m = fresh_u32(r) & 0x7fffffu;
        return it_f32_from_bits(sign | (m ? m : 1));
    }
    case FC_ZERO:
        return it_f32_from_bits(sign);
    case FC_SPECIAL: {
        static const uint32_t sp[4] = {0x7f800000u, 0xff800000u, 0x7fc00000u, 0xffc00001u};
        return it_f32_from_bits(sp[u & 3]);
    }
    case FC_TINY: {
        uint32_t e = 1 + fresh_below(r, 26);
        return it_f32_from_bits(sign | e << 23 | (fresh_u32(r) & 0x7fffffu));
    }
    }
    return 0.0f;
}

float fresh_near(fresh_rng *r, uint32_t centre, uint32_t spread)
{
    uint32_t d = fresh_below(r, 2 * spread + 1);
    return it_f32_from_bits(centre - spread + d);
}

void fresh_list_free(fresh_list *l)
{
    for (size_t i = 0; i < l->n; i++) {
        free(l->c[i].kv);
        for (int k = 0; k < 4; k++)
            value_free(&l->c[i].want[k]);
    }
    free(l->c);
    memset(l, 0, sizeof *l);
}

value *fresh_add(fresh_list *l, const char *group, const char *op, const char *what, char *kv)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 64;
        l->c = xrealloc(l->c, l->cap * sizeof *l->c);
    }
    fresh_case *c = &l->c[l->n++];
    memset(c, 0, sizeof *c);
    /* ids number the cases of each group from 1: fresh/<group>/<k> */
    char prefix[80];
    int pl = snprintf(prefix, sizeof prefix, "fresh/%s/", group);
    size_t k = 1;
    for (size_t i = 0; i + 1 < l->n; i++)
        k += !strncmp(l->c[i].id, prefix, (size_t)pl);
    snprintf(c->id, sizeof c->id, "%s%zu", prefix, k);
    c->op = op_find(op, strlen(op));
    c->kv = kv;
    c->what = what;
    return c->want;
}

void fresh_add_pointwise(fresh_list *l, const char *group, const char *what_fwd, const char *what_bwd, const float *x,
                         const float *y, const float *dy, const float *dx, size_t n)
{
    char fwd[48], bwd[48];
    snprintf(fwd, sizeof fwd, "%s_forward", group);
    snprintf(bwd, sizeof bwd, "%s_backward", group);
    sbuf b;
    sbuf_init(&b);
    fresh_kv_f32(&b, "x", x, n);
    fresh_want_f32(&fresh_add(l, group, fwd, what_fwd, sbuf_take(&b))[0], y, n);
    sbuf_init(&b);
    fresh_kv_f32(&b, "x", x, n);
    fresh_kv_f32(&b, "dy", dy, n);
    fresh_want_f32(&fresh_add(l, group, bwd, what_bwd, sbuf_take(&b))[0], dx, n);
}

void fresh_want_f32(value *v, const float *x, size_t n)
{
    v->type = VT_F32;
    v->n = n;
    v->v = xmalloc(n * sizeof *v->v);
    for (size_t i = 0; i < n; i++)
        v->v[i] = it_f32_bits(x[i]);
}

void fresh_want_u32(value *v, const uint32_t *x, size_t n)
{
    v->type = VT_U32;
    v->n = n;
    v->v = xmalloc(n * sizeof *v->v);
    for (size_t i = 0; i < n; i++)
        v->v[i] = x[i];
}

void fresh_want_sha256(value *v, const char *hex)
{
    v->type = VT_SHA256;
    v->n = 1;
    v->v = NULL;
    v->text = xstrdup(hex);
}

void fresh_kv_f32(sbuf *b, const char *key, const float *x, size_t n)
{
    sbuf_printf(b, "%s%s=", b->len ? " " : "", key);
    encode_f32s(b, x, n);
}

void fresh_kv_u32(sbuf *b, const char *key, const uint32_t *x, size_t n)
{
    sbuf_printf(b, "%s%s=", b->len ? " " : "", key);
    encode_u32s(b, x, n);
}

void fresh_kv_dec(sbuf *b, const char *key, const uint32_t *x, size_t n)
{
    sbuf_printf(b, "%s%s=", b->len ? " " : "", key);
    for (size_t i = 0; i < n; i++)
        sbuf_printf(b, "%s%u", i ? "," : "", (unsigned)x[i]);
}

size_t fresh_ops_generate(fresh_list *l, const char *group, uint64_t run_seed, const char **why)
{
    fresh_rng r;
    fresh_rng_init(&r, run_seed, group);
    *why = NULL;
    size_t n = fresh_gen_math(l, group, &r);
    if (!n)
        n = fresh_gen_linalg(l, group, &r);
    if (!n)
        n = fresh_gen_loss(l, group, &r);
    if (!n)
        n = fresh_gen_rng(l, group, &r);
    if (!n)
        n = fresh_gen_addmod(l, group, &r);
    if (!n)
        n = fresh_gen_gptchar(l, group, &r);
    if (!n)
        *why = !strcmp(group, "init") || !strcmp(group, "batch")
                   ? "its op takes no seed (spec §11.4, §11.5 use the profile's): the fresh-seed training run covers it"
                   : "no generator for this group";
    return n;
}
