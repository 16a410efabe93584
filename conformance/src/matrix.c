/* matrix.c — `isotrain-conform matrix`: the emulated host matrix
 * (DESIGN.md, "The host matrix"). It reads the hosts file (qemu/hosts.json:
 * each host's emulator, -cpu, build, expected verdict and the features it must
 * and must not report) and one receipt per host, checks each host is what it
 * claims (the features `isotrain info` saw from inside the emulated CPU, QEMU's
 * "TCG doesn't support requested feature" warnings), judges each host against
 * its expected verdict (pass, or expected-fail for a negative control), and
 * prints the table: hosts as rows, the vectors' checkpoint steps as columns, a
 * digest prefix per cell, and whether every host agrees. --against DIR compares
 * verdicts and digests with published receipts. */
#include <cjson/cJSON.h>
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "util.h"

enum { MAX_CK = 64, RECEIPT_CAP = 64 << 20, HOSTS_CAP = 1 << 20 };

typedef struct {
    char *name, *emulator, *cpu, *isa, *endianness, *stands_for, *build, *expected;
    double slowdown;
    char **req, **abs;
    size_t n_req, n_abs;
    int xfail; /* expected == "expected-fail" */
} mhost;

typedef struct {
    char *path;
    char *host;
    int build_failed;
    char *build_log;
    char *verdict, *lv_ops, *lv_train;
    int first_diff; /* first differing step, -1 none */
    char *train_problem;
    char *emu_name, *emu_cpu;
    char *info_status, *info_isa, *info_end, *info_model, *info_features;
    char **warn;
    size_t n_warn;
    size_t n_ck;
    uint32_t ck_step[MAX_CK];
    char ck_sha[MAX_CK][65];
    int ck_same[MAX_CK];
    double seconds;
} mreceipt;

typedef enum { ST_PASS, ST_XFAIL, ST_FAIL, ST_XPASS, ST_XFAIL_OTHER, ST_BUILD_FAILED, ST_MISSING } mstatus;

typedef struct {
    const mhost *h;
    const mreceipt *r; /* NULL: no receipt */
    mstatus st;
    sbuf why;       /* why the host is not as expected, or what it reported */
    sbuf host_bad;  /* the host is not what it claims (features, emulator) */
} mrow;

/* ---- small helpers -------------------------------------------------------- */

static char *dup_or_null(const char *s) { return s ? xstrdup(s) : NULL; }

static void free_strv(char **v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

/* A problem with an input file: "FILE: FIELD: what" on stderr. */
static int bad(const char *file, const char *field, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int bad(const char *file, const char *field, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "isotrain-conform matrix: %s: %s%s", file, field ? field : "", field ? ": " : "");
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return -1;
}

/* obj[key] as a string; NULL (and *ok=0 after a message) when absent or not a
 * string, unless nullable and the value is JSON null. */
static const char *jstr(const char *file, const cJSON *obj, const char *path, const char *key, int nullable, int *ok)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    char field[256];
    snprintf(field, sizeof field, "%s%s%s", path, *path ? "." : "", key);
    if (!v) {
        if (*ok)
            bad(file, field, "missing (a string%s is required)", nullable ? " or null" : "");
        *ok = 0;
        return NULL;
    }
    if (nullable && cJSON_IsNull(v))
        return NULL;
    if (!cJSON_IsString(v)) {
        if (*ok)
            bad(file, field, "expected a string%s", nullable ? " or null" : "");
        *ok = 0;
        return NULL;
    }
    return v->valuestring;
}

static const cJSON *jobj(const char *file, const cJSON *obj, const char *path, const char *key, int *ok)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!cJSON_IsObject(v)) {
        if (*ok)
            bad(file, NULL, "%s%s%s: %s", path, *path ? "." : "", key, v ? "expected an object" : "missing (an object is required)");
        *ok = 0;
        return NULL;
    }
    return v;
}

static cJSON *parse_file(const char *path, size_t cap)
{
    char *data;
    size_t len;
    char err[512];
    if (read_file(path, cap, &data, &len, err, sizeof err) != 0) {
        fprintf(stderr, "isotrain-conform matrix: %s\n", err);
        return NULL;
    }
    const char *end = NULL;
    cJSON *j = cJSON_ParseWithLengthOpts(data, len, &end, 0);
    if (!j) {
        size_t off = end && end >= data ? (size_t)(end - data) : 0;
        size_t line = 1;
        for (size_t i = 0; i < off && i < len; i++)
            line += data[i] == '\n';
        bad(path, NULL, "not valid JSON (near byte %zu, line %zu)", off, line);
    }
    free(data);
    return j;
}

/* ---- the hosts file ------------------------------------------------------- */

static int strv_load(const char *file, const cJSON *h, const char *path, const char *key, char ***out, size_t *n)
{
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(h, key);
    *out = NULL;
    *n = 0;
    if (!cJSON_IsArray(a))
        return bad(file, NULL, "%s.%s: %s", path, key, a ? "expected an array of strings" : "missing (an array of strings is required)");
    size_t k = 0;
    *out = xcalloc((size_t)cJSON_GetArraySize(a) + 1, sizeof **out);
    for (const cJSON *e = a->child; e; e = e->next, k++) {
        if (!cJSON_IsString(e) || !e->valuestring[0])
            return bad(file, NULL, "%s.%s[%zu]: expected a non-empty string", path, key, k);
        (*out)[(*n)++] = xstrdup(e->valuestring);
    }
    return 0;
}

