/* receipt_open.c — see receipt_open.h. */
#include "trust/receipt_open.h"

#include <stdlib.h>
#include <sys/stat.h>

#include "core/json_strict.h"
#include "core/util.h"
#include "trust/dsse.h"
#include "trust/receipt_schema.h"

/* The receipt inside the text, before the field check. */
static cJSON *receipt_of(const char *file, const char *text, size_t len, int *enveloped, problems *pr)
{
    char why[256] = "";
    cJSON *doc = json_parse_strict(text, len, why, sizeof why);
    cJSON *r = NULL;
    if (!cJSON_IsObject(doc)) {
        problems_add(pr, "%s: not a JSON object (a DSSE envelope or a receipt)%s%s", file, why[0] ? ": " : "", why);
    } else if (cJSON_GetObjectItemCaseSensitive(doc, "payloadType")) {
        *enveloped = 1;
        dsse_opened o;
        if (dsse_open(file, text, len, &o, pr) == 0)
            r = cJSON_Duplicate(o.receipt, 1);
        dsse_opened_free(&o);
    } else {
        r = doc;
        doc = NULL;
    }
    cJSON_Delete(doc);
    return r;
}

cJSON *receipt_open(const char *file, int *enveloped, problems *pr)
{
    int env = 0;
    struct stat st;
    char *text, err[512];
    size_t len;
    if (enveloped)
        *enveloped = 0;
    if (lstat(file, &st) != 0 || !S_ISREG(st.st_mode)) {
        problems_add(pr, "%s: not a regular file", file);
        return NULL;
    }
    if (read_file(file, RECEIPT_FILE_MAX, &text, &len, err, sizeof err) != 0) {
        problems_add(pr, "%s", err);
        return NULL;
    }
    cJSON *r = receipt_of(file, text, len, &env, pr);
    free(text);
    if (r && receipt_schema_check(file, r, RS_CHECK_PRESENCE, pr, RECEIPT_SCHEMA_PROBLEMS) != 0) {
        cJSON_Delete(r);
        r = NULL;
    }
    if (enveloped)
        *enveloped = env;
    return r;
}
