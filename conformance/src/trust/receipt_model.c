/* receipt_model.c — the receipt's fields by id (trust/receipt_model.h). */
#include "trust/receipt_model.h"

#include <string.h>

void receipt_model_index(receipt_model *m, const cJSON *r)
{
    memset(m, 0, sizeof *m);
    m->root = r;
    for (size_t i = 0; i < RF_COUNT; i++) {
        const char *p = receipt_fields[i].path;
        if (strpbrk(p, "[*"))
            continue;
        /* the parent row precedes its members: walk one part from it */
        const char *dot = strrchr(p, '.');
        const cJSON *parent = r;
        if (dot) {
            parent = NULL;
            for (size_t k = i; k-- > 0;)
                if (strlen(receipt_fields[k].path) == (size_t)(dot - p) && !strncmp(receipt_fields[k].path, p, (size_t)(dot - p))) {
                    parent = m->at[k];
                    break;
                }
        }
        m->at[i] = cJSON_IsObject(parent) ? cJSON_GetObjectItemCaseSensitive(parent, rf_key((rf_id)i)) : NULL;
    }
}

const cJSON *rm_get(const receipt_model *m, rf_id f)
{
    return m->at[f];
}

const cJSON *rm_in(const cJSON *obj, rf_id f)
{
    return cJSON_IsObject(obj) ? cJSON_GetObjectItemCaseSensitive(obj, rf_key(f)) : NULL;
}

const char *rm_str(const cJSON *obj, rf_id f)
{
    const cJSON *v = rm_in(obj, f);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

const char *rm_get_str(const receipt_model *m, rf_id f)
{
    const cJSON *v = m->at[f];
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

const char *rm_rel(rf_id f)
{
    const char *p = receipt_fields[f].path, *e = strstr(p, "[].");
    for (const char *n = e; n; n = strstr(e + 3, "[]."))
        e = n;
    return e ? e + 3 : p;
}
