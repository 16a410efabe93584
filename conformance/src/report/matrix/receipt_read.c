/* receipt_read.c — the receipts the matrix folds into one table. */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/matrix/matrix.h"
#include "trust/receipt_record.h"
#include <dirent.h>

/* ---- receipts ------------------------------------------------------------- */

void mx_receipt_free(mreceipt *r)
{
    free(r->path), free(r->host), free(r->build_log), free(r->verdict), free(r->lv_ops), free(r->lv_train);
    free(r->kernels), free(r->vset), free(r->emu_name), free(r->emu_cpu), free(r->info_status), free(r->info_isa), free(r->info_os);
    free(r->run_os), free(r->run_cpu);
    free(r->info_end), free(r->info_model), free(r->info_features);
    mx_free_strv(r->warn, r->n_warn);
    free(r->signer), free(r->signer_short);
    receipt_facts_free(&r->facts);
    for (size_t k = 0; k < r->n_prof; k++)
        free(r->prof[k].name), free(r->prof[k].problem);
    memset(r, 0, sizeof *r);
}

/* String field f of scope, named at (its parent's path as the reader
 * walked it) when it is missing or, not nullable here, null; verify has
 * checked its kind. *ok: 0 once a field was named, which silences the next. */
static const char *fstr(const char *file, const rv *scope, const char *at, rf_id f, int nullable, int *ok)
{
    const rv *v = rv_at(scope, f);
    if (v->present && (nullable || !v->null))
        return rv_str(scope, f);
    char field[256];
    snprintf(field, sizeof field, "%s%s%s", at, *at ? "." : "", rf_key(f));
    if (*ok)
        mx_bad(file, field, v->present ? "expected a string" : "missing (a string%s is required)", nullable ? " or null" : "");
    *ok = 0;
    return NULL;
}

/* f's parent path, as the root reads it ("levels.train" of levels.train.verdict). */
static const char *parent_path(rf_id f, char *buf, size_t size)
{
    const char *path = receipt_fields[f].path, *key = rf_key(f);
    snprintf(buf, size, "%.*s", key > path ? (int)(key - path - 1) : 0, path);
    return buf;
}

/* Object field f of the root: present, or named (*ok as fstr). */
static int fobj(const char *file, const rv *top, rf_id f, int *ok)
{
    const rv *v = rv_at(top, f);
    if (v->present && !v->null)
        return 1;
    char parent[128];
    parent_path(f, parent, sizeof parent);
    if (*ok)
        mx_bad(file, NULL, "%s%s%s: %s", parent, *parent ? "." : "", rf_key(f),
               v->present ? "expected an object" : "missing (an object is required)");
    *ok = 0;
    return 0;
}

/* A count field f of element at, in [0, max]: into *out. 0, or -1 after naming it. */
static int read_count(const char *file, const char *at, const rv *scope, rf_id f, uint64_t max, uint64_t *out)
{
    double d;
    if (rv_num(scope, f, &d) == 0 && d >= 0 && d <= (double)max) {
        *out = (uint64_t)d; /* whole: the strict reader checked it */
        return 0;
    }
    char field[160];
    snprintf(field, sizeof field, "%s.%s", at, rf_key(f));
    return mx_bad(file, field, "expected a whole number from 0 to %llu", (unsigned long long)max);
}

