/* verify.c — `isotrain-conform verify RECEIPT...`: every check of
 * trust/verify_receipt.h on each receipt; one line per receipt, every
 * problem naming the file and the field. Exit 0 all verify, 1 otherwise. */
#include <stdio.h>
#include <stdlib.h>

#include "cli/commands.h"
#include "trust/verify_receipt.h"

int verify_command(const conform_args *a)
{
    int bad = 0;
    verify_opts vo = {a->vectors_given ? a->vectors : NULL, a->allowed_signers};
    for (size_t i = 0; i < a->n_receipts; i++) {
        problems pr;
        problems_init(&pr);
        verify_info info;
        cJSON *r = verify_receipt_file(a->receipts[i], &vo, &info, &pr);
        if (r) {
            printf("verify: %s: OK: verdict %s recomputed from %zu cases; %s\n", a->receipts[i], info.verdict,
                   info.cases,
                   info.signer ? "signature good (signed by an allowed signer)"
                   : info.enveloped ? "unsigned DSSE envelope (no --allowed-signers: signature not checked)"
                                    : "a bare receipt (no envelope, no signature)");
            if (info.signer)
                printf("verify: %s: signer: %s\n", a->receipts[i], info.signer);
        } else {
            bad = 1;
            printf("verify: %s: FAILED (%zu problem%s):\n", a->receipts[i], pr.n, pr.n == 1 ? "" : "s");
            problems_print(&pr, stdout, "  ");
        }
        cJSON_Delete(r);
        free(info.signer);
        problems_free(&pr);
    }
    return bad;
}
