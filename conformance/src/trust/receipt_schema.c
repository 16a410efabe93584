/* receipt_schema.c — the strict reader's field check and the JSON Schema,
 * both from THE field table (trust/receipt_fields.c). */
#include "trust/receipt_schema.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/json_checked.h"

enum { PATH_CAP = 512 };

typedef struct {
    const char *file;
    problems *pr;
    size_t max, n;
    unsigned how;
} ck;

static const rs_field *field_at(const char *path)
{
    for (size_t i = 0; i < receipt_n_fields; i++)
        if (!strcmp(receipt_fields[i].path, path))
            return &receipt_fields[i];
    return NULL;
}

/* The member name of row path when it is a member of the object at sp
 * (not an array's element, not a map's value), else NULL. */
static const char *member_of(const char *path, const char *sp)
{
    size_t n = strlen(sp), len = strlen(path);
    if (len >= 2 && !strcmp(path + len - 2, "[]"))
        return NULL;
    const char *key = path;
    if (n) {
        if (strncmp(path, sp, n) != 0 || path[n] != '.')
            return NULL;
        key = path + n + 1;
    }
    return strchr(key, '.') || !strcmp(key, "*") ? NULL : key;
}

int rs_over_cap(const rs_field *f, const cJSON *v)
{
    size_t n = 0;
    for (const cJSON *e = v->child; e && n <= f->max; e = e->next)
        n++;
    return n > f->max;
}

static void bad(ck *c, const char *dp, const cJSON *v, const char *what)
{
    if (c->n++ >= c->max)
        return;
    char got[96];
    jx_describe(v, got, sizeof got);
    problems_add(c->pr, "%s: %s: expected %s, got %s", c->file, dp, what, got);
}

static void check_value(ck *c, const rs_field *f, const cJSON *v, const char *sp, const char *dp);

static void join(char *out, const char *base, const char *sep, const char *key)
{
    snprintf(out, PATH_CAP, "%s%s%s", base, base[0] ? sep : "", key);
}

static void check_object(ck *c, const cJSON *o, const char *sp, const char *dp)
{
    char csp[PATH_CAP], cdp[PATH_CAP];
    const cJSON *m;
    cJSON_ArrayForEach(m, o)
    {
        join(csp, sp, ".", m->string);
        join(cdp, dp, ".", m->string);
        const rs_field *f = member_of(csp, sp) ? field_at(csp) : NULL;
        if (!f) {
            if (c->n++ < c->max)
                problems_add(c->pr, "%s: %s: unknown field (%s has no such member; spec/receipt.schema.json)",
                             c->file, cdp, RECEIPT_SCHEMA_NAME);
        } else
            check_value(c, f, m, csp, cdp);
    }
    for (size_t i = 0; i < receipt_n_fields; i++) {
        const char *key = member_of(receipt_fields[i].path, sp);
        if (key && (c->how & RS_CHECK_PRESENCE) && !(receipt_fields[i].flags & RS_OPT) &&
            !cJSON_GetObjectItemCaseSensitive(o, key)) {
            join(cdp, dp, ".", key);
            if (c->n++ < c->max)
                problems_add(c->pr, "%s: %s: missing (a required member of %s)", c->file, cdp, RECEIPT_SCHEMA_NAME);
        }
    }
}

/* An array's elements or a map's values, each against row sp+suffix. */
static void check_items(ck *c, const cJSON *o, const char *sp, const char *dp, int is_map)
{
    char esp[PATH_CAP], edp[PATH_CAP];
    snprintf(esp, sizeof esp, "%s%s", sp, is_map ? ".*" : "[]");
    const rs_field *e = field_at(esp);
    size_t i = 0;
    const cJSON *m;
    cJSON_ArrayForEach(m, o)
    {
        if (is_map)
            join(edp, dp, ".", m->string);
        else
            snprintf(edp, sizeof edp, "%s[%zu]", dp, i++);
        if (e && c->n < c->max)
            check_value(c, e, m, esp, edp);
    }
}