/* The checkpoints of levels.train.profiles[PI] (at) into m. */
static int read_checkpoints(const char *file, const char *at, const rv *p, mprofile *m)
{
    int ok = 1;
    uint64_t v;
    char field[128];
    const rf_id cks = RF_LEVELS_TRAIN_PROFILES_CHECKPOINTS;
    if (!rv_at(p, cks)->present || rv_at(p, cks)->null) {
        snprintf(field, sizeof field, "%s.%s", at, rf_key(cks));
        return mx_bad(file, field, "%s (a receipt of isotrain-conform 1.0.0 with the host matrix's checkpoint list is needed)",
                      rv_at(p, cks)->present ? "expected an array" : "missing");
    }
    for (size_t k = 0; k < rv_len(p, cks); k++) {
        snprintf(field, sizeof field, "%s.%s[%zu]", at, rf_key(cks), k);
        const rv *c = rv_el(p, cks, k);
        if (c->null || !rv_at(c, RF_LEVELS_TRAIN_PROFILES_CHECKPOINTS_STEP)->present)
            return mx_bad(file, field, "expected an object with a step number");
        if (read_count(file, field, c, RF_LEVELS_TRAIN_PROFILES_CHECKPOINTS_STEP, UINT32_MAX, &v) != 0)
            return -1;
        if (k == MAX_CK)
            return mx_bad(file, field, "more than %d checkpoints", MAX_CK);
        const char *sha = fstr(file, c, field, RF_LEVELS_TRAIN_PROFILES_CHECKPOINTS_SHA256, 1, &ok);
        if (!ok)
            return -1;
        if (sha && (strlen(sha) != 64 || !is_lower_hex(sha, 64)))
            return mx_bad(file, NULL, "%s.%s: expected 64 lowercase hex digits, got \"%s\"", field,
                          rf_key(RF_LEVELS_TRAIN_PROFILES_CHECKPOINTS_SHA256), sha);
        m->ck_step[k] = (uint32_t)v;
        snprintf(m->ck_sha[k], sizeof m->ck_sha[k], "%s", sha ? sha : "");
        m->ck_same[k] = rv_true(c, RF_LEVELS_TRAIN_PROFILES_CHECKPOINTS_MATCHES_VECTORS);
        m->n_ck = k + 1;
    }
    return 0;
}

/* levels.train.profiles[PI] into r->prof[]. Returns 0, or -1 after naming the field. */
static int read_profile(const char *file, const rv *p, size_t pi, mreceipt *r)
{
    char at[64];
    snprintf(at, sizeof at, "%s[%zu]", receipt_fields[RF_LEVELS_TRAIN_PROFILES].path, pi);
    if (p->null)
        return mx_bad(file, at, "expected an object");
    if (r->n_prof == MX_MAX_PROFILES)
        return mx_bad(file, at, "more than %d profiles", MX_MAX_PROFILES);
    int ok = 1;
    const char *name = fstr(file, p, at, RF_LEVELS_TRAIN_PROFILES_PROFILE, 0, &ok);
    if (!ok)
        return -1;
    mprofile *m = &r->prof[r->n_prof++];
    memset(m, 0, sizeof *m);
    m->name = xstrdup(name);
    m->first_diff = -1;
    m->steps_run = m->steps_in_vectors = -1;
    uint64_t v;
    if (rv_at(p, RF_LEVELS_TRAIN_PROFILES_FIRST_DIFFERING_STEP)->present &&
        !rv_at(p, RF_LEVELS_TRAIN_PROFILES_FIRST_DIFFERING_STEP)->null) {
        if (read_count(file, at, p, RF_LEVELS_TRAIN_PROFILES_FIRST_DIFFERING_STEP, INT32_MAX, &v) != 0)
            return -1;
        m->first_diff = (int)v;
    }
    static const rf_id lengths[2] = {RF_LEVELS_TRAIN_PROFILES_STEPS, RF_LEVELS_TRAIN_PROFILES_STEPS_IN_VECTORS};
    for (int k = 0; k < 2; k++) {
        if (!rv_at(p, lengths[k])->present)
            continue;
        if (read_count(file, at, p, lengths[k], UINT32_MAX, &v) != 0)
            return -1;
        *(k ? &m->steps_in_vectors : &m->steps_run) = (long)v;
    }
    m->problem = mx_dup(fstr(file, p, at, RF_LEVELS_TRAIN_PROFILES_PROBLEM, 1, &ok));
    if (!ok)
        return -1;
    return read_checkpoints(file, at, p, m);
}

/* The window cases ("PROFILE/window/FROM-TO", level train) into their
 * profiles. verify has checked the case list; an id of another shape is not
 * a window. */