static void hosts_free(mhost *hs, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        mhost *h = &hs[i];
        free(h->name), free(h->emulator), free(h->cpu), free(h->isa), free(h->endianness);
        free(h->stands_for), free(h->build), free(h->expected);
        free_strv(h->req, h->n_req);
        free_strv(h->abs, h->n_abs);
    }
    free(hs);
}

static int token_ok(const char *s)
{
    if (!*s)
        return 0;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '-' ||
              *s == '_' || *s == '.'))
            return 0;
    return 1;
}

static int hosts_load(const char *file, mhost **out, size_t *n_out)
{
    *out = NULL;
    *n_out = 0;
    cJSON *j = parse_file(file, HOSTS_CAP);
    if (!j)
        return -1;
    int ok = 1;
    const cJSON *arr = cJSON_GetObjectItemCaseSensitive(j, "hosts");
    if (!cJSON_IsArray(arr) || !cJSON_GetArraySize(arr)) {
        bad(file, "hosts", "expected a non-empty array of hosts");
        cJSON_Delete(j);
        return -1;
    }
    size_t n = (size_t)cJSON_GetArraySize(arr), i = 0;
    mhost *hs = xcalloc(n, sizeof *hs);
    for (const cJSON *e = arr->child; e && ok; e = e->next, i++) {
        char path[64];
        snprintf(path, sizeof path, "hosts[%zu]", i);
        mhost *h = &hs[i];
        *n_out = i + 1;
        if (!cJSON_IsObject(e)) {
            ok = 0;
            bad(file, path, "expected an object");
            break;
        }
        h->name = dup_or_null(jstr(file, e, path, "name", 0, &ok));
        h->emulator = dup_or_null(jstr(file, e, path, "emulator", 1, &ok));
        h->cpu = dup_or_null(jstr(file, e, path, "cpu", 1, &ok));
        h->isa = dup_or_null(jstr(file, e, path, "isa", 0, &ok));
        h->endianness = dup_or_null(jstr(file, e, path, "endianness", 0, &ok));
        h->stands_for = dup_or_null(jstr(file, e, path, "stands_for", 0, &ok));
        h->build = dup_or_null(jstr(file, e, path, "build", 0, &ok));
        h->expected = dup_or_null(jstr(file, e, path, "expected", 0, &ok));
        if (!ok)
            break;
        const cJSON *sd = cJSON_GetObjectItemCaseSensitive(e, "slowdown");
        h->slowdown = 1;
        if (sd && (!cJSON_IsNumber(sd) || !(sd->valuedouble >= 1))) {
            ok = 0;
            bad(file, NULL, "%s.slowdown: expected a number >= 1", path);
            break;
        } else if (sd)
            h->slowdown = sd->valuedouble;
        if (!token_ok(h->name) || !token_ok(h->build)) {
            ok = 0;
            bad(file, NULL, "%s: name and build are tokens of [A-Za-z0-9._-] (they name files), got '%s' and '%s'", path,
                h->name, h->build);
            break;
        }
        if (!strcmp(h->expected, "expected-fail"))
            h->xfail = 1;
        else if (strcmp(h->expected, "pass") != 0) {
            ok = 0;
            bad(file, NULL, "%s.expected: expected \"pass\" or \"expected-fail\", got \"%s\"", path, h->expected);
            break;
        }
        if (!h->emulator != !h->cpu) {
            ok = 0;
            bad(file, NULL, "%s: emulator and cpu are both null (native) or both given: always pass -cpu", path);
            break;
        }
        if (strv_load(file, e, path, "required_features", &h->req, &h->n_req) ||
            strv_load(file, e, path, "absent_features", &h->abs, &h->n_abs)) {
            ok = 0;
            break;
        }
        for (size_t k = 0; k < i && ok; k++)
            if (!strcmp(hs[k].name, h->name)) {
                ok = 0;
                bad(file, NULL, "%s.name: host '%s' is listed twice", path, h->name);
            }
    }
    cJSON_Delete(j);
    if (!ok) {
        hosts_free(hs, *n_out);
        *n_out = 0;
        return -1;
    }
    *out = hs;
    *n_out = n;
    return 0;
}

/* ---- receipts ------------------------------------------------------------- */

static void receipt_free(mreceipt *r)
{
    free(r->path), free(r->host), free(r->build_log), free(r->verdict), free(r->lv_ops), free(r->lv_train);
    free(r->train_problem), free(r->emu_name), free(r->emu_cpu), free(r->info_status), free(r->info_isa);
    free(r->info_end), free(r->info_model), free(r->info_features);
    free_strv(r->warn, r->n_warn);
    memset(r, 0, sizeof *r);
}

/* A runner receipt (isotrain-receipt-v1, written with --host NAME) or the
 * record ci/matrix.sh writes when a host's build failed
 * (isotrain-matrix-build-failure-v1). Returns 0, or -1 after naming the file
 * and the field. */
