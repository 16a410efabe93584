/* receipt_open.c — see receipt_open.h. */
#include "trust/receipt_open.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/json_strict.h"
#include "core/util.h"
#include "trust/receipt_schema.h"

/* The receipt inside the text: the envelope's, or the bare document. */
static int receipt_of(const char *file, const char *text, size_t len, receipt_file *f, problems *pr)
{
    char why[256] = "";
    f->doc = json_parse_strict(text, len, why, sizeof why); /* core/json_strict.h */
    if (!cJSON_IsObject(f->doc)) {
        problems_add(pr, "%s: not a JSON object (a DSSE envelope or a receipt)%s%s", file, why[0] ? ": " : "", why);
        return -1;
    }
    if (!cJSON_GetObjectItemCaseSensitive(f->doc, "payloadType")) {
        f->receipt = f->doc;
        return 0;
    }
    f->enveloped = 1;
    if (dsse_open(file, text, len, &f->env, pr) != 0)
        return -1;
    f->receipt = f->env.receipt;
    return 0;
}

int receipt_file_read(const char *file, receipt_file *f, problems *pr)
{
    memset(f, 0, sizeof *f);
    struct stat st;
    char *text, err[512];
    size_t len;
    if (lstat(file, &st) != 0 || !S_ISREG(st.st_mode)) {
        problems_add(pr, "%s: not a regular file", file);
        return -1;
    }
    if (read_file(file, RECEIPT_FILE_MAX, &text, &len, err, sizeof err) != 0) {
        problems_add(pr, "%s", err);
        return -1;
    }
    int rc = receipt_of(file, text, len, f, pr);
    free(text);
    return rc;
}

void receipt_file_free(receipt_file *f)
{
    if (f->enveloped)
        dsse_opened_free(&f->env);
    cJSON_Delete(f->doc);
    memset(f, 0, sizeof *f);
}

cJSON *receipt_open(const char *file, int *enveloped, problems *pr)
{
    receipt_file f;
    cJSON *r = NULL;
    if (receipt_file_read(file, &f, pr) == 0 &&
        receipt_schema_check(file, f.receipt, RS_CHECK_PRESENCE, pr, RECEIPT_SCHEMA_PROBLEMS) == 0)
        r = cJSON_Duplicate(f.receipt, 1);
    if (enveloped)
        *enveloped = f.enveloped;
    receipt_file_free(&f);
    return r;
}
