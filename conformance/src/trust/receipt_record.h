/* receipt_record.h — THE typed receipt: one value slot per row of the field
 * table (trust/receipt_fields.h), filled once from a receipt the strict
 * reader has checked (trust/receipt_open.h, verify_receipt_file), so the
 * readers after it (matrix, the page, JUnit) see a typed value or its
 * absence and never a JSON tree: a string field is a string or NULL, a
 * count a number, and a field a reader names is found by its id only.
 *
 * Scopes: the receipt's root and each element of an array of objects (a
 * "[]" row of kind OBJ) hold the slots of every row below them, indexed by
 * the row's id, so levels.train.verdict is one look-up from the root and
 * levels.train.profiles[].trace[].sha256 one from its trace element. Adding
 * a field stays one row of the table: its slot comes with it. */
#ifndef CONFORM_TRUST_RECEIPT_RECORD_H
#define CONFORM_TRUST_RECEIPT_RECORD_H

#include <cjson/cJSON.h>
#include <stddef.h>

#include "core/problems.h"
#include "trust/receipt_schema.h"

typedef struct rv rv;
struct rv {
    int row;                    /* its table row; -1: the receipt's root */
    unsigned char present, null; /* absent; present and null */
    unsigned char bad;          /* present, not of its kind or over its cap (receipt_record_view only) */
    const char *s;              /* RS_STR */
    double num;                 /* RS_INT, RS_NUM */
    int yes;                    /* RS_BOOL */
    size_t n;                   /* RS_ARR: its elements; RS_MAP: its entries */
    rv *el;                     /* RS_ARR, RS_MAP: the n values, of row + 1 */
    const char **key;           /* RS_MAP: the n keys */
    rv *slot;                   /* a scope (root, object element): slot[f - row - 1] is field f */
    size_t n_slots;
    const cJSON *open;          /* an RS_OPEN object (the localizer's members, not the table's) */
};

/* The receipt: its root scope, and the checked document the strings point
 * into (the record owns it). */
typedef struct {
    cJSON *doc;
    rv top;
} receipt_record;

/* Takes r (a receipt the strict reader accepted: every present field of its
 * kind) and fills rec once. 0, or -1 with a problem naming file and the
 * field whose value is not of the table's kind (the reader was skipped); rec
 * owns r either way, receipt_record_free frees it. */
int receipt_record_take(receipt_record *rec, const char *file, cJSON *r, problems *pr);
void receipt_record_free(receipt_record *rec);
/* verify's reading: r (which the caller keeps; the record points into it)
 * as its fields are, whatever the strict reader said of them, so that each
 * of verify's checks still names what it finds: a value not of its field's
 * kind, or an array over its cap, is present and ->bad, and every typed read
 * of it is absent; an element of an array of objects that is not an object
 * is a scope with no field. Never fails. */
void receipt_record_view(receipt_record *rec, const cJSON *r);

/* Field f in scope (the root &rec->top, or an element of an array of
 * objects): f must lie below the scope (abort otherwise: a reader's bug, not
 * the receipt's). Never NULL; ->present says whether the receipt has it.
 * A NULL scope (a row without a receipt: a build-failure record) has no
 * field: every read of it is absent. */
const rv *rv_at(const rv *scope, rf_id f);
/* Typed reads; each aborts when f is not of the kind it reads. */
const char *rv_str(const rv *scope, rf_id f); /* NULL: absent or null */
int rv_num(const rv *scope, rf_id f, double *out); /* 0, or -1: absent or null */
int rv_true(const rv *scope, rf_id f);
/* 1 when f is present, not null and of its kind (an object, an array, a
 * boolean...): what a reader tests before it reads f as its kind. */
int rv_has(const rv *scope, rf_id f);
/* Element i of the array of strings f: NULL when null or not a string. */
const char *rv_el_str(const rv *scope, rf_id f, size_t i);
/* An array (or map) field's element i (i < rv_at(scope, f)->n). */
const rv *rv_el(const rv *scope, rf_id f, size_t i);
size_t rv_len(const rv *scope, rf_id f);
/* Field f's parent row (-1: the root): an object's members are the rows
 * whose parent it is, in the table's order. */
int rf_parent(rf_id f);

#endif
