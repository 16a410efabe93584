/* compare.c — `isotrain-conform compare TRACE_A TRACE_B`: two traces of
 * spec §9.2 step by step (loss bits and parameter digests); the first
 * differing step, then the loss gap per step from there. Exit 0 identical,
 * 1 different, 2 bad input (file:line and what was expected). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "isotrain.h"
#include "protocol/trace.h"
#include "core/ulp.h"
#include "core/util.h"

enum { COMPARE_TRACE_MAX = 256 << 20, COMPARE_CKPT_MAX = 1 << 30 };

static int load(const char *path, trace_doc *t)
{
    char err[768];
    if (trace_parse_file(path, COMPARE_TRACE_MAX, t, err, sizeof err) != 0) {
        fprintf(stderr, "isotrain-conform compare: %s\n", err);
        return -1;
    }
    for (size_t i = 0; i < t->n; i++)
        if (!t->s[i].has_digest) {
            fprintf(stderr,
                    "isotrain-conform compare: %s:%zu: expected digest=<64 hex> on every step (loss bits alone cannot show that parameters differ)\n",
                    path, t->s[i].line_no);
            return -1;
        }
    return 0;
}

static void describe_step(const char *tag, const trace_step *s)
{
    if (s->step == 0)
        printf("  %s: step 0 (initial parameters) digest %s\n", tag, s->digest);
    else {
        char l[48];
        f32_describe(s->loss, l, sizeof l);
        printf("  %s: loss %s digest %s\n", tag, l, s->digest);
    }
}

static uint32_t le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Two checkpoints' values, element by element: the first differing index
 * (n if none), the histogram and, for mlp13k's size, the count per tensor. */
static size_t diff_values(const char *a, const char *b, size_t n, ulp_hist *h, size_t per_tensor[5])
{
    size_t first = n;
    int named = n == IT_MLP13K_NPARAMS;
    for (size_t i = 0; i < n; i++) {
        uint32_t x = le32((const unsigned char *)a + 4 * i), y = le32((const unsigned char *)b + 4 * i);
        if (f32_same(x, y))
            continue;
        if (first == n)
            first = i;
        ulp_hist_add(h, x, y);
        for (size_t t = 0; named && t < 5; t++)
            if (i >= it_mlp13k_tensors[t].offset &&
                i < it_mlp13k_tensors[t].offset + it_mlp13k_tensors[t].rows * it_mlp13k_tensors[t].cols)
                per_tensor[t]++;
    }
    return first;
}

/* The first differing element (by tensor for mlp13k's size), the counts and
 * the ULP histogram. */
static void print_first_element(const char *a, const char *b, size_t n, size_t first, size_t step, const ulp_hist *h,
                                const size_t per_tensor[5])
{
    uint32_t x = le32((const unsigned char *)a + 4 * first), y = le32((const unsigned char *)b + 4 * first);
    char fx[48], fy[48], us[32];
    f32_describe(x, fx, sizeof fx);
    f32_describe(y, fy, sizeof fy);
    uint64_t u = ulp_distance(x, y);
    snprintf(us, sizeof us, u == UINT64_MAX ? "sign/NaN" : "%llu ULP", (unsigned long long)u);
    if (n == IT_MLP13K_NPARAMS) {
        size_t t = 0;
        while (t + 1 < 5 && first >= it_mlp13k_tensors[t + 1].offset)
            t++;
        const it_tensor_info *ti = &it_mlp13k_tensors[t];
        size_t k = first - ti->offset;
        printf("first differing tensor at step %zu: %s, element (%zu, %zu) [flat index %zu]: A %s, B %s, %s\n", step,
               ti->name, k / ti->cols, k % ti->cols, first, fx, fy, us);
        printf("differing elements at step %zu: %zu of %zu (", step, h->differing, n);
        for (size_t q = 0; q < 5; q++)
            printf("%s%s: %zu", q ? ", " : "", it_mlp13k_tensors[q].name, per_tensor[q]);
        printf("); max %llu ULP\n", (unsigned long long)h->max_ulp);
    } else {
        printf("first differing element at step %zu: flat index %zu: A %s, B %s, %s\n", step, first, fx, fy, us);
        printf("differing elements at step %zu: %zu of %zu; max %llu ULP\n", step, h->differing, n,
               (unsigned long long)h->max_ulp);
    }
    sbuf t;
    sbuf_init(&t);
    ulp_hist_text(h, &t);
    printf("ULP histogram: %s\n", t.p ? t.p : "");
    sbuf_free(&t);
}

/* Where two checkpoints of one step differ (design brief: "the first tensor
 * and element, the ULP distance"): element by element over the raw
 * little-endian binary32 values, named by tensor when the size is mlp13k's
 * (spec §11.2), by flat index otherwise. The runner reads both files itself. */
