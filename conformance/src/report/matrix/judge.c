/* judge.c — is each host what it claims (the features `isotrain info` saw
 * from inside the emulated CPU, QEMU's "TCG doesn't support requested feature"
 * warnings), and is its verdict the one the hosts file expects (pass, or
 * expected-fail for a negative control)? */
#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/matrix/matrix.h"

/* ---- is the host what it claims? ----------------------------------------- */

/* "fma" in "sse sse2 avx fma" (whole words). */
static int has_word(const char *list, const char *w)
{
    size_t n = strlen(w);
    for (const char *p = list; (p = strstr(p, w)) != NULL; p += n)
        if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
            return 1;
    return 0;
}

/* 1 present, 0 absent, -1 cannot tell. A feature is NAME (a word of
 * cpu_features) or NAME@hwcap:BIT / NAME@hwcap2:BIT (a bit of the
 * "hwcap=0x... hwcap2=0x..." words info prints outside x86). */
static int feature_state(const char *features, const char *spec)
{
    if (!features)
        return -1;
    const char *at = strchr(spec, '@');
    if (!at)
        return has_word(features, spec);
    const char *word = at + 1;
    const char *colon = strchr(word, ':');
    if (!colon)
        return -1;
    char key[16];
    snprintf(key, sizeof key, "%.*s=", (int)(colon - word), word);
    unsigned bit = (unsigned)strtoul(colon + 1, NULL, 10);
    for (const char *p = features; (p = strstr(p, key)) != NULL; p++) {
        if (p != features && p[-1] != ' ')
            continue;
        unsigned long long v = strtoull(p + strlen(key), NULL, 0);
        return bit < 64 ? (int)((v >> bit) & 1) : -1;
    }
    return -1;
}

/* The feature QEMU names in "TCG doesn't support requested feature:
 * CPUID.01H:ECX.fma [bit 12]" ("fma"), or NULL. */
char *mx_tcg_feature(const char *warning)
{
    const char *m = strstr(warning, "TCG doesn't support requested feature");
    if (!m)
        return NULL;
    const char *end = strstr(m, " [bit");
    if (!end)
        end = m + strlen(m);
    const char *dot = end;
    while (dot > m && dot[-1] != '.' && dot[-1] != ' ')
        dot--;
    return xstrndup(dot, (size_t)(end - dot));
}

/* What the receipt measured (the current trust rules; conformance/README.md
 * "What a receipt proves"): the emulator is the executable the runner
 * started, the program's ELF/PE machine is the host's ISA, and nothing ran
 * outside the emulator. A receipt of the first rules measured none of this. */
static void check_measured(const mhost *h, const mreceipt *r, sbuf *out)
{
    const receipt_facts *f = &r->facts;
    if (f->rules < 2)
        return;
    if (!f->bound)
        sbuf_item_printf(out, "the subject is unbound (shell form): the runner cannot say which program ran");
    int qemu = h->emulator && !strncmp(h->emulator, "qemu-", 5);
    if (h->emulator && f->emulated && !f->emu_is_executable)
        sbuf_item_printf(out, "the emulator %s is only named (%s): the runner did not start it (--iut-exec %s binds it)",
            f->emu_name ? f->emu_name : "?", f->emu_source ? f->emu_source : "?", h->emulator);
    if (qemu && f->n_files && f->files[0].format && strcmp(f->files[0].format, "ELF") != 0)
        sbuf_item_printf(out, "the emulator %s is a %s, not a QEMU executable", f->files[0].path ? f->files[0].path : "?",
            f->files[0].format);
    const char *isa = receipt_facts_program_isa(f);
    if (!h->machine && *isa && strcmp(isa, h->isa) != 0)
        sbuf_item_printf(out, "the IUT's program is %s code (its executable's machine field), the hosts file says %s", isa, h->isa);
    if (h->machine && *isa && strcmp(h->isa, "?") != 0 && strcmp(isa, h->isa) != 0)
        sbuf_item_printf(out, "the IUT's info reports isa=%s, its program is %s code (its executable's machine field)", h->isa, isa);
    if (h->machine && !f->emulated && *isa && f->host_isa && strcmp(isa, f->host_isa) != 0)
        sbuf_item_printf(out, "the IUT's program is %s code, the runner's host is %s and no emulator is recorded", isa, f->host_isa);
    if (!*isa && f->bound)
        sbuf_item_printf(out, "the receipt records no machine type for the IUT's program");
    for (size_t i = 0; i < f->n_procs; i++) {
        const facts_proc *p = &f->procs[i];
        if (qemu && (!f->emu_sha256 || !p->sha256 || strcmp(p->sha256, f->emu_sha256) != 0))
            sbuf_item_printf(out, "a process ran %s (%s %s, sha256 %.16s...), not the emulator: code ran outside the emulated CPU",
                p->path ? p->path : "?", p->format ? p->format : "?", p->isa ? p->isa : "", p->sha256 ? p->sha256 : "?");
        else if (!h->emulator && !h->machine && p->isa && strcmp(p->isa, h->isa) != 0)
            sbuf_item_printf(out, "a process ran %s (%s code), the hosts file says %s", p->path ? p->path : "?", p->isa, h->isa);
    }
}

