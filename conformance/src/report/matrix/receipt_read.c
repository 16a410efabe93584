/* receipt_read.c — the receipts the matrix folds into one table. */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/matrix/matrix.h"
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

/* levels.train.profiles[PI] into r->prof[]. Returns 0, or -1 after naming the field. */
static int read_profile(const char *file, const cJSON *p, size_t pi, mreceipt *r)
{
    char at[64];
    snprintf(at, sizeof at, "levels.train.profiles[%zu]", pi);
    if (!cJSON_IsObject(p))
        return mx_bad(file, at, "expected an object");
    if (r->n_prof == MX_MAX_PROFILES)
        return mx_bad(file, at, "more than %d profiles", MX_MAX_PROFILES);
    int ok = 1;
    const char *name = mx_jstr(file, p, at, "profile", 0, &ok);
    if (!ok)
        return -1;
    mprofile *m = &r->prof[r->n_prof++];
    memset(m, 0, sizeof *m);
    m->name = xstrdup(name);
    m->first_diff = -1;
    m->steps_run = m->steps_in_vectors = -1;
    const cJSON *fd = cJSON_GetObjectItemCaseSensitive(p, "first_differing_step");
    char field[128];
    uint64_t v;
    if (fd && !cJSON_IsNull(fd)) {
        snprintf(field, sizeof field, "%s.first_differing_step", at);
        if (mx_juint(file, field, fd, INT32_MAX, &v) != 0)
            return -1;
        m->first_diff = (int)v;
    }
    static const char *const lengths[2] = {"steps", "steps_in_vectors"};
    for (int k = 0; k < 2; k++) {
        const cJSON *n = cJSON_GetObjectItemCaseSensitive(p, lengths[k]);
        if (!n)
            continue;
        snprintf(field, sizeof field, "%s.%s", at, lengths[k]);
        if (mx_juint(file, field, n, UINT32_MAX, &v) != 0)
            return -1;
        *(k ? &m->steps_in_vectors : &m->steps_run) = (long)v;
    }
    m->problem = mx_dup(mx_jstr(file, p, at, "problem", 1, &ok));
    if (!ok)
        return -1;
    const cJSON *cks = cJSON_GetObjectItemCaseSensitive(p, "checkpoints");
    if (!cJSON_IsArray(cks)) {
        snprintf(field, sizeof field, "%s.checkpoints", at);
        return mx_bad(file, field, "%s (a receipt of isotrain-conform 1.0.0 with the host matrix's checkpoint list is needed)",
                      cks ? "expected an array" : "missing");
    }
    size_t k = 0;
    for (const cJSON *c = cks->child; c; c = c->next, k++) {
        snprintf(field, sizeof field, "%s.checkpoints[%zu]", at, k);
        const cJSON *st = cJSON_GetObjectItemCaseSensitive(c, "step");
        if (!cJSON_IsObject(c) || !st)
            return mx_bad(file, field, "expected an object with a step number");
        char sfield[144];
        snprintf(sfield, sizeof sfield, "%s.step", field);
        if (mx_juint(file, sfield, st, UINT32_MAX, &v) != 0)
            return -1;
        if (k == MAX_CK)
            return mx_bad(file, field, "more than %d checkpoints", MAX_CK);
        const char *sha = mx_jstr(file, c, field, "sha256", 1, &ok);
        if (!ok)
            return -1;
        if (sha && (strlen(sha) != 64 || !is_lower_hex(sha, 64)))
            return mx_bad(file, NULL, "%s.sha256: expected 64 lowercase hex digits, got \"%s\"", field, sha);
        m->ck_step[k] = (uint32_t)v;
        snprintf(m->ck_sha[k], sizeof m->ck_sha[k], "%s", sha ? sha : "");
        m->ck_same[k] = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(c, "matches_vectors"));
        m->n_ck = k + 1;
    }
    return 0;
}

/* The window cases ("PROFILE/window/FROM-TO", level train) into their
 * profiles. verify has checked the case list; an id of another shape is not
 * a window. */
static void read_windows(const char *file, const cJSON *cases, mreceipt *r)
{
    const cJSON *c;
    cJSON_ArrayForEach(c, cases)
    {
        const cJSON *id = cJSON_GetObjectItemCaseSensitive(c, "id"), *lv = cJSON_GetObjectItemCaseSensitive(c, "level"),
                    *vd = cJSON_GetObjectItemCaseSensitive(c, "verdict");
        if (!cJSON_IsString(id) || !cJSON_IsString(lv) || !cJSON_IsString(vd) || strcmp(lv->valuestring, "train"))
            continue;
        const char *w = strstr(id->valuestring, "/window/");
        unsigned from, to;
        char tail;
        if (!w || sscanf(w + 8, "%u-%u%c", &from, &to, &tail) != 2)
            continue;
        for (size_t k = 0; k < r->n_prof; k++) {
            mprofile *m = &r->prof[k];
            if (strlen(m->name) != (size_t)(w - id->valuestring) || strncmp(m->name, id->valuestring, strlen(m->name)))
                continue;
            if (m->n_win == MX_MAX_WINDOWS) {
                mx_bad(file, "cases", "more than %d windows of profile %s: the rest are not shown", MX_MAX_WINDOWS,
                       m->name);
                break;
            }
            mwindow *x = &m->win[m->n_win++];
            x->from = from, x->to = to;
            x->pass = !strcmp(vd->valuestring, "PASS");
            snprintf(x->verdict, sizeof x->verdict, "%s", vd->valuestring);
        }
    }
}