static void checkpoint_diff(const char *da, const char *db, size_t step)
{
    char *pa = xasprintf("%s/step-%06zu.bin", da, step), *pb = xasprintf("%s/step-%06zu.bin", db, step);
    char *a = NULL, *b = NULL, err[512];
    size_t la = 0, lb = 0;
    if (read_file(pa, COMPARE_CKPT_MAX, &a, &la, err, sizeof err) != 0 ||
        read_file(pb, COMPARE_CKPT_MAX, &b, &lb, err, sizeof err) != 0) {
        printf("checkpoints: %s\n", err);
    } else if (la != lb || la % 4) {
        printf("checkpoints: %s is %zu bytes, %s %zu: not the same model\n", pa, la, pb, lb);
    } else {
        size_t n = la / 4, per_tensor[5] = {0};
        ulp_hist h;
        ulp_hist_init(&h);
        size_t first = diff_values(a, b, n, &h, per_tensor);
        if (first == n)
            printf("checkpoints of step %zu: identical bytes (the traces' digests say otherwise: check the trace writer)\n",
                   step);
        else
            print_first_element(a, b, n, first, step, &h, per_tensor);
    }
    free(a), free(b), free(pa), free(pb);
}

/* The loss gap of every common step from the first differing one. */
static void print_loss_gap(const trace_doc *a, const trace_doc *b, size_t first, size_t common)
{
    printf("loss gap from step %zu:\n", first ? first : 1);
    printf("  %6s  %-14s %-14s %-15s %s\n", "step", "loss A", "loss B", "|A-B|", "ULP");
    for (size_t i = first ? first : 1; i < common; i++) {
        uint32_t la = a->s[i].loss, lb = b->s[i].loss;
        float fa = it_f32_from_bits(la), fb = it_f32_from_bits(lb);
        double gap = (double)fa - (double)fb;
        if (gap < 0)
            gap = -gap;
        uint64_t u = ulp_distance(la, lb);
        char us[32];
        if (u == UINT64_MAX)
            snprintf(us, sizeof us, "NaN");
        else
            snprintf(us, sizeof us, "%llu", (unsigned long long)u);
        printf("  %6zu  %-14.9g %-14.9g %-15.9g %s\n", i, (double)fa, (double)fb, gap, us);
    }
    if (a->n != b->n)
        printf("(%s ends at step %zu, %s at step %zu)\n", "A", a->n - 1, "B", b->n - 1);
}

/* The first differing step of two traces that differ inside their common
 * steps: what differs, how long the losses stay the same, the checkpoints
 * (with both directories), the loss gap. */
static void print_difference(const trace_doc *a, const trace_doc *b, size_t first, size_t common, const char *cka,
                             const char *ckb)
{
    const trace_step *x = &a->s[first], *y = &b->s[first];
    int loss_same = !x->has_loss || x->loss == y->loss;
    int dig_same = strcmp(x->digest, y->digest) == 0;
    printf("first differing step: %zu (%s)\n", first,
           loss_same ? "loss bits identical, parameter digests differ"
                     : dig_same ? "loss bits differ, parameter digests identical" : "loss bits and parameter digests differ");
    describe_step("A", x);
    describe_step("B", y);
    /* how long the losses stay identical while parameters differ */
    size_t s = first;
    while (s + 1 < common && (!a->s[s + 1].has_loss || a->s[s + 1].loss == b->s[s + 1].loss))
        s++;
    if (loss_same && s >= first && first > 0)
        printf("loss bits identical through step %zu while parameters differ from step %zu\n", s, first);
    if (cka && ckb && !dig_same)
        checkpoint_diff(cka, ckb, first);
    print_loss_gap(a, b, first, common);
}

/* Design brief: "compares any two traces"; spec §9.2 traces, losses by bits.
 * With both checkpoint directories, also where the first differing step's
 * parameters differ. */
int compare_command(const char *pa, const char *pb, const char *cka, const char *ckb)
{
    trace_doc a, b;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    if (load(pa, &a) != 0 || load(pb, &b) != 0) {
        trace_free(&a);
        trace_free(&b);
        return 2;
    }
    printf("A: %s (profile %s, steps 0..%zu of %u)\n", pa, a.profile, a.n ? a.n - 1 : 0, (unsigned)a.steps);
    printf("B: %s (profile %s, steps 0..%zu of %u)\n", pb, b.profile, b.n ? b.n - 1 : 0, (unsigned)b.steps);
    if (strcmp(a.profile, b.profile) != 0)
        printf("note: the traces name different profiles\n");
    size_t common = a.n < b.n ? a.n : b.n, first = common;
    for (size_t i = 0; i < common && first == common; i++) {
        const trace_step *x = &a.s[i], *y = &b.s[i];
        if (strcmp(x->digest, y->digest) != 0 || x->has_loss != y->has_loss || (x->has_loss && x->loss != y->loss))
            first = i;
    }
    int rc = 0;
    if (first == common && a.n == b.n) {
        printf("identical: all %zu steps (0..%zu) have the same loss bits and parameter digests\n", a.n,
               a.n ? a.n - 1 : 0);
    } else if (first == common) {
        printf("first differing step: %zu: %s ends at step %zu, %s goes on to step %zu (steps 0..%zu are identical)\n",
               common, a.n < b.n ? "A" : "B", common ? common - 1 : 0, a.n < b.n ? "B" : "A",
               (a.n > b.n ? a.n : b.n) - 1, common ? common - 1 : 0);
        rc = 1;
    } else {
        print_difference(&a, &b, first, common, cka, ckb);
        rc = 1;
    }
    trace_free(&a);
    trace_free(&b);
    return rc;
}