static void read_windows(const char *file, const rv *top, mreceipt *r)
{
    for (size_t i = 0; i < rv_len(top, RF_CASES); i++) {
        const rv *c = rv_el(top, RF_CASES, i);
        if (c->null)
            continue;
        const char *id = rv_str(c, RF_CASES_ID), *lv = rv_str(c, RF_CASES_LEVEL), *vd = rv_str(c, RF_CASES_VERDICT);
        if (!id || !lv || !vd || strcmp(lv, "train"))
            continue;
        const char *w = strstr(id, "/window/");
        unsigned from, to;
        char tail;
        if (!w || sscanf(w + 8, "%u-%u%c", &from, &to, &tail) != 2)
            continue;
        for (size_t k = 0; k < r->n_prof; k++) {
            mprofile *m = &r->prof[k];
            if (strlen(m->name) != (size_t)(w - id) || strncmp(m->name, id, strlen(m->name)))
                continue;
            if (m->n_win == MX_MAX_WINDOWS) {
                mx_bad(file, receipt_fields[RF_CASES].path, "more than %d windows of profile %s: the rest are not shown",
                       MX_MAX_WINDOWS, m->name);
                break;
            }
            mwindow *x = &m->win[m->n_win++];
            x->from = from, x->to = to;
            x->pass = !strcmp(vd, "PASS");
            snprintf(x->verdict, sizeof x->verdict, "%s", vd);
        }
    }
}

/* Who signed and what the receipt binds, kept for the row. */
static void keep_signer(mreceipt *r, verify_info *info)
{
    r->signer = xstrdup(verify_signer_words(info));
    const dsse_signer *sg = &info->sig;
    if (!sg->principal)
        r->signer_short = xstrdup(info->unsigned_receipt ? "UNSIGNED" : "-");
    else if (sg->cls == KEY_PROJECT)
        r->signer_short = xstrdup("project key");
    else if (sg->cls == KEY_PROJECT_RETIRED)
        r->signer_short = xstrdup("retired project key");
    else
        r->signer_short = xasprintf("other: %.24s %.15s...", sg->principal, sg->fingerprint);
    r->legacy = info->legacy;
    /* the recipe digest verify checked against the set's manifest (a recipe
     * certification is labelled by it, never by the official PASS) */
    snprintf(r->recipe, sizeof r->recipe, "%s", info->recipe_sha256);
    if (r->recipe[0]) {
        snprintf(r->recipe_label, sizeof r->recipe_label, "recipe sha256:%.12s", r->recipe);
        snprintf(r->recipe_pass, sizeof r->recipe_pass, "%s%s", r->recipe_label, r->by_windows ? " (windows)" : "");
    }
    r->facts = info->facts;
    memset(&info->facts, 0, sizeof info->facts);
}

/* The host's name: --host NAME, or a run without it (any machine) named by
 * its file, a.json -> a. */
static void read_host(const char *file, const rv *top, const char *host, mreceipt *r)
{
    if (!host) {
        const char *base = strrchr(file, '/');
        base = base ? base + 1 : file;
        size_t n = strlen(base);
        if (n > 5 && !strcmp(base + n - 5, ".json"))
            n -= 5;
        r->host = xstrndup(base, n);
        r->unnamed = 1;
    } else
        r->host = mx_dup(host);
    /* optional: informative only, never judged */
    r->run_os = mx_dup(rv_str(top, RF_HOST_OS));
    r->run_cpu = mx_dup(rv_str(top, RF_HOST_CPU_MODEL));
}

/* The verdict, the levels' verdicts and the train level's profiles: their
 * checkpoints, how far each ran. 0, or -1 after naming the field. */
