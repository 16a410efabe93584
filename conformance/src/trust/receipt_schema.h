/* receipt_schema.h — the receipt's fields, named once: one table (path,
 * kind, range, optional, nullable, open) from which the strict reader
 * checks every receipt that verify, matrix and the page read, the writer
 * checks its own receipt before it writes it, and the published JSON
 * Schema (spec/receipt.schema.json) is generated, so none of them can
 * drift from another. */
#ifndef CONFORM_TRUST_RECEIPT_SCHEMA_H
#define CONFORM_TRUST_RECEIPT_SCHEMA_H

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>

#include "core/problems.h"
#include "trust/receipt_fields.h"

#define RECEIPT_SCHEMA_NAME "isotrain-receipt-v1"

typedef enum { RS_STR, RS_INT, RS_NUM, RS_BOOL, RS_OBJ, RS_ARR, RS_MAP } rs_kind;

/* RS_OPT: may be absent (the writer leaves it out in some runs, or older
 * receipts lack it); RS_NULL: may be null; RS_OPEN: an object whose
 * members the schema does not list (the localization, whose fields are
 * the localizer's). */
enum { RS_OPT = 1, RS_NULL = 2, RS_OPEN = 4 };

/* path: dotted from the receipt's root; "x[]" is an element of array x,
 * "x.*" a value of map x. max: an RS_INT's upper bound (at most 2^53); an
 * RS_ARR's or RS_MAP's most elements (receipt_fields.h RF_CAP_*). */
typedef struct {
    const char *path;
    rs_kind kind;
    unsigned flags;
    uint64_t max;
} rs_field;

/* In rf_id order: receipt_fields[RF_X] is field RF_X's row. */
extern const rs_field receipt_fields[];
extern const size_t receipt_n_fields;

/* Field f's member name: the last part of its path ("sha256" of
 * "iut.binary.sha256"); what the writer names it by and the readers look
 * it up by. */
const char *rf_key(rf_id f);

/* Checks receipt r against the table: every member known (where the
 * object is closed), every value of its kind,
 * whole numbers whole and in range (core/json_checked.h jx_whole: 0.5, 2^63 and
 * -1e300 are refused), and with RS_CHECK_PRESENCE every required member
 * present (the writer and receipt --json; verify names a missing field by
 * the check that needs it, as it did before the table). Problems name the
 * file, the JSON path and what was expected; at most max_problems of them.
 * 0, or -1. */
enum { RS_CHECK_PRESENCE = 1 };
int receipt_schema_check(const char *file, const cJSON *r, unsigned how, problems *pr, size_t max_problems);

/* 1 when v (an array or object of field f's kind) has more elements than
 * f's cap; counts no further than the cap plus one. */
int rs_over_cap(const rs_field *f, const cJSON *v);

/* The JSON Schema (draft 2020-12) of the table, for spec/receipt.schema.json. */
cJSON *receipt_schema_json(void);

#endif
