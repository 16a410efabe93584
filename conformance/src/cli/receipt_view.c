/* receipt_view.c — `isotrain-conform receipt`: the machine view of receipts
 * through the one strict reader (trust/receipt_open.h), for scripts that
 * read a field (ci/receipt_json.py) instead of opening the envelope
 * themselves, and the published schema generated from the field table:
 *
 *   receipt [--json] RECEIPT...   check each; --json prints the receipt (one)
 *   receipt --schema              spec/receipt.schema.json
 *
 * It checks no signature and recomputes no verdict (that is verify). Exit
 * 0: every receipt reads; 1: one does not (its problems on stderr); 2: bad
 * usage. */
#include <stdio.h>
#include <stdlib.h>

#include "cli/commands.h"
#include "trust/receipt_open.h"
#include "trust/receipt_schema.h"

static int print_json(cJSON *j)
{
    char *t = cJSON_Print(j);
    int bad = !t || printf("%s\n", t) < 0 || fflush(stdout) != 0;
    free(t);
    return bad;
}

int receipt_command(const conform_args *a)
{
    const char *const *files = a->operands;
    size_t n = a->n_operands;
    int json = a->json, schema = a->schema;
    if (schema) {
        cJSON *s = receipt_schema_json();
        int bad = print_json(s);
        cJSON_Delete(s);
        return bad ? 1 : 0;
    }
    int bad = 0;
    for (size_t i = 0; i < n; i++) {
        problems pr;
        problems_init(&pr);
        int enveloped;
        cJSON *r = receipt_open(files[i], &enveloped, &pr);
        if (!r) {
            bad = 1;
            fprintf(stderr, "receipt: %s: does not read as %s (%zu problem%s):\n", files[i], RECEIPT_SCHEMA_NAME,
                    pr.n, pr.n == 1 ? "" : "s");
            problems_print(&pr, stderr, "  ");
        } else if (json)
            bad |= print_json(r);
        else
            printf("receipt: %s: reads as %s (%s; signature not checked: that is verify)\n", files[i],
                   RECEIPT_SCHEMA_NAME, enveloped ? "a DSSE envelope" : "a bare receipt");
        cJSON_Delete(r);
        problems_free(&pr);
    }
    return bad;
}