static void check_value(ck *c, const rs_field *f, const cJSON *v, const char *sp, const char *dp)
{
    uint64_t u;
    char what[64];
    if (cJSON_IsNull(v)) {
        if (!(f->flags & RS_NULL))
            bad(c, dp, v, "a value, not null");
        return;
    }
    switch (f->kind) {
    case RS_STR:
        if (!cJSON_IsString(v))
            bad(c, dp, v, "a string");
        else if (!strcmp(sp, "schema") && strcmp(v->valuestring, RECEIPT_SCHEMA_NAME) != 0)
            bad(c, dp, v, "\"" RECEIPT_SCHEMA_NAME "\"");
        break;
    case RS_INT:
        snprintf(what, sizeof what, "a whole number in [0, %llu]", (unsigned long long)f->max);
        if (jx_whole(v, f->max, &u) != 0) /* core/json_checked.h: the one reading of a count */
            bad(c, dp, v, what);
        break;
    case RS_NUM:
        if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) || v->valuedouble < 0)
            bad(c, dp, v, "a finite number >= 0");
        break;
    case RS_BOOL:
        if (!cJSON_IsBool(v))
            bad(c, dp, v, "true or false");
        break;
    case RS_OBJ:
        if (!cJSON_IsObject(v))
            bad(c, dp, v, "an object");
        else if (!(f->flags & RS_OPEN))
            check_object(c, v, sp, dp);
        break;
    case RS_ARR:
    case RS_MAP:
        if (f->kind == RS_ARR ? !cJSON_IsArray(v) : !cJSON_IsObject(v))
            bad(c, dp, v, f->kind == RS_ARR ? "an array" : "an object");
        else if (rs_over_cap(f, v)) {
            if (c->n++ < c->max)
                problems_add(c->pr, "%s: %s: %d %s, over the cap of %llu the field table sets (%s)", c->file, dp,
                             cJSON_GetArraySize(v), f->kind == RS_ARR ? "elements" : "members",
                             (unsigned long long)f->max, RECEIPT_SCHEMA_NAME);
        } else
            check_items(c, v, sp, dp, f->kind == RS_MAP);
        break;
    }
}

int receipt_schema_check(const char *file, const cJSON *r, unsigned how, problems *pr, size_t max_problems)
{
    ck c = {file, pr, max_problems, 0, how};
    if (!cJSON_IsObject(r)) {
        problems_add(pr, "%s: the receipt: expected an object", file);
        return -1;
    }
    check_object(&c, r, "", "");
    if (c.n > c.max)
        problems_add(pr, "%s: ... and %zu more fields not as %s says", file, c.n - c.max, RECEIPT_SCHEMA_NAME);
    return c.n ? -1 : 0;
}

static cJSON *schema_of(const rs_field *f);

static cJSON *type_of(const rs_field *f)
{
    static const char *const names[] = {"string", "integer", "number", "boolean", "object", "array", "object"};
    if (!(f->flags & RS_NULL))
        return cJSON_CreateString(names[f->kind]);
    const char *both[2] = {names[f->kind], "null"};
    return cJSON_CreateStringArray(both, 2);
}

static cJSON *object_schema(const rs_field *f, cJSON *s)
{
    const char *sp = f ? f->path : "";
    cJSON *props = cJSON_AddObjectToObject(s, "properties");
    cJSON *req = cJSON_CreateArray();
    for (size_t i = 0; i < receipt_n_fields; i++) {
        const char *key = member_of(receipt_fields[i].path, sp);
        if (!key)
            continue;
        cJSON_AddItemToObject(props, key, schema_of(&receipt_fields[i]));
        if (!(receipt_fields[i].flags & RS_OPT))
            cJSON_AddItemToArray(req, cJSON_CreateString(key));
    }
    cJSON_AddItemToObject(s, "required", req);
    cJSON_AddFalseToObject(s, "additionalProperties");
    return s;
}

static cJSON *schema_of(const rs_field *f)
{
    cJSON *s = cJSON_CreateObject();
    cJSON_AddItemToObject(s, "type", type_of(f));
    char sub[PATH_CAP];
    switch (f->kind) {
    case RS_STR:
        if (!strcmp(f->path, "schema"))
            cJSON_AddStringToObject(s, "const", RECEIPT_SCHEMA_NAME);
        break;
    case RS_INT:
        cJSON_AddNumberToObject(s, "minimum", 0);
        cJSON_AddNumberToObject(s, "maximum", (double)f->max);
        break;
    case RS_NUM:
        cJSON_AddNumberToObject(s, "minimum", 0);
        break;
    case RS_BOOL:
        break;
    case RS_OBJ:
        if (!(f->flags & RS_OPEN))
            object_schema(f, s);
        break;
    case RS_ARR:
    case RS_MAP:
        cJSON_AddNumberToObject(s, f->kind == RS_ARR ? "maxItems" : "maxProperties", (double)f->max);
        snprintf(sub, sizeof sub, "%s%s", f->path, f->kind == RS_ARR ? "[]" : ".*");
        cJSON_AddItemToObject(s, f->kind == RS_ARR ? "items" : "additionalProperties", schema_of(field_at(sub)));
        break;
    }
    return s;
}

cJSON *receipt_schema_json(void)
{
    cJSON *s = cJSON_CreateObject();
    cJSON_AddStringToObject(s, "$schema", "https://json-schema.org/draft/2020-12/schema");
    cJSON_AddStringToObject(s, "title", "isotrain receipt (" RECEIPT_SCHEMA_NAME ")");
    cJSON_AddStringToObject(s, "description",
                            "Generated by `isotrain-conform receipt --schema` from conformance/src/trust/"
                            "receipt_fields.c, the one table the runner's writer and strict reader use. The "
                            "receipt is the predicate's isotrainReceipt of an in-toto Statement in a DSSE envelope "
                            "(conformance/README.md, \"Receipt and JUnit\"). Do not edit by hand.");
    cJSON_AddStringToObject(s, "type", "object");
    return object_schema(NULL, s);
}
