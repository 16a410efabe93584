/* receipt_model.h — one receipt as its readers see it: the receipt the
 * strict reader (trust/receipt_schema.h, trust/receipt_open.h) has checked
 * against THE field table, with every field that is not inside an array or
 * a map found once, by its id (rf_id, trust/receipt_fields.h). verify,
 * matrix, the page and JUnit name a field by its id, never by a string of
 * its own, so a field is named in the table only. */
#ifndef CONFORM_TRUST_RECEIPT_MODEL_H
#define CONFORM_TRUST_RECEIPT_MODEL_H

#include <cjson/cJSON.h>

#include "trust/receipt_schema.h"

typedef struct {
    const cJSON *root;         /* the receipt; the model does not own it */
    const cJSON *at[RF_COUNT]; /* each field outside arrays and maps: its value, NULL if absent */
} receipt_model;

/* Finds every field of r the table places outside arrays and maps. */
void receipt_model_index(receipt_model *m, const cJSON *r);

/* Field f of the receipt (NULL if absent or inside an array or map). */
const cJSON *rm_get(const receipt_model *m, rf_id f);
/* Field f as a member of obj, an element (or value) of f's parent: the
 * fields inside arrays, e.g. rm_in(case, RF_CASES_VERDICT). NULL if absent. */
const cJSON *rm_in(const cJSON *obj, rf_id f);
/* Its string, or NULL when it is absent, null or not a string. */
const char *rm_str(const cJSON *obj, rf_id f);
const char *rm_get_str(const receipt_model *m, rf_id f);
/* Field f's path from the innermost array element that holds it, or from
 * the root ("trace" of levels.train.profiles[].trace, "counts.passed"):
 * what a reader walking from that element or the root follows. */
const char *rm_rel(rf_id f);

#endif
