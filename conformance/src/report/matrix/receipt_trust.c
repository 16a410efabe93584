/* receipt_trust.c — the gate in front of the matrix: a runner receipt enters
 * the table only as a DSSE envelope that verifies (trust/verify_receipt.h:
 * every verdict recomputed, every cross-reference checked, the signature
 * against the allowed signers — the project's by default — unsigned only
 * with --allow-unsigned) and only as a full certification or a FAIL. A
 * PARTIAL, UNOFFICIAL or REPRODUCTION run, a bare or hand-edited receipt is
 * refused, naming why. Build-failure records (ci/matrix.sh) are not runner
 * receipts and pass. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/version.h"
#include "report/matrix/matrix.h"
#include "verdict/scope.h"

static verify_opts trust = {NULL, NULL, 0};
static int configured;

void mx_trust_config(const char *allowed_signers, const char *vectors, int allow_unsigned)
{
    trust.allowed_signers = allowed_signers ? allowed_signers : conform_default_allowed_signers();
    trust.vectors = vectors;
    trust.allow_unsigned = allow_unsigned;
    configured = 1;
}

cJSON *mx_open_receipt(const char *file, verify_info *info)
{
    memset(info, 0, sizeof *info);
    if (!configured)
        mx_trust_config(NULL, NULL, 0);
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
    cJSON *r = verify_receipt_file(file, &trust, info, &pr);
    if (!r) {
        mx_bad(file, NULL, "refused: the receipt does not verify (%zu problem%s):", pr.n, pr.n == 1 ? "" : "s");
        problems_print(&pr, mx_messages(), "  ");
    } else if (info->reproduction) {
        mx_bad(file, "verdict", "refused: REPRODUCTION is %s", SCOPE_NOT_EVIDENCE);
        cJSON_Delete(r);
        r = NULL;
    } else if (strcmp(info->verdict, "PASS") != 0 && strcmp(info->verdict, "FAIL") != 0) {
        mx_bad(file, "verdict", "refused: %s is not a certification (a full run on an official vector set with a "
                                "bound subject is PASS or FAIL; see the receipt's scope.reasons)", info->verdict);
        cJSON_Delete(r);
        r = NULL;
    }
    problems_free(&pr);
    return r;
}
