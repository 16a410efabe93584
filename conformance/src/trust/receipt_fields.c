/* receipt_fields.c — THE receipt's field table (trust/receipt_schema.h),
 * the rows of trust/receipt_fields.h expanded: the reader, the writer's own
 * check and spec/receipt.schema.json follow it. */
#include "trust/receipt_schema.h"

#include <string.h>

#define U32 4294967295u
#define W53 9007199254740991u /* 2^53 - 1: every whole double */
#define Z RS_NULL
#define OPT RS_OPT
#define ROW(id, kind, path, flags, max) {path, RS_##kind, flags, max},

const rs_field receipt_fields[] = {RECEIPT_FIELDS(ROW)};
const size_t receipt_n_fields = sizeof receipt_fields / sizeof receipt_fields[0];
_Static_assert(sizeof receipt_fields / sizeof receipt_fields[0] == RF_COUNT, "one row per rf_id");

const char *rf_key(rf_id f)
{
    const char *p = receipt_fields[f].path, *dot = strrchr(p, '.');
    return dot ? dot + 1 : p;
}