static int read_verdicts(const char *file, const rv *top, mreceipt *r)
{
    int ok = 1;
    char lp[64];
    r->verdict = mx_dup(fstr(file, top, "", RF_VERDICT, 0, &ok));
    int levels = fobj(file, top, RF_LEVELS, &ok);
    parent_path(RF_LEVELS_OPS_VERDICT, lp, sizeof lp);
    if (levels && fobj(file, top, RF_LEVELS_OPS, &ok))
        r->lv_ops = mx_dup(fstr(file, top, lp, RF_LEVELS_OPS_VERDICT, 0, &ok));
    parent_path(RF_LEVELS_TRAIN_VERDICT, lp, sizeof lp);
    int ltrain = levels && fobj(file, top, RF_LEVELS_TRAIN, &ok);
    if (ltrain)
        r->lv_train = mx_dup(fstr(file, top, lp, RF_LEVELS_TRAIN_VERDICT, 0, &ok));
    if (!ok)
        return -1;
    if (strcmp(r->verdict, "PASS") && strcmp(r->verdict, "FAIL") && !mx_is_recipe_pass(r->verdict, r->recipe) &&
        !((r->by_windows || r->prefix_only) && !strcmp(r->verdict, "PARTIAL")))
        return mx_bad(file, receipt_fields[RF_VERDICT].path,
                      "expected \"PASS\", \"FAIL\", a recipe's PASS or a certification by windows, got \"%s\"",
                      r->verdict);
    const rv *profs = rv_at(top, RF_LEVELS_TRAIN_PROFILES);
    if (!ltrain || !profs->present || profs->null)
        return mx_bad(file, receipt_fields[RF_LEVELS_TRAIN_PROFILES].path, "%s",
                      profs->present ? "expected an array" : "missing (an array is required)");
    for (size_t pi = 0; pi < profs->n; pi++)
        if (read_profile(file, &profs->el[pi], pi, r) != 0)
            return -1;
    read_windows(file, top, r);
    if (r->n_prof) { /* the receipt's first profile, as the one-profile readers see it */
        mx_profile_view(r, r->prof[0].name, r);
        r->view = NULL; /* never a pointer into itself: a copy of r would keep it */
    }
    return 0;
}

/* What the IUT said of itself (*ok as fstr): the kernel set that ran (P2
 * extra key kernels=, reference/src/kernels) and its own `info` from inside
 * the (emulated) host. */
static void read_self_report(const char *file, const rv *top, mreceipt *r, int *ok)
{
    int iut = fobj(file, top, RF_IUT, ok);
    int self = iut && fobj(file, top, RF_IUT_SELF_REPORT, ok);
    const char *hello = rv_str(top, RF_IUT_HELLO);
    const char *k = hello ? strstr(hello, " kernels=") : NULL;
    if (k) {
        k += 9;
        size_t n = strcspn(k, " ");
        if (n > 0 && n < 32)
            r->kernels = xstrndup(k, n);
    }
    if (!self)
        return;
    char at[64];
    r->info_status = mx_dup(fstr(file, top, parent_path(RF_IUT_SELF_REPORT_STATUS, at, sizeof at),
                                 RF_IUT_SELF_REPORT_STATUS, 1, ok));
    const rv *vals = rv_at(top, RF_IUT_SELF_REPORT_VALUES);
    if (!vals->present || vals->null)
        return;
    /* the IUT's info keys (P2), each optional: an IUT may have no info verb
     * (a missing isa, the first, is named; the rest are not) */
    static const char *const keys[] = {"isa", "endianness", "cpu_model", "cpu_features", "os"};
    char **into[] = {&r->info_isa, &r->info_end, &r->info_model, &r->info_features, &r->info_os};
    for (size_t i = 0; i < 5; i++) {
        size_t e = 0;
        while (e < vals->n && strcmp(vals->key[e], keys[i]))
            e++;
        if (e < vals->n)
            *into[i] = mx_dup(vals->el[e].null ? NULL : vals->el[e].s);
        else if (i == 0)
            mx_bad(file, keys[i], "missing (a string or null is required)");
    }
}

/* The emulator as the receipt names it, its warnings and the run's time
 * (*ok as fstr). */
static void read_emulator(const char *file, const rv *top, mreceipt *r, int *ok)
{
    const rv *emu = rv_at(top, RF_EMULATOR);
    char at[64];
    parent_path(RF_EMULATOR_NAME, at, sizeof at);
    if (emu->present && !emu->null) {
        r->emu_name = mx_dup(fstr(file, top, at, RF_EMULATOR_NAME, 1, ok));
        r->emu_cpu = mx_dup(fstr(file, top, at, RF_EMULATOR_CPU, 1, ok));
    }
    const rv *w = rv_at(top, RF_EMULATOR_WARNINGS);
    if (w->present && w->null) {
        *ok = 0;
        mx_bad(file, receipt_fields[RF_EMULATOR_WARNINGS].path, "expected an array of strings");
    } else if (w->present) {
        r->warn = xcalloc(w->n + 1, sizeof *r->warn);
        for (size_t i = 0; i < w->n; i++)
            if (!w->el[i].null)
                r->warn[r->n_warn++] = xstrdup(w->el[i].s);
    }
    double tot;
    r->seconds = rv_num(top, RF_TIMINGS_TOTAL, &tot) == 0 && isfinite(tot) && tot >= 0 ? tot : -1;
}