static void check_host(const mhost *h, const mreceipt *r, sbuf *out)
{
    /* the emulator and -cpu the receipt names */
    if (!h->emulator && r->emu_name)
        sbuf_item_printf(out, "runs under %s, the hosts file says native", r->emu_name);
    if (h->emulator && (!r->emu_name || strcmp(r->emu_name, h->emulator) != 0))
        sbuf_item_printf(out, "emulator %s, the hosts file says %s", r->emu_name ? r->emu_name : "(none)", h->emulator);
    if (h->cpu && (!r->emu_cpu || strcmp(r->emu_cpu, h->cpu) != 0))
        sbuf_item_printf(out, "-cpu %s, the hosts file says %s (always pass -cpu)", r->emu_cpu ? r->emu_cpu : "(none)", h->cpu);
    /* what the host reported from inside */
    if (!r->info_features && !r->info_isa)
        sbuf_item_printf(out, "the IUT's info reported nothing (status %s): its features cannot be verified",
            r->info_status ? r->info_status : "none");
    else {
        if (r->info_isa && strcmp(r->info_isa, h->isa) != 0)
            sbuf_item_printf(out, "info reports isa=%s, the hosts file says %s", r->info_isa, h->isa);
        if (h->os && (!r->info_os || strcmp(r->info_os, h->os) != 0))
            sbuf_item_printf(out, "info reports os=%s, the hosts file says %s", r->info_os ? r->info_os : "(nothing)", h->os);
        if (r->info_end && strcmp(r->info_end, h->endianness) != 0)
            sbuf_item_printf(out, "info reports endianness=%s, the hosts file says %s", r->info_end, h->endianness);
        for (size_t i = 0; i < h->n_req; i++) {
            int s = feature_state(r->info_features, h->req[i]);
            if (s != 1)
                sbuf_item_printf(out, "required feature %s %s (cpu_features: %s)", h->req[i], s ? "cannot be read" : "is not reported",
                    r->info_features ? r->info_features : "none");
        }
        for (size_t i = 0; i < h->n_abs; i++) {
            int s = feature_state(r->info_features, h->abs[i]);
            if (s != 0)
                sbuf_item_printf(out, "feature %s must be absent but %s (cpu_features: %s)", h->abs[i],
                    s > 0 ? "is reported" : "cannot be read", r->info_features ? r->info_features : "none");
        }
    }
    /* QEMU could not provide a feature this host is meant to have */
    for (size_t i = 0; i < r->n_warn; i++) {
        char *f = mx_tcg_feature(r->warn[i]);
        if (!f)
            continue;
        for (size_t k = 0; k < h->n_req; k++) {
            size_t n = strcspn(h->req[k], "@");
            if (strlen(f) == n && !strncmp(f, h->req[k], n))
                sbuf_item_printf(out, "QEMU cannot provide required feature %s: \"%s\"", f, r->warn[i]);
        }
        free(f);
    }
}

