/* receipt_record.c — the typed receipt filled from the field table
 * (trust/receipt_record.h). */
#include "trust/receipt_record.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"

/* Each row's parent row (-1: the root), and the first row past its
 * subtree; the table lists a parent before its members and a subtree's rows
 * together (receipt_fields.h), which the look-up below relies on. */
static int parent_of[RF_COUNT], end_of[RF_COUNT];

static int row_of_path(const char *p, size_t len, int before)
{
    for (int k = before; k-- > 0;)
        if (strlen(receipt_fields[k].path) == len && !strncmp(receipt_fields[k].path, p, len))
            return k;
    return -1;
}

static int under(int row, int top)
{
    for (int r = parent_of[row]; r >= 0; r = parent_of[r])
        if (r == top)
            return 1;
    return top < 0;
}

static void index_rows(void)
{
    static int done;
    if (done)
        return;
    for (int i = 0; i < RF_COUNT; i++) {
        const char *p = receipt_fields[i].path;
        size_t n = strlen(p);
        if (n > 2 && (!strcmp(p + n - 2, "[]") || !strcmp(p + n - 2, ".*")))
            parent_of[i] = row_of_path(p, n - 2, i); /* an element of the array or map before it */
        else {
            const char *dot = strrchr(p, '.');
            parent_of[i] = dot ? row_of_path(p, (size_t)(dot - p), i) : -1;
        }
    }
    for (int i = 0; i < RF_COUNT; i++) {
        int e = i + 1;
        while (e < RF_COUNT && under(e, i))
            e++;
        end_of[i] = e;
        /* an array's or a map's element row follows it (fill_elements reads
         * row + 1), and it has a cap (a row without one would take any length) */
        if ((receipt_fields[i].kind == RS_ARR || receipt_fields[i].kind == RS_MAP) &&
            (i + 1 >= RF_COUNT || parent_of[i + 1] != i || !receipt_fields[i].max)) {
            fprintf(stderr, "isotrain-conform: internal error: %s: its element row does not follow it, or it has no cap\n",
                    receipt_fields[i].path);
            abort();
        }
    }
    done = 1;
}

static void open_scope(rv *s, int row)
{
    s->row = row;
    s->present = 1;
    int end = row < 0 ? RF_COUNT : end_of[row];
    s->n_slots = (size_t)(end - row - 1);
    s->slot = xcalloc(s->n_slots ? s->n_slots : 1, sizeof *s->slot);
    for (size_t k = 0; k < s->n_slots; k++)
        s->slot[k].row = row + 1 + (int)k;
}

static int fill(rv *scope, rv *out, int row, const cJSON *v, const char *file, problems *pr);

/* The members of object obj (row objrow, -1 the root) into scope's slots. */
static int fill_members(rv *scope, int objrow, const cJSON *obj, const char *file, problems *pr)
{
    int end = scope->row < 0 ? RF_COUNT : end_of[scope->row];
    for (int c = objrow + 1; c < end; c++)
        if (parent_of[c] == objrow &&
            fill(scope, &scope->slot[c - scope->row - 1], c, cJSON_GetObjectItemCaseSensitive(obj, rf_key((rf_id)c)),
                 file, pr) != 0)
            return -1;
    return 0;
}

/* An array's elements or a map's values, each of row + 1. */
static int fill_elements(rv *out, int row, const cJSON *v, const char *file, problems *pr)
{
    if (rs_over_cap(&receipt_fields[row], v)) {
        if (!pr) { /* receipt_record_view: the strict reader named it */
            out->bad = 1;
            return 0;
        }
        /* each element costs a value and its scope's slots: the cap bounds a receipt's cost */
        problems_add(pr, "%s: %s: more than the cap of %llu %s the field table sets", file, receipt_fields[row].path,
                     (unsigned long long)receipt_fields[row].max,
                     receipt_fields[row].kind == RS_ARR ? "elements" : "members");
        return -1;
    }
    out->n = (size_t)cJSON_GetArraySize(v);
    out->el = xcalloc(out->n ? out->n : 1, sizeof *out->el);
    if (receipt_fields[row].kind == RS_MAP)
        out->key = xcalloc(out->n ? out->n : 1, sizeof *out->key);
    size_t i = 0;
    for (const cJSON *e = v->child; e; e = e->next, i++) {
        if (out->key)
            out->key[i] = e->string;
        if (fill(&out->el[i], &out->el[i], row + 1, e, file, pr) != 0)
            return -1;
    }
    return 0;
}