static int receipt_load(const char *file, mreceipt *r)
{
    memset(r, 0, sizeof *r);
    r->first_diff = -1;
    r->path = xstrdup(file);
    cJSON *j = parse_file(file, RECEIPT_CAP);
    if (!j)
        return -1;
    int ok = 1;
    if (!cJSON_IsObject(j)) {
        cJSON_Delete(j);
        return bad(file, NULL, "expected a JSON object (a receipt)");
    }
    const char *schema = jstr(file, j, "", "schema", 0, &ok);
    if (!ok)
        goto out;
    if (!strcmp(schema, "isotrain-matrix-build-failure-v1")) {
        r->build_failed = 1;
        r->host = dup_or_null(jstr(file, j, "", "matrix_host", 0, &ok));
        r->build_log = dup_or_null(jstr(file, j, "", "log", 1, &ok));
        goto out;
    }
    if (strcmp(schema, "isotrain-receipt-v1") != 0) {
        ok = 0;
        bad(file, "schema", "expected \"isotrain-receipt-v1\" or \"isotrain-matrix-build-failure-v1\", got \"%s\"", schema);
        goto out;
    }
    const char *host = jstr(file, j, "", "matrix_host", 1, &ok);
    if (ok && !host) {
        ok = 0;
        bad(file, "matrix_host", "null: the receipt does not name its host (run the runner with --host NAME)");
        goto out;
    }
    r->host = dup_or_null(host);
    r->verdict = dup_or_null(jstr(file, j, "", "verdict", 0, &ok));
    const cJSON *levels = jobj(file, j, "", "levels", &ok);
    const cJSON *lops = levels ? jobj(file, levels, "levels", "ops", &ok) : NULL;
    const cJSON *ltrain = levels ? jobj(file, levels, "levels", "train", &ok) : NULL;
    if (lops)
        r->lv_ops = dup_or_null(jstr(file, lops, "levels.ops", "verdict", 0, &ok));
    if (ltrain)
        r->lv_train = dup_or_null(jstr(file, ltrain, "levels.train", "verdict", 0, &ok));
    if (!ok)
        goto out;
    if (strcmp(r->verdict, "PASS") && strcmp(r->verdict, "FAIL")) {
        ok = 0;
        bad(file, "verdict", "expected \"PASS\" or \"FAIL\", got \"%s\"", r->verdict);
        goto out;
    }
    /* the train level's profile: its checkpoints */
    const cJSON *profs = cJSON_GetObjectItemCaseSensitive(ltrain, "profiles");
    if (!cJSON_IsArray(profs)) {
        ok = 0;
        bad(file, "levels.train.profiles", "%s", profs ? "expected an array" : "missing (an array is required)");
        goto out;
    }
    const cJSON *p = profs->child; /* the matrix certifies one profile (mlp13k) */
    if (p) {
        if (!cJSON_IsObject(p)) {
            ok = 0;
            bad(file, "levels.train.profiles[0]", "expected an object");
            goto out;
        }
        const cJSON *fd = cJSON_GetObjectItemCaseSensitive(p, "first_differing_step");
        if (fd && (!cJSON_IsNumber(fd) || fd->valuedouble < 0)) {
            ok = 0;
            bad(file, "levels.train.profiles[0].first_differing_step", "expected a step number");
            goto out;
        }
        if (fd)
            r->first_diff = (int)fd->valuedouble;
        const char *prob = jstr(file, p, "levels.train.profiles[0]", "problem", 1, &ok);
        r->train_problem = dup_or_null(prob);
        const cJSON *cks = cJSON_GetObjectItemCaseSensitive(p, "checkpoints");
        if (!cJSON_IsArray(cks)) {
            ok = 0;
            bad(file, "levels.train.profiles[0].checkpoints",
                "%s (a receipt of isotrain-conform 1.0.0 with the host matrix's checkpoint list is needed)",
                cks ? "expected an array" : "missing");
            goto out;
        }
        size_t k = 0;
        for (const cJSON *c = cks->child; c && ok; c = c->next, k++) {
            char field[96];
            snprintf(field, sizeof field, "levels.train.profiles[0].checkpoints[%zu]", k);
            const cJSON *st = cJSON_GetObjectItemCaseSensitive(c, "step");
            if (!cJSON_IsObject(c) || !cJSON_IsNumber(st) || st->valuedouble < 0 || st->valuedouble > 4e9) {
                ok = 0;
                bad(file, field, "expected an object with a step number");
                break;
            }
            if (k == MAX_CK) {
                ok = 0;
                bad(file, field, "more than %d checkpoints", MAX_CK);
                break;
            }
            const char *sha = jstr(file, c, field, "sha256", 1, &ok);
            if (!ok)
                break;
            if (sha && (strlen(sha) != 64 || !is_lower_hex(sha, 64))) {
                ok = 0;
                bad(file, NULL, "%s.sha256: expected 64 lowercase hex digits, got \"%s\"", field, sha);
                break;
            }
            const cJSON *same = cJSON_GetObjectItemCaseSensitive(c, "matches_vectors");
            r->ck_step[k] = (uint32_t)st->valuedouble;
            snprintf(r->ck_sha[k], sizeof r->ck_sha[k], "%s", sha ? sha : "");
            r->ck_same[k] = cJSON_IsTrue(same);
            r->n_ck = k + 1;
        }
        if (!ok)
            goto out;
    }
    /* what the IUT's own `info` reported from inside the (emulated) host */
    const cJSON *iut = jobj(file, j, "", "iut", &ok);
    const cJSON *self = iut ? jobj(file, iut, "iut", "self_report", &ok) : NULL;
    if (self) {
        r->info_status = dup_or_null(jstr(file, self, "iut.self_report", "status", 1, &ok));
        const cJSON *vals = cJSON_GetObjectItemCaseSensitive(self, "values");
        if (cJSON_IsObject(vals)) {
            int quiet = 1; /* optional keys: an IUT may have no info verb */
            const char *v;
            if ((v = jstr(file, vals, "", "isa", 1, &quiet)) != NULL)
                r->info_isa = xstrdup(v);
            quiet = 0;
            if ((v = jstr(file, vals, "", "endianness", 1, &quiet)) != NULL)
                r->info_end = xstrdup(v);
            quiet = 0;
            if ((v = jstr(file, vals, "", "cpu_model", 1, &quiet)) != NULL)
                r->info_model = xstrdup(v);
            quiet = 0;
            if ((v = jstr(file, vals, "", "cpu_features", 1, &quiet)) != NULL)
                r->info_features = xstrdup(v);
        }
    }
    const cJSON *emu = cJSON_GetObjectItemCaseSensitive(j, "emulator");
    if (cJSON_IsObject(emu)) {
        r->emu_name = dup_or_null(jstr(file, emu, "emulator", "name", 1, &ok));
        r->emu_cpu = dup_or_null(jstr(file, emu, "emulator", "cpu", 1, &ok));
    } else if (emu && !cJSON_IsNull(emu)) {
        ok = 0;
        bad(file, "emulator", "expected an object or null");
    }
    const cJSON *w = cJSON_GetObjectItemCaseSensitive(j, "emulator_warnings");
    if (w && !cJSON_IsArray(w)) {
        ok = 0;
        bad(file, "emulator_warnings", "expected an array of strings");
    } else if (w) {
        r->warn = xcalloc((size_t)cJSON_GetArraySize(w) + 1, sizeof *r->warn);
        for (const cJSON *e = w->child; e; e = e->next)
            if (cJSON_IsString(e))
                r->warn[r->n_warn++] = xstrdup(e->valuestring);
    }
    const cJSON *tm = cJSON_GetObjectItemCaseSensitive(j, "timings");
    const cJSON *tot = tm ? cJSON_GetObjectItemCaseSensitive(tm, "total") : NULL;
    r->seconds = cJSON_IsNumber(tot) ? tot->valuedouble : -1;
out:
    cJSON_Delete(j);
    return ok ? 0 : -1;
}

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
static char *tcg_feature(const char *warning)
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

