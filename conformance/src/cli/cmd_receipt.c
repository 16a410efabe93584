/* cmd_receipt.c — `isotrain-conform receipt`: the machine view of receipts
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
#include "cli/option_table.h"
#include "trust/receipt_open.h"
#include "trust/receipt_schema.h"

enum { MAX_RECEIPTS = 256 };

enum { O_JSON, O_SCHEMA, O_N };
static const opt_row RECEIPT_OPTIONS[O_N] = {
    [O_JSON] = {"--json", NULL, OPT_FLAG, NULL, 0, "print the receipt (one RECEIPT) as JSON, read strictly"},
    [O_SCHEMA] = {"--schema", NULL, OPT_FLAG, NULL, 0, "print the receipt's JSON Schema (no RECEIPT)"},
};
static const opt_table RECEIPT_TABLE = {"receipt", "receipts read by the strict reader, or their JSON Schema",
                                        RECEIPT_OPTIONS, O_N, "RECEIPT...", MAX_RECEIPTS};

static int print_json(cJSON *j)
{
    char *t = cJSON_Print(j);
    int bad = !t || printf("%s\n", t) < 0 || fflush(stdout) != 0;
    free(t);
    return bad;
}

int receipt_command(int argc, char **argv)
{
    const char *files[MAX_RECEIPTS];
    size_t n = 0;
    opt_given g[O_N];
    int parsed = opt_parse(&RECEIPT_TABLE, argc, argv, 2, g, files, &n);
    if (parsed)
        return parsed == 1 ? 0 : 2;
    int json = g[O_JSON].n > 0, schema = g[O_SCHEMA].n > 0;
    if (schema ? n != 0 || json : n == 0 || (json && n != 1)) {
        fprintf(stderr, "isotrain-conform receipt: give --schema alone, --json and one RECEIPT, or RECEIPT...\n");
        opt_usage(stderr, &RECEIPT_TABLE);
        return 2;
    }
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