/* ---- judging -------------------------------------------------------------- */

int mx_is_recipe_pass(const char *verdict, const char *recipe)
{
    char word[96];
    snprintf(word, sizeof word, "PASS (recipe sha256:%s)", recipe);
    return recipe[0] && verdict && !strcmp(verdict, word);
}

/* A full certification, one by windows (receipt_trust.c has checked that
 * nothing failed and every window passed, a recipe's windows drawn from its
 * recipe), or a recipe's certification. */
int mx_passed(const mreceipt *r)
{
    if (r->by_windows)
        return !strcmp(r->verdict, "PARTIAL") && !strcmp(r->lv_ops, "PASS");
    if (r->recipe[0]) /* a recipe set has no ops of its own (verdict/scope.c): its run is the certification */
        return mx_is_recipe_pass(r->verdict, r->recipe) && !strcmp(r->lv_train, "PASS");
    return !strcmp(r->verdict, "PASS") && !strcmp(r->lv_ops, "PASS") && !strcmp(r->lv_train, "PASS");
}

/* Each profile's first differing step, or its problem: "mlp13k: first
 * differing step 1" ("first differing step 1" in a set of one profile).
 * 0 when no profile differs or names a problem. */
static int profile_failures(sbuf *why, const mreceipt *r)
{
    int any = 0;
    for (size_t k = 0; k < r->n_prof; k++) {
        const mprofile *m = &r->prof[k];
        const char *name = r->n_prof > 1 ? m->name : "", *colon = r->n_prof > 1 ? ": " : "";
        if (m->first_diff >= 0)
            sbuf_item_printf(why, "%s%sfirst differing step %d", name, colon, m->first_diff), any = 1;
        else if (m->problem)
            sbuf_item_printf(why, "%s%s%s", name, colon, m->problem), any = 1;
    }
    return any;
}

/* The step a negative control failed at, over every profile; -1 none. */
static int first_diff_any(const mreceipt *r)
{
    int d = -1;
    for (size_t k = 0; k < r->n_prof; k++)
        if (r->prof[k].first_diff >= 0 && (d < 0 || r->prof[k].first_diff < d))
            d = r->prof[k].first_diff;
    return d;
}

/* The words of each status, by status (mstatus). */
static const char *const status_words[] = {
    [ST_PASS] = "PASS",
    [ST_XFAIL] = "expected-fail",
    [ST_FAIL] = "FAIL",
    [ST_XPASS] = "FAIL (negative control passed)",
    [ST_XFAIL_OTHER] = "FAIL (negative control failed otherwise)",
    [ST_BUILD_FAILED] = "build failed",
    [ST_MISSING] = "no receipt",
    [ST_PREFIX] = "PARTIAL (prefix)",
    [ST_RECIPE] = "RECIPE", /* the table says which recipe (mx_pass_text) */
};

const char *mx_status_text(mstatus s)
{
    if ((size_t)s < sizeof status_words / sizeof *status_words && status_words[s])
        return status_words[s];
    return "?";
}

void mx_result_text(const mrow *w, char *buf, size_t cap)
{
    if (w->host_bad.len)
        snprintf(buf, cap, "HOST MISMATCH");
    else if (w->st == ST_XFAIL && w->r->first_diff >= 0)
        snprintf(buf, cap, "expected-fail (step %d)", w->r->first_diff);
    else if (w->st == ST_XFAIL)
        snprintf(buf, cap, "expected-fail (ops)");
    else if (w->st == ST_XPASS || w->st == ST_XFAIL_OTHER)
        snprintf(buf, cap, "FAIL (control)"); /* explained below the table */
    else if (w->st == ST_PASS || w->st == ST_RECIPE)
        snprintf(buf, cap, "%s", mx_pass_text(w->r));
    else if (w->st == ST_PREFIX)
        snprintf(buf, cap, "PARTIAL (steps 0-%ld)", w->r->n_prof ? w->r->prof[0].steps_run : -1L);
    else
        snprintf(buf, cap, "%s", mx_status_text(w->st));
}