static void add(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add(sbuf *b, const char *fmt, ...)
{
    if (b->len)
        sbuf_adds(b, "; ");
    va_list ap;
    va_start(ap, fmt);
    sbuf_vprintf(b, fmt, ap);
    va_end(ap);
}

static void check_host(const mhost *h, const mreceipt *r, sbuf *out)
{
    /* the emulator and -cpu the receipt names */
    if (!h->emulator && r->emu_name)
        add(out, "runs under %s, the hosts file says native", r->emu_name);
    if (h->emulator && (!r->emu_name || strcmp(r->emu_name, h->emulator) != 0))
        add(out, "emulator %s, the hosts file says %s", r->emu_name ? r->emu_name : "(none)", h->emulator);
    if (h->cpu && (!r->emu_cpu || strcmp(r->emu_cpu, h->cpu) != 0))
        add(out, "-cpu %s, the hosts file says %s (always pass -cpu)", r->emu_cpu ? r->emu_cpu : "(none)", h->cpu);
    /* what the host reported from inside */
    if (!r->info_features && !r->info_isa)
        add(out, "the IUT's info reported nothing (status %s): its features cannot be verified",
            r->info_status ? r->info_status : "none");
    else {
        if (r->info_isa && strcmp(r->info_isa, h->isa) != 0)
            add(out, "info reports isa=%s, the hosts file says %s", r->info_isa, h->isa);
        if (r->info_end && strcmp(r->info_end, h->endianness) != 0)
            add(out, "info reports endianness=%s, the hosts file says %s", r->info_end, h->endianness);
        for (size_t i = 0; i < h->n_req; i++) {
            int s = feature_state(r->info_features, h->req[i]);
            if (s != 1)
                add(out, "required feature %s %s (cpu_features: %s)", h->req[i], s ? "cannot be read" : "is not reported",
                    r->info_features ? r->info_features : "none");
        }
        for (size_t i = 0; i < h->n_abs; i++) {
            int s = feature_state(r->info_features, h->abs[i]);
            if (s != 0)
                add(out, "feature %s must be absent but %s (cpu_features: %s)", h->abs[i],
                    s > 0 ? "is reported" : "cannot be read", r->info_features ? r->info_features : "none");
        }
    }
    /* QEMU could not provide a feature this host is meant to have */
    for (size_t i = 0; i < r->n_warn; i++) {
        char *f = tcg_feature(r->warn[i]);
        if (!f)
            continue;
        for (size_t k = 0; k < h->n_req; k++) {
            size_t n = strcspn(h->req[k], "@");
            if (strlen(f) == n && !strncmp(f, h->req[k], n))
                add(out, "QEMU cannot provide required feature %s: \"%s\"", f, r->warn[i]);
        }
        free(f);
    }
}

/* ---- judging -------------------------------------------------------------- */

static int passed(const mreceipt *r)
{
    return !strcmp(r->verdict, "PASS") && !strcmp(r->lv_ops, "PASS") && !strcmp(r->lv_train, "PASS");
}

static const char *status_text(mstatus s)
{
    switch (s) {
    case ST_PASS: return "PASS";
    case ST_XFAIL: return "expected-fail";
    case ST_FAIL: return "FAIL";
    case ST_XPASS: return "FAIL (negative control passed)";
    case ST_XFAIL_OTHER: return "FAIL (negative control failed otherwise)";
    case ST_BUILD_FAILED: return "build failed";
    case ST_MISSING: return "no receipt";
    }
    return "?";
}

static int row_ok(const mrow *w) { return (w->st == ST_PASS || w->st == ST_XFAIL) && !w->host_bad.len; }

static void judge(mrow *w)
{
    const mhost *h = w->h;
    const mreceipt *r = w->r;
    if (!r) {
        w->st = ST_MISSING;
        add(&w->why, "no receipt names this host (matrix_host \"%s\")", h->name);
        return;
    }
    if (r->build_failed) {
        w->st = ST_BUILD_FAILED;
        add(&w->why, "the build %s failed%s%s", h->build, r->build_log ? ": see " : "", r->build_log ? r->build_log : "");
        if (h->xfail)
            add(&w->why, "so the negative control never ran");
        return;
    }
    check_host(h, r, &w->host_bad);
    int ok = passed(r);
    if (!h->xfail) {
        w->st = ok ? ST_PASS : ST_FAIL;
        if (!ok) {
            add(&w->why, "verdict %s (ops %s, train %s)", r->verdict, r->lv_ops, r->lv_train);
            if (r->first_diff >= 0)
                add(&w->why, "first differing step %d", r->first_diff);
            else if (r->train_problem)
                add(&w->why, "%s", r->train_problem);
        }
        return;
    }
    if (ok) {
        w->st = ST_XPASS;
        add(&w->why, "the negative control passed: the matrix cannot see the defect it stands for");
    } else if (r->first_diff >= 0) {
        w->st = ST_XFAIL;
        add(&w->why, "failed as expected: first differing step %d", r->first_diff);
    } else {
        w->st = ST_XFAIL_OTHER;
        add(&w->why, "failed, but not by a differing checkpoint (verdict %s, ops %s, train %s%s%s)", r->verdict,
            r->lv_ops, r->lv_train, r->train_problem ? ": " : "", r->train_problem ? r->train_problem : "");
    }
}

/* ---- the table ------------------------------------------------------------ */

typedef struct {
    uint32_t step[MAX_CK];
    size_t n;
} columns;

static void columns_of(const mrow *rows, size_t n, columns *c)
{
    c->n = 0;
    for (size_t i = 0; i < n; i++) {
        const mreceipt *r = rows[i].r;
        if (!r)
            continue;
        for (size_t k = 0; k < r->n_ck; k++) {
            size_t j = 0;
            while (j < c->n && c->step[j] != r->ck_step[k])
                j++;
            if (j == c->n && c->n < MAX_CK) {
                size_t at = c->n++;
                while (at > 0 && c->step[at - 1] > r->ck_step[k]) {
                    c->step[at] = c->step[at - 1];
                    at--;
                }
                c->step[at] = r->ck_step[k];
            }
        }
    }
}

/* The receipt's checkpoint at step s, or -1. */
static int ck_index(const mreceipt *r, uint32_t s)
{
    if (!r || r->build_failed)
        return -1;
    for (size_t k = 0; k < r->n_ck; k++)
        if (r->ck_step[k] == s)
            return (int)k;
    return -1;
}

/* Every host expected to pass has this step's checkpoint, all identical and
 * equal to the vectors'. Returns 1 agree, 0 not; *count hosts compared. */
static int column_agrees(const mrow *rows, size_t n, uint32_t s, size_t *count)
{
    const char *first = NULL;
    int agree = 1;
    *count = 0;
    for (size_t i = 0; i < n; i++) {
        if (rows[i].h->xfail)
            continue;
        int k = ck_index(rows[i].r, s);
        if (k < 0 || !rows[i].r->ck_sha[k][0] || !rows[i].r->ck_same[k]) {
            agree = 0;
            continue;
        }
        (*count)++;
        if (!first)
            first = rows[i].r->ck_sha[k];
        else if (strcmp(first, rows[i].r->ck_sha[k]) != 0)
            agree = 0;
    }
    return agree && *count > 0;
}

static void cell(const mrow *w, uint32_t s, char *buf, size_t cap)
{
    int k = ck_index(w->r, s);
    if (k < 0 || !w->r->ck_sha[k][0])
        snprintf(buf, cap, "-");
    else
        snprintf(buf, cap, "%.8s%s", w->r->ck_sha[k], w->r->ck_same[k] ? "" : "*");
}

static const char *where(const mhost *h, char *buf, size_t cap)
{
    if (h->emulator)
        snprintf(buf, cap, "%s -cpu %s", h->emulator, h->cpu);
    else
        snprintf(buf, cap, "native");
    return buf;
}

static void print_text(FILE *o, const mrow *rows, size_t n, const columns *c)
{
    char b[128], wb[96];
    int wh = 9, ww = 8; /* "all agree", "runs as" */
    for (size_t i = 0; i < n; i++) {
        int l = (int)strlen(rows[i].h->name);
        wh = l > wh ? l : wh;
        l = (int)strlen(where(rows[i].h, wb, sizeof wb));
        ww = l > ww ? l : ww;
    }
    fprintf(o, "%-*s  %-*s  %-13s  %-22s", wh, "host", ww, "runs as", "expected", "result");
    for (size_t j = 0; j < c->n; j++) {
        snprintf(b, sizeof b, "step %u", (unsigned)c->step[j]);
        fprintf(o, "  %-9s", b);
    }
    fprintf(o, "  %8s\n", "time");
    for (size_t i = 0; i < n; i++) {
        const mrow *w = &rows[i];
        char res[64];
        if (w->host_bad.len)
            snprintf(res, sizeof res, "HOST MISMATCH");
        else if (w->st == ST_XFAIL)
            snprintf(res, sizeof res, "expected-fail (step %d)", w->r->first_diff);
        else if (w->st == ST_XPASS || w->st == ST_XFAIL_OTHER)
            snprintf(res, sizeof res, "FAIL (control)"); /* explained below the table */
        else
            snprintf(res, sizeof res, "%s", status_text(w->st));
        fprintf(o, "%-*s  %-*s  %-13s  %-22s", wh, w->h->name, ww, where(w->h, wb, sizeof wb), w->h->expected, res);
        for (size_t j = 0; j < c->n; j++) {
            cell(w, c->step[j], b, sizeof b);
            fprintf(o, "  %-9s", b);
        }
        if (w->r && !w->r->build_failed && w->r->seconds >= 0)
            fprintf(o, "  %7.1fs\n", w->r->seconds);
        else
            fprintf(o, "  %8s\n", "-");
    }
    fprintf(o, "%-*s  %-*s  %-13s  %-22s", wh, "all agree", ww, "(hosts expected to pass)", "", "");
    for (size_t j = 0; j < c->n; j++) {
        size_t cnt;
        int ag = column_agrees(rows, n, c->step[j], &cnt);
        snprintf(b, sizeof b, ag ? "yes (%zu)" : "NO", cnt);
        fprintf(o, "  %-9s", b);
    }
    fprintf(o, "\n(cells: the first 8 hex digits of each checkpoint's SHA-256; * = differs from the vectors' digest; "
               "- = no checkpoint)\n");
}

static void md_escape(sbuf *b, const char *s)
{
    for (; *s; s++) {
        if (*s == '|')
            sbuf_adds(b, "\\|");
        else if (*s == '\n')
            sbuf_adds(b, " ");
        else
            sbuf_addc(b, *s);
    }
}

static void render_markdown(sbuf *m, const mrow *rows, size_t n, const columns *c, int overall_ok, const char *summary)
{
    char b[128];
    sbuf_printf(m, "## isotrain host matrix: %s\n\n", overall_ok ? "OK" : "FAILED");
    sbuf_adds(m, "| host | runs as | expected | result |");
    for (size_t j = 0; j < c->n; j++)
        sbuf_printf(m, " step %u |", (unsigned)c->step[j]);
    sbuf_adds(m, " time |\n|---|---|---|---|");
    for (size_t j = 0; j < c->n; j++)
        sbuf_adds(m, "---|");
    sbuf_adds(m, "---:|\n");
    for (size_t i = 0; i < n; i++) {
        const mrow *w = &rows[i];
        char wb[96];
        const char *res = w->host_bad.len ? "❌ host mismatch"
                          : w->st == ST_PASS  ? "✅ pass"
                          : w->st == ST_XFAIL ? "➖ expected-fail"
                                              : NULL;
        sbuf_printf(m, "| %s | `%s` | %s | ", w->h->name, where(w->h, wb, sizeof wb), w->h->expected);
        if (res)
            sbuf_adds(m, res);
        else
            sbuf_printf(m, "❌ %s", status_text(w->st));
        if (w->st == ST_XFAIL && w->r)
            sbuf_printf(m, " (step %d)", w->r->first_diff);
        sbuf_adds(m, " |");
        for (size_t j = 0; j < c->n; j++) {
            cell(w, c->step[j], b, sizeof b);
            sbuf_printf(m, " `%s` |", b);
        }
        if (w->r && !w->r->build_failed && w->r->seconds >= 0)
            sbuf_printf(m, " %.1f s |\n", w->r->seconds);
        else
            sbuf_adds(m, " - |\n");
    }
    sbuf_adds(m, "| **all agree** | hosts expected to pass | | |");
    for (size_t j = 0; j < c->n; j++) {
        size_t cnt;
        int ag = column_agrees(rows, n, c->step[j], &cnt);
        if (ag)
            sbuf_printf(m, " **yes** (%zu) |", cnt);
        else
            sbuf_adds(m, " **NO** |");
    }
    sbuf_adds(m, " |\n\n`*` differs from the vectors' digest; `-` no checkpoint. Cells are the first 8 hex digits of the "
                 "SHA-256 of the checkpoint bytes (spec §8).\n\n");
    sbuf_adds(m, "| host | stands for | reported from inside (`isotrain info`) | emulator warnings | notes |\n|---|---|---|---|---|\n");
    for (size_t i = 0; i < n; i++) {
        const mrow *w = &rows[i];
        sbuf_printf(m, "| %s | ", w->h->name);
        md_escape(m, w->h->stands_for);
        sbuf_adds(m, " | ");
        if (w->r && !w->r->build_failed) {
            sbuf_printf(m, "isa=%s endianness=%s cpu_model=", w->r->info_isa ? w->r->info_isa : "?",
                        w->r->info_end ? w->r->info_end : "?");
            md_escape(m, w->r->info_model ? w->r->info_model : "?");
            sbuf_adds(m, " cpu_features=");
            md_escape(m, w->r->info_features ? w->r->info_features : "?");
        }
        sbuf_adds(m, " | ");
        if (w->r)
            for (size_t k = 0; k < w->r->n_warn; k++) {
                char *f = tcg_feature(w->r->warn[k]);
                if (k)
                    sbuf_adds(m, ", ");
                if (f)
                    sbuf_printf(m, "TCG lacks %s", f);
                else
                    md_escape(m, w->r->warn[k]);
                free(f);
            }
        sbuf_adds(m, " | ");
        md_escape(m, w->why.p ? w->why.p : "");
        if (w->host_bad.len) {
            sbuf_adds(m, w->why.len ? "; " : "");
            sbuf_adds(m, "host mismatch: ");
            md_escape(m, w->host_bad.p);
        }
        sbuf_adds(m, " |\n");
    }
    sbuf_printf(m, "\n%s\n", summary);
}

/* ---- --against: the published receipts ------------------------------------ */

static int load_dir(const char *dir, mreceipt **out, size_t *n)
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
        if (rc == 0 && receipt_load(names[i], &(*out)[*n]) != 0)
            rc = -1;
        (*n)++;
        free(names[i]);
    }
    free(names);
    return rc;
}

