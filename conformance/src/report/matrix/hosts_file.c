/* hosts_file.c — the hosts file (qemu/hosts.json): each host's emulator,
 * -cpu, build, expected verdict and the features it must and must not report. */
#include <cjson/cJSON.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/matrix/matrix.h"

/* ---- the hosts file ------------------------------------------------------- */

static int strv_load(const char *file, const cJSON *h, const char *path, const char *key, char ***out, size_t *n)
{
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(h, key);
    *out = NULL;
    *n = 0;
    if (!cJSON_IsArray(a))
        return mx_bad(file, NULL, "%s.%s: %s", path, key, a ? "expected an array of strings" : "missing (an array of strings is required)");
    size_t k = 0;
    *out = xcalloc((size_t)cJSON_GetArraySize(a) + 1, sizeof **out);
    for (const cJSON *e = a->child; e; e = e->next, k++) {
        if (!cJSON_IsString(e) || !e->valuestring[0])
            return mx_bad(file, NULL, "%s.%s[%zu]: expected a non-empty string", path, key, k);
        (*out)[(*n)++] = xstrdup(e->valuestring);
    }
    return 0;
}

void mx_hosts_free(mhost *hs, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        mhost *h = &hs[i];
        free(h->name), free(h->emulator), free(h->cpu), free(h->isa), free(h->endianness), free(h->os);
        free(h->stands_for), free(h->build), free(h->expected);
        mx_free_strv(h->req, h->n_req);
        mx_free_strv(h->abs, h->n_abs);
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

int mx_hosts_load(const char *file, mhost **out, size_t *n_out)
{
    *out = NULL;
    *n_out = 0;
    cJSON *j = mx_parse_file(file, HOSTS_CAP);
    if (!j)
        return -1;
    int ok = 1;
    const cJSON *arr = cJSON_GetObjectItemCaseSensitive(j, "hosts");
    if (!cJSON_IsArray(arr) || !cJSON_GetArraySize(arr)) {
        mx_bad(file, "hosts", "expected a non-empty array of hosts");
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
            mx_bad(file, path, "expected an object");
            break;
        }
        h->name = mx_dup(mx_jstr(file, e, path, "name", 0, &ok));
        h->emulator = mx_dup(mx_jstr(file, e, path, "emulator", 1, &ok));
        h->cpu = mx_dup(mx_jstr(file, e, path, "cpu", 1, &ok));
        h->isa = mx_dup(mx_jstr(file, e, path, "isa", 0, &ok));
        h->endianness = mx_dup(mx_jstr(file, e, path, "endianness", 0, &ok));
        h->stands_for = mx_dup(mx_jstr(file, e, path, "stands_for", 0, &ok));
        h->build = mx_dup(mx_jstr(file, e, path, "build", 0, &ok));
        h->expected = mx_dup(mx_jstr(file, e, path, "expected", 0, &ok));
        if (!ok)
            break;
        const cJSON *sd = cJSON_GetObjectItemCaseSensitive(e, "slowdown");
        h->slowdown = 1;
        if (sd && (!cJSON_IsNumber(sd) || !(sd->valuedouble >= 1) || !(sd->valuedouble <= 1000))) {
            ok = 0; /* it multiplies every deadline: unbounded, nothing would ever time out */
            mx_bad(file, NULL, "%s.slowdown: expected a number from 1 to 1000", path);
            break;
        } else if (sd)
            h->slowdown = sd->valuedouble;
        if (!token_ok(h->name) || !token_ok(h->build)) {
            ok = 0;
            mx_bad(file, NULL, "%s: name and build are tokens of [A-Za-z0-9._-] (they name files), got '%s' and '%s'", path,
                h->name, h->build);
            break;
        }
        if (!strcmp(h->expected, "expected-fail"))
            h->xfail = 1;
        else if (strcmp(h->expected, "pass") != 0) {
            ok = 0;
            mx_bad(file, NULL, "%s.expected: expected \"pass\" or \"expected-fail\", got \"%s\"", path, h->expected);
            break;
        }
        /* QEMU user mode defaults to -cpu max (AVX2 on x86): a QEMU host
         * without -cpu would not be the host it names. Wine emulates an OS,
         * not a CPU, so it has none. */
        int qemu = h->emulator && !strncmp(h->emulator, "qemu-", 5);
        if (h->cpu ? !qemu : qemu) {
            ok = 0;
            mx_bad(file, NULL, "%s: cpu is given exactly when the emulator is qemu-* (always pass -cpu; null for native and wine)",
                   path);
            break;
        }
        /* optional: the prefix an emulated host trains in the windows matrix
         * (ci/matrix-windows.sh): on a set without windows its receipt is
         * certified to that prefix only, and that is what the file expects */
        const cJSON *ps = cJSON_GetObjectItemCaseSensitive(e, "prefix_steps");
        h->prefix_steps = -1;
        if (ps) {
            char pf[80];
            snprintf(pf, sizeof pf, "%s.prefix_steps", path);
            uint64_t v;
            if (mx_juint(file, pf, ps, 1000000, &v) != 0) {
                ok = 0;
                break;
            }
            h->prefix_steps = (long)v;
        }
        if (cJSON_GetObjectItemCaseSensitive(e, "os")) /* optional */
            h->os = mx_dup(mx_jstr(file, e, path, "os", 1, &ok));
        if (!ok)
            break;
        if (strv_load(file, e, path, "required_features", &h->req, &h->n_req) ||
            strv_load(file, e, path, "absent_features", &h->abs, &h->n_abs)) {
            ok = 0;
            break;
        }
        for (size_t k = 0; k < i && ok; k++)
            if (!strcmp(hs[k].name, h->name)) {
                ok = 0;
                mx_bad(file, NULL, "%s.name: host '%s' is listed twice", path, h->name);
            }
    }
    cJSON_Delete(j);
    if (!ok) {
        mx_hosts_free(hs, *n_out);
        *n_out = 0;
        return -1;
    }
    *out = hs;
    *n_out = n;
    return 0;
}