/* A runner receipt (isotrain-receipt-v1, written with --host NAME) or the
 * record ci/matrix.sh writes when a host's build failed
 * (isotrain-matrix-build-failure-v1). Returns 0, or -1 after naming the file
 * and the field. */
int mx_receipt_load(const char *file, mreceipt *r)
{
    memset(r, 0, sizeof *r);
    r->first_diff = -1;
    r->path = xstrdup(file);
    verify_info info;
    cJSON *j = mx_open_receipt(file, &info, &r->by_windows, &r->prefix_only);
    if (!j) {
        verify_info_free(&info);
        return -1;
    }
    /* who signed and what the receipt binds, kept for the row */
    r->signer = xstrdup(verify_signer_words(&info));
    const dsse_signer *sg = &info.sig;
    if (!sg->principal)
        r->signer_short = xstrdup(info.unsigned_receipt ? "UNSIGNED" : "-");
    else if (sg->cls == KEY_PROJECT)
        r->signer_short = xstrdup("project key");
    else if (sg->cls == KEY_PROJECT_RETIRED)
        r->signer_short = xstrdup("retired project key");
    else
        r->signer_short = xasprintf("other: %.24s %.15s...", sg->principal, sg->fingerprint);
    r->legacy = info.legacy;
    r->facts = info.facts;
    memset(&info.facts, 0, sizeof info.facts);
    verify_info_free(&info);
    int ok = 1;
    if (!cJSON_IsObject(j)) {
        cJSON_Delete(j);
        return mx_bad(file, NULL, "expected a JSON object (a receipt)");
    }
    const char *schema = mx_jstr(file, j, "", "schema", 0, &ok);
    if (!ok)
        goto out;
    if (!strcmp(schema, "isotrain-matrix-build-failure-v1")) {
        r->build_failed = 1;
        r->host = mx_dup(mx_jstr(file, j, "", "matrix_host", 0, &ok));
        r->build_log = mx_dup(mx_jstr(file, j, "", "log", 1, &ok));
        goto out;
    }
    if (strcmp(schema, "isotrain-receipt-v1") != 0) {
        ok = 0;
        mx_bad(file, "schema", "expected \"isotrain-receipt-v1\" or \"isotrain-matrix-build-failure-v1\", got \"%s\"", schema);
        goto out;
    }
    const char *host = mx_jstr(file, j, "", "matrix_host", 1, &ok);
    if (!ok)
        goto out;
    if (!host) {
        /* a run without --host (any machine): named by its file, a.json -> a */
        const char *base = strrchr(file, '/');
        base = base ? base + 1 : file;
        size_t n = strlen(base);
        if (n > 5 && !strcmp(base + n - 5, ".json"))
            n -= 5;
        r->host = xstrndup(base, n);
        r->unnamed = 1;
    } else
        r->host = mx_dup(host);
    const cJSON *rh = cJSON_GetObjectItemCaseSensitive(j, "host");
    if (cJSON_IsObject(rh)) { /* optional: informative only, never judged */
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(rh, "os");
        r->run_os = cJSON_IsString(v) ? xstrdup(v->valuestring) : NULL;
        v = cJSON_GetObjectItemCaseSensitive(rh, "cpu_model");
        r->run_cpu = cJSON_IsString(v) ? xstrdup(v->valuestring) : NULL;
    }
    r->verdict = mx_dup(mx_jstr(file, j, "", "verdict", 0, &ok));
    const cJSON *levels = mx_jobj(file, j, "", "levels", &ok);
    const cJSON *lops = levels ? mx_jobj(file, levels, "levels", "ops", &ok) : NULL;
    const cJSON *ltrain = levels ? mx_jobj(file, levels, "levels", "train", &ok) : NULL;
    if (lops)
        r->lv_ops = mx_dup(mx_jstr(file, lops, "levels.ops", "verdict", 0, &ok));
    if (ltrain)
        r->lv_train = mx_dup(mx_jstr(file, ltrain, "levels.train", "verdict", 0, &ok));
    if (!ok)
        goto out;
    if (strcmp(r->verdict, "PASS") && strcmp(r->verdict, "FAIL") &&
        !((r->by_windows || r->prefix_only) && !strcmp(r->verdict, "PARTIAL"))) {
        ok = 0;
        mx_bad(file, "verdict", "expected \"PASS\", \"FAIL\" or a certification by windows, got \"%s\"", r->verdict);
        goto out;
    }
    /* the train level's profiles: their checkpoints, how far each ran */
    const cJSON *profs = cJSON_GetObjectItemCaseSensitive(ltrain, "profiles");
    if (!cJSON_IsArray(profs)) {
        ok = 0;
        mx_bad(file, "levels.train.profiles", "%s", profs ? "expected an array" : "missing (an array is required)");
        goto out;
    }
    size_t pi = 0;
    for (const cJSON *p = profs->child; p && ok; p = p->next, pi++)
        if (read_profile(file, p, pi, r) != 0)
            ok = 0;
    if (!ok)
        goto out;
    read_windows(file, cJSON_GetObjectItemCaseSensitive(j, "cases"), r);
    if (r->n_prof) { /* the receipt's first profile, as the one-profile readers see it */
        mx_profile_view(r, r->prof[0].name, r);
        r->view = NULL; /* never a pointer into itself: a copy of r would keep it */
    }
    const cJSON *vv = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(j, "vectors"), "vector_version");
    if (cJSON_IsString(vv) && strlen(vv->valuestring) < 32)
        r->vset = xstrdup(vv->valuestring);
    /* what the IUT's own `info` reported from inside the (emulated) host */
    const cJSON *iut = mx_jobj(file, j, "", "iut", &ok);
    const cJSON *self = iut ? mx_jobj(file, iut, "iut", "self_report", &ok) : NULL;
    /* P2 extra key kernels=: the kernel set that ran (reference/src/kernels) */
    const cJSON *hello = iut ? cJSON_GetObjectItemCaseSensitive(iut, "hello") : NULL;
    if (cJSON_IsString(hello)) {
        const char *k = strstr(hello->valuestring, " kernels=");
        if (k) {
            k += 9;
            size_t n = strcspn(k, " ");
            if (n > 0 && n < 32)
                r->kernels = xstrndup(k, n);
        }
    }
    if (self) {
        r->info_status = mx_dup(mx_jstr(file, self, "iut.self_report", "status", 1, &ok));
        const cJSON *vals = cJSON_GetObjectItemCaseSensitive(self, "values");
        if (cJSON_IsObject(vals)) {
            int quiet = 1; /* optional keys: an IUT may have no info verb */
            const char *v;
            if ((v = mx_jstr(file, vals, "", "isa", 1, &quiet)) != NULL)
                r->info_isa = xstrdup(v);
            quiet = 0;
            if ((v = mx_jstr(file, vals, "", "endianness", 1, &quiet)) != NULL)
                r->info_end = xstrdup(v);
            quiet = 0;
            if ((v = mx_jstr(file, vals, "", "cpu_model", 1, &quiet)) != NULL)
                r->info_model = xstrdup(v);
            quiet = 0;
            if ((v = mx_jstr(file, vals, "", "cpu_features", 1, &quiet)) != NULL)
                r->info_features = xstrdup(v);
            quiet = 0;
            if ((v = mx_jstr(file, vals, "", "os", 1, &quiet)) != NULL)
                r->info_os = xstrdup(v);
        }
    }
    const cJSON *emu = cJSON_GetObjectItemCaseSensitive(j, "emulator");
    if (cJSON_IsObject(emu)) {
        r->emu_name = mx_dup(mx_jstr(file, emu, "emulator", "name", 1, &ok));
        r->emu_cpu = mx_dup(mx_jstr(file, emu, "emulator", "cpu", 1, &ok));
    } else if (emu && !cJSON_IsNull(emu)) {
        ok = 0;
        mx_bad(file, "emulator", "expected an object or null");
    }
    const cJSON *w = cJSON_GetObjectItemCaseSensitive(j, "emulator_warnings");
    if (w && !cJSON_IsArray(w)) {
        ok = 0;
        mx_bad(file, "emulator_warnings", "expected an array of strings");
    } else if (w) {
        r->warn = xcalloc((size_t)cJSON_GetArraySize(w) + 1, sizeof *r->warn);
        for (const cJSON *e = w->child; e; e = e->next)
            if (cJSON_IsString(e))
                r->warn[r->n_warn++] = xstrdup(e->valuestring);
    }
    const cJSON *tm = cJSON_GetObjectItemCaseSensitive(j, "timings");
    const cJSON *tot = tm ? cJSON_GetObjectItemCaseSensitive(tm, "total") : NULL;
    r->seconds = cJSON_IsNumber(tot) && isfinite(tot->valuedouble) && tot->valuedouble >= 0 ? tot->valuedouble : -1;
out:
    cJSON_Delete(j);
    return ok ? 0 : -1;
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