static const mreceipt *find_receipt(const mreceipt *rs, size_t n, const char *host)
{
    for (size_t i = 0; i < n; i++)
        if (rs[i].host && !strcmp(rs[i].host, host))
            return &rs[i];
    return NULL;
}

static const char *verdict_class(const mreceipt *r)
{
    return !r ? "no receipt" : r->build_failed ? "build failed" : passed(r) ? "PASS" : "FAIL";
}

/* Same verdict and the same digests at every checkpoint step, per host;
 * timings, dates and host details are not compared. Returns the number of
 * disagreements, each printed. */
static size_t compare_against(FILE *o, const char *dir, const mhost *hs, size_t nh, const mreceipt *cur, size_t nc,
                              const mreceipt *pub, size_t np)
{
    size_t diffs = 0;
    for (size_t i = 0; i < nh; i++) {
        const mreceipt *a = find_receipt(pub, np, hs[i].name), *b = find_receipt(cur, nc, hs[i].name);
        const char *va = verdict_class(a), *vb = verdict_class(b);
        if (strcmp(va, vb) != 0) {
            fprintf(o, "against %s: %s: verdict published %s, now %s\n", dir, hs[i].name, va, vb);
            diffs++;
        }
        if (!a || !b || a->build_failed || b->build_failed)
            continue;
        if (a->first_diff != b->first_diff) {
            fprintf(o, "against %s: %s: first differing step published %d, now %d (-1: none)\n", dir, hs[i].name,
                    a->first_diff, b->first_diff);
            diffs++;
        }
        for (size_t k = 0; k < a->n_ck; k++) {
            int j = ck_index(b, a->ck_step[k]);
            const char *sb = j >= 0 ? b->ck_sha[j] : "(no checkpoint)";
            if (strcmp(a->ck_sha[k], sb) != 0) {
                fprintf(o, "against %s: %s: step %u: published %s, now %s\n", dir, hs[i].name, (unsigned)a->ck_step[k],
                        a->ck_sha[k][0] ? a->ck_sha[k] : "(no checkpoint)", sb[0] ? sb : "(no checkpoint)");
                diffs++;
            }
        }
        for (size_t k = 0; k < b->n_ck; k++)
            if (ck_index(a, b->ck_step[k]) < 0) {
                fprintf(o, "against %s: %s: step %u: not published, now %s\n", dir, hs[i].name, (unsigned)b->ck_step[k],
                        b->ck_sha[k][0] ? b->ck_sha[k] : "(no checkpoint)");
                diffs++;
            }
    }
    for (size_t i = 0; i < np; i++) {
        int known = 0;
        for (size_t k = 0; k < nh && !known; k++)
            known = pub[i].host && !strcmp(pub[i].host, hs[k].name);
        if (!known) {
            fprintf(o, "against %s: %s: a published receipt for host '%s', which the hosts file does not list\n", dir,
                    pub[i].path, pub[i].host ? pub[i].host : "?");
            diffs++;
        }
    }
    return diffs;
}

