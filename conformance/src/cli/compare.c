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

enum { COMPARE_TRACE_MAX = 256 << 20 };

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

/* Design brief: "compares any two traces"; spec §9.2 traces, losses by bits. */
int compare_command(const char *pa, const char *pb)
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
        const trace_step *x = &a.s[first], *y = &b.s[first];
        int loss_same = !x->has_loss || x->loss == y->loss;
        int dig_same = strcmp(x->digest, y->digest) == 0;
        printf("first differing step: %zu (%s)\n", first,
               loss_same ? "loss bits identical, parameter digests differ"
                         : dig_same ? "loss bits differ, parameter digests identical" : "loss bits and parameter digests differ");
        describe_step("A", x);
        describe_step("B", y);
        /* how long the losses stay identical while parameters differ */
        size_t s = first;
        while (s + 1 < common && (!a.s[s + 1].has_loss || a.s[s + 1].loss == b.s[s + 1].loss))
            s++;
        if (loss_same && s >= first && first > 0)
            printf("loss bits identical through step %zu while parameters differ from step %zu\n", s, first);
        printf("loss gap from step %zu:\n", first ? first : 1);
        printf("  %6s  %-14s %-14s %-15s %s\n", "step", "loss A", "loss B", "|A-B|", "ULP");
        for (size_t i = first ? first : 1; i < common; i++) {
            uint32_t la = a.s[i].loss, lb = b.s[i].loss;
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
        if (a.n != b.n)
            printf("(%s ends at step %zu, %s at step %zu)\n", "A", a.n - 1, "B", b.n - 1);
        rc = 1;
    }
    trace_free(&a);
    trace_free(&b);
    return rc;
}