static int fill(rv *scope, rv *out, int row, const cJSON *v, const char *file, problems *pr)
{
    const rs_field *f = &receipt_fields[row];
    int element_scope = f->kind == RS_OBJ && !(f->flags & RS_OPEN) && parent_of[row] >= 0 &&
                        receipt_fields[parent_of[row]].kind == RS_ARR;
    out->row = row;
    if (element_scope && !pr)
        open_scope(out, row); /* an element that is not an object still has its (absent) fields */
    if (!v)
        return 0;
    out->present = 1;
    if (cJSON_IsNull(v)) {
        out->null = 1;
        return 0;
    }
    int ok;
    switch (f->kind) {
    case RS_STR:
        out->s = v->valuestring;
        ok = cJSON_IsString(v);
        break;
    case RS_INT:
    case RS_NUM:
        out->num = v->valuedouble;
        ok = cJSON_IsNumber(v);
        break;
    case RS_BOOL:
        out->yes = cJSON_IsTrue(v);
        ok = cJSON_IsBool(v);
        break;
    case RS_ARR:
    case RS_MAP:
        ok = f->kind == RS_ARR ? cJSON_IsArray(v) : cJSON_IsObject(v);
        if (ok)
            return fill_elements(out, row, v, file, pr);
        break;
    default: /* RS_OBJ: an array's element is a scope of its own, a member object lives in its scope */
        ok = cJSON_IsObject(v);
        if (ok && (f->flags & RS_OPEN))
            out->open = v;
        else if (ok && element_scope) {
            if (!out->slot)
                open_scope(out, row);
            return fill_members(out, row, v, file, pr);
        } else if (ok)
            return fill_members(scope, row, v, file, pr);
    }
    if (!ok && !pr) {
        out->bad = 1;
        return 0;
    }
    if (!ok)
        problems_add(pr, "%s: %s: not of the field table's kind (a receipt the strict reader did not check)", file,
                     f->path);
    return ok ? 0 : -1;
}

int receipt_record_take(receipt_record *rec, const char *file, cJSON *r, problems *pr)
{
    index_rows();
    memset(rec, 0, sizeof *rec);
    rec->doc = r;
    open_scope(&rec->top, -1);
    if (!cJSON_IsObject(r)) {
        problems_add(pr, "%s: not a JSON object (a receipt)", file);
        return -1;
    }
    return fill_members(&rec->top, -1, r, file, pr);
}

void receipt_record_view(receipt_record *rec, const cJSON *r)
{
    index_rows();
    memset(rec, 0, sizeof *rec);
    open_scope(&rec->top, -1);
    if (cJSON_IsObject(r))
        fill_members(&rec->top, -1, r, NULL, NULL);
}

static void free_rv(rv *v)
{
    for (size_t i = 0; i < v->n; i++)
        free_rv(&v->el[i]);
    for (size_t k = 0; k < v->n_slots; k++)
        free_rv(&v->slot[k]);
    free(v->el), free(v->key), free(v->slot);
}

void receipt_record_free(receipt_record *rec)
{
    free_rv(&rec->top);
    cJSON_Delete(rec->doc);
    memset(rec, 0, sizeof *rec);
}

const rv *rv_at(const rv *scope, rf_id f)
{
    static const rv none = {.row = -1};
    index_rows();
    if (!scope)
        return &none;
    if (!scope->slot || (int)f <= scope->row || (int)f >= scope->row + 1 + (int)scope->n_slots) {
        fprintf(stderr, "isotrain-conform: internal error: field %s read outside its scope\n", receipt_fields[f].path);
        abort();
    }
    return &scope->slot[(int)f - scope->row - 1];
}

static const rv *typed(const rv *scope, rf_id f, rs_kind k1, rs_kind k2)
{
    if (receipt_fields[f].kind != k1 && receipt_fields[f].kind != k2) {
        fprintf(stderr, "isotrain-conform: internal error: field %s read as another kind\n", receipt_fields[f].path);
        abort();
    }
    return rv_at(scope, f);
}

static int readable(const rv *v)
{
    return v->present && !v->null && !v->bad;
}

const char *rv_str(const rv *scope, rf_id f)
{
    const rv *v = typed(scope, f, RS_STR, RS_STR);
    return readable(v) ? v->s : NULL;
}

int rv_num(const rv *scope, rf_id f, double *out)
{
    const rv *v = typed(scope, f, RS_INT, RS_NUM);
    if (!readable(v))
        return -1;
    *out = v->num;
    return 0;
}

int rv_true(const rv *scope, rf_id f)
{
    const rv *v = typed(scope, f, RS_BOOL, RS_BOOL);
    return readable(v) && v->yes;
}

int rv_has(const rv *scope, rf_id f)
{
    return readable(rv_at(scope, f));
}

size_t rv_len(const rv *scope, rf_id f)
{
    return typed(scope, f, RS_ARR, RS_MAP)->n;
}

int rf_parent(rf_id f)
{
    index_rows();
    return parent_of[f];
}

const rv *rv_el(const rv *scope, rf_id f, size_t i)
{
    const rv *a = typed(scope, f, RS_ARR, RS_MAP);
    if (i >= a->n) {
        fprintf(stderr, "isotrain-conform: internal error: %s[%zu] of %zu\n", receipt_fields[f].path, i, a->n);
        abort();
    }
    return &a->el[i];
}

const char *rv_el_str(const rv *scope, rf_id f, size_t i)
{
    const rv *e = rv_el(scope, f, i);
    if (receipt_fields[e->row].kind != RS_STR) {
        fprintf(stderr, "isotrain-conform: internal error: %s read as strings\n", receipt_fields[f].path);
        abort();
    }
    return readable(e) ? e->s : NULL;
}