/* ---- the command ---------------------------------------------------------- */

static void list_hosts(const mhost *hs, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const mhost *h = &hs[i];
        printf("%s\t%s\t%s\t%g\t", h->name, h->build, h->expected, h->slowdown);
        if (h->emulator)
            printf("%s -cpu %s ", h->emulator, h->cpu);
        printf("build/cross/%s/isotrain\n", h->build);
    }
}

int matrix_command(const conform_args *a)
{
    mhost *hs;
    size_t nh;
    if (hosts_load(a->hosts, &hs, &nh) != 0)
        return 2;
    if (a->list) {
        list_hosts(hs, nh);
        hosts_free(hs, nh);
        return 0;
    }
    int rc = 0;
    size_t nr = a->n_receipts, np = 0;
    mreceipt *rs = xcalloc(nr + 1, sizeof *rs), *pub = NULL;
    mrow *rows = xcalloc(nh, sizeof *rows);
    for (size_t i = 0; i < nr && rc == 0; i++)
        if (receipt_load(a->receipts[i], &rs[i]) != 0)
            rc = 2;
    if (rc == 0 && a->against && load_dir(a->against, &pub, &np) != 0)
        rc = 2;
    int compare = a->against && nr > 0;
    if (rc == 0 && !nr) { /* --against alone: the table of the published receipts */
        free(rs);
        rs = pub, nr = np;
        pub = NULL, np = 0;
    }
    /* every receipt names a listed host, once */
    for (size_t i = 0; i < nr && rc == 0; i++) {
        int known = 0;
        for (size_t k = 0; k < nh; k++)
            known |= !strcmp(rs[i].host, hs[k].name);
        if (!known) {
            bad(rs[i].path, "matrix_host", "host '%s' is not in %s", rs[i].host, a->hosts);
            rc = 2;
        }
        for (size_t k = 0; k < i && rc == 0; k++)
            if (!strcmp(rs[i].host, rs[k].host)) {
                bad(rs[i].path, "matrix_host", "host '%s' already has a receipt (%s)", rs[i].host, rs[k].path);
                rc = 2;
            }
    }
    if (rc != 0)
        goto done;

    size_t n_ok = 0, n_pass = 0, n_xfail = 0;
    for (size_t i = 0; i < nh; i++) {
        mrow *w = &rows[i];
        w->h = &hs[i];
        sbuf_init(&w->why);
        sbuf_init(&w->host_bad);
        w->r = find_receipt(rs, nr, hs[i].name);
        judge(w);
        n_ok += row_ok(w);
        n_pass += row_ok(w) && w->st == ST_PASS;
        n_xfail += row_ok(w) && w->st == ST_XFAIL;
    }
    columns c;
    columns_of(rows, nh, &c);
    int all_agree = 1;
    for (size_t j = 0; j < c.n; j++) {
        size_t cnt;
        all_agree &= column_agrees(rows, nh, c.step[j], &cnt);
    }
    int ok = n_ok == nh && all_agree;
    print_text(stdout, rows, nh, &c);
    /* every host that is not simply as expected, and why */
    for (size_t i = 0; i < nh; i++) {
        const mrow *w = &rows[i];
        if (w->why.len)
            printf("%s: %s: %s\n", w->h->name, row_ok(w) ? "ok" : status_text(w->st), w->why.p);
        if (w->host_bad.len)
            printf("%s: HOST MISMATCH: the host is not what the hosts file says: %s\n", w->h->name, w->host_bad.p);
        if (w->r)
            for (size_t k = 0; k < w->r->n_warn; k++)
                printf("%s: emulator warning (recorded): %s\n", w->h->name, w->r->warn[k]);
    }
    size_t d = compare ? compare_against(stdout, a->against, hs, nh, rs, nr, pub, np) : 0;
    if (compare && d) {
        printf("against %s: %zu disagreement%s with the published receipts\n", a->against, d, d == 1 ? "" : "s");
        ok = 0;
    } else if (compare)
        printf("against %s: agrees (verdicts, first differing steps and checkpoint digests of all %zu hosts)\n",
               a->against, nh);
    char summary[640];
    snprintf(summary, sizeof summary,
             "matrix: %s: %zu of %zu hosts as expected (%zu passed, %zu expected failure%s failed as expected)%s%s",
             ok ? "OK" : "FAIL", n_ok, nh, n_pass, n_xfail, n_xfail == 1 ? "" : "s",
             all_agree ? "; every host expected to pass agrees with the vectors at every checkpoint"
                       : "; the hosts expected to pass do NOT all agree with the vectors",
             !compare ? "" : d ? "; DIFFERENT from the published receipts" : "; same as the published receipts");
    if (a->markdown) {
        sbuf m;
        sbuf_init(&m);
        render_markdown(&m, rows, nh, &c, ok, summary);
        char err[512];
        make_parent_dirs(a->markdown);
        if (write_file(a->markdown, m.p, m.len, err, sizeof err) != 0) {
            fprintf(stderr, "isotrain-conform matrix: %s\n", err);
            ok = 0;
        }
        sbuf_free(&m);
    }
    printf("%s\n", summary);
    rc = ok ? 0 : 1;
    for (size_t i = 0; i < nh; i++) {
        sbuf_free(&rows[i].why);
        sbuf_free(&rows[i].host_bad);
    }
done:
    for (size_t i = 0; i < nr; i++)
        receipt_free(&rs[i]);
    for (size_t i = 0; i < np; i++)
        receipt_free(&pub[i]);
    free(rs);
    free(pub);
    free(rows);
    hosts_free(hs, nh);
    return rc;
}