/* The record ci/matrix.sh writes when a host's build failed
 * (isotrain-matrix-build-failure-v1), not a receipt: the host and the
 * build's log. */
static int read_build_failure(const char *file, const cJSON *j, mreceipt *r)
{
    int ok = 1;
    r->build_failed = 1;
    r->host = mx_dup(mx_jstr(file, j, "", rf_key(RF_MATRIX_HOST), 0, &ok));
    r->build_log = mx_dup(mx_jstr(file, j, "", "log", 1, &ok));
    return ok ? 0 : -1;
}

/* A verified receipt (isotrain-receipt-v1, written with --host NAME), read
 * through the typed record only. */
static int read_receipt(const char *file, const rv *top, mreceipt *r)
{
    int ok = 1;
    const char *schema = fstr(file, top, "", RF_SCHEMA, 0, &ok);
    if (!ok)
        return -1;
    if (strcmp(schema, RECEIPT_SCHEMA_NAME) != 0)
        return mx_bad(file, receipt_fields[RF_SCHEMA].path,
                      "expected \"isotrain-receipt-v1\" or \"isotrain-matrix-build-failure-v1\", got \"%s\"", schema);
    const char *host = fstr(file, top, "", RF_MATRIX_HOST, 1, &ok);
    if (!ok)
        return -1;
    read_host(file, top, host, r);
    if (read_verdicts(file, top, r) != 0)
        return -1;
    const char *vv = rv_str(top, RF_VECTORS_VECTOR_VERSION);
    if (r->recipe[0]) /* a recipe set is named by its recipe, apart from the official sets */
        r->vset = xstrdup(r->recipe_label);
    else if (vv && strlen(vv) < 32)
        r->vset = xstrdup(vv);
    read_self_report(file, top, r, &ok);
    read_emulator(file, top, r, &ok);
    return ok ? 0 : -1;
}

/* A runner receipt or the record of a failed build. Returns 0, or -1 after
 * naming the file and the field. */
int mx_receipt_load(const char *file, mreceipt *r)
{
    memset(r, 0, sizeof *r);
    r->first_diff = -1;
    r->path = xstrdup(file);
    verify_info info;
    receipt_record rec;
    int got = mx_open_receipt(file, &info, &rec, &r->by_windows, &r->prefix_only);
    if (got >= 0)
        keep_signer(r, &info);
    verify_info_free(&info);
    if (got < 0)
        return -1;
    int rc = got == 1 ? read_build_failure(file, rec.doc, r) : read_receipt(file, &rec.top, r);
    receipt_record_free(&rec);
    return rc;
}

int mx_load_dir(const char *dir, mreceipt **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "isotrain-conform matrix: --against %s: cannot open the directory\n", dir);
        return -1;
    }
    char **names = NULL;
    size_t nn = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t l = strlen(e->d_name);
        if (l > 5 && !strcmp(e->d_name + l - 5, ".json") && e->d_name[0] != '.') {
            names = xrealloc(names, (nn + 1) * sizeof *names);
            names[nn++] = xasprintf("%s/%s", dir, e->d_name);
        }
    }
    closedir(d);
    int rc = 0;
    *out = xcalloc(nn + 1, sizeof **out);
    for (size_t i = 0; i < nn; i++) {
        if (rc == 0 && mx_receipt_load(names[i], &(*out)[*n]) != 0)
            rc = -1;
        (*n)++;
        free(names[i]);
    }
    free(names);
    return rc;
}

const mreceipt *mx_find_receipt(const mreceipt *rs, size_t n, const char *host)
{
    for (size_t i = 0; i < n; i++)
        if (rs[i].host && !strcmp(rs[i].host, host))
            return &rs[i];
    return NULL;
}
