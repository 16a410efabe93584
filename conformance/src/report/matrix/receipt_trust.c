/* receipt_trust.c — the gate in front of the matrix: a runner receipt enters
 * the table only as a DSSE envelope that verifies (trust/verify_receipt.h:
 * every verdict recomputed, every cross-reference checked, the signature
 * when --allowed-signers is given) and only as a full certification or a
 * FAIL. A PARTIAL or UNOFFICIAL run, a bare or hand-edited receipt is refused.
 * Build-failure records (ci/matrix.sh) are not runner receipts and pass. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/matrix/matrix.h"
#include "trust/verify_receipt.h"

static verify_opts trust = {NULL, NULL};

void mx_trust_config(const char *allowed_signers, const char *vectors)
{
    trust.allowed_signers = allowed_signers;
    trust.vectors = vectors;
}

cJSON *mx_open_receipt(const char *file)
{
    cJSON *j = mx_parse_file(file, RECEIPT_CAP);
    if (!j)
        return NULL;
    const cJSON *schema = cJSON_GetObjectItemCaseSensitive(j, "schema");
    if (cJSON_IsString(schema) && !strcmp(schema->valuestring, "isotrain-matrix-build-failure-v1"))
        return j;
    int enveloped = cJSON_GetObjectItemCaseSensitive(j, "payloadType") != NULL;
    cJSON_Delete(j);
    if (!enveloped) {
        mx_bad(file, NULL, "refused: a bare receipt, not a DSSE envelope: nothing binds it to what ran "
                           "(the runner writes receipts as in-toto Statements in DSSE envelopes; isotrain-conform verify)");
        return NULL;
    }
    problems pr;
    problems_init(&pr);
    verify_info info;
    cJSON *r = verify_receipt_file(file, &trust, &info, &pr);
    if (!r) {
        mx_bad(file, NULL, "refused: the receipt does not verify (%zu problem%s):", pr.n, pr.n == 1 ? "" : "s");
        problems_print(&pr, stderr, "  ");
    } else if (strcmp(info.verdict, "PASS") != 0 && strcmp(info.verdict, "FAIL") != 0) {
        mx_bad(file, "verdict", "refused: %s is not a certification (a full run on an official vector set is "
                                "PASS or FAIL; see the receipt's scope.reasons)", info.verdict);
        cJSON_Delete(r);
        r = NULL;
    }
    free(info.signer);
    problems_free(&pr);
    return r;
}