/* A prefix is as expected only where the hosts file says the host trains a
 * prefix (prefix_steps) and the set has no windows to certify the rest. */
int mx_row_ok(const mrow *w)
{
    return (w->st == ST_PASS || w->st == ST_RECIPE || w->st == ST_XFAIL || (w->st == ST_PREFIX && w->h->prefix_steps >= 0)) &&
           !w->host_bad.len;
}

void mx_judge(mrow *w)
{
    const mhost *h = w->h;
    const mreceipt *r = w->r;
    if (!r) {
        w->st = ST_MISSING;
        sbuf_item_printf(&w->why, "no receipt names this host (matrix_host \"%s\")", h->name);
        return;
    }
    if (r->build_failed) {
        w->st = ST_BUILD_FAILED;
        sbuf_item_printf(&w->why, "the build %s failed%s%s", h->build, r->build_log ? ": see " : "", r->build_log ? r->build_log : "");
        if (h->xfail)
            sbuf_item_printf(&w->why, "so the negative control never ran");
        return;
    }
    if (!h->machine) /* a machine from its receipt claims nothing to check */
        check_host(h, r, &w->host_bad);
    check_measured(h, r, &w->host_bad); /* what the receipt measured, for every row */
    int ok = mx_passed(r);
    if (r->prefix_only && !h->xfail) {
        long steps = r->n_prof ? r->prof[0].steps_run : -1;
        w->st = ST_PREFIX;
        sbuf_item_printf(&w->why, "certified to a prefix only: every op vector and steps 0-%ld of each profile passed (--steps); "
                     "no fresh window drawn from the run seed certifies the rest%s",
            steps, h->prefix_steps >= 0 ? " (as the hosts file's prefix_steps expects)" : "");
        return;
    }
    if (!h->xfail) {
        w->st = !ok ? ST_FAIL : r->recipe[0] ? ST_RECIPE : ST_PASS;
        if (w->st == ST_RECIPE && r->by_windows)
            sbuf_item_printf(&w->why, "certified by windows against a recipe, not the official vectors: the family's op "
                                      "vectors, a training prefix (--steps) and every window passed, the fresh windows "
                                      "drawn from the run seed over the whole run of recipe sha256:%s", r->recipe);
        else if (w->st == ST_RECIPE)
            sbuf_item_printf(&w->why, "certified against a recipe, not the official vectors: every step of its run of "
                                      "recipe sha256:%s is the set's", r->recipe);
        else if (!ok) {
            sbuf_item_printf(&w->why, "verdict %s (ops %s, train %s)", r->verdict, r->lv_ops, r->lv_train);
            profile_failures(&w->why, r);
        } else if (r->by_windows)
            sbuf_item_printf(&w->why, "certified by windows: every op vector, a training prefix (--steps) and every window passed, "
                         "each profile covered by fresh windows drawn from the run seed over its whole run");
        return;
    }
    int d = first_diff_any(r);
    if (ok) {
        w->st = ST_XPASS;
        sbuf_item_printf(&w->why, "the negative control passed: the matrix cannot see the defect it stands for");
    } else if (d >= 0) {
        w->st = ST_XFAIL;
        sbuf_item_printf(&w->why, "failed as expected: first differing step %d", d);
    } else if (!strcmp(r->lv_ops, "FAIL")) {
        /* its op vectors caught it: the defect the control stands for is
         * in the arithmetic, and a run of the ops level shows it */
        w->st = ST_XFAIL;
        sbuf_item_printf(&w->why, "failed as expected: its op vectors differ (ops FAIL)");
    } else {
        w->st = ST_XFAIL_OTHER;
        sbuf_item_printf(&w->why, "failed, but not by a differing checkpoint (verdict %s, ops %s, train %s%s%s)", r->verdict,
            r->lv_ops, r->lv_train, r->train_problem ? ": " : "", r->train_problem ? r->train_problem : "");
    }
}
