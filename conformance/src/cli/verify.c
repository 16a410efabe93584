/* verify.c — `isotrain-conform verify RECEIPT...`: every check of
 * trust/verify_receipt.h on each receipt; one line per receipt naming its
 * signer by fingerprint (trust/keys.h), every problem naming the file and
 * the field. Exit 0 when every receipt verifies and is certification
 * evidence or a record of a narrower run; 1 otherwise (a problem, UNSIGNED
 * without --allow-unsigned, a REPRODUCTION). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "core/version.h"
#include "trust/verify_receipt.h"
#include "verdict/scope.h"

/* A recipe certification's provenance: the recipe, the set's generator and
 * signer, the op set it ran (each re-checked against the sets on disk). */
static void recipe_lines(const char *f, const verify_info *info)
{
    printf("verify: %s: RECIPE certification: of recipe sha256:%s against the set made by %s; not an "
           "official certification\n", f, info->recipe_sha256, info->generator);
    printf("verify: %s: recipe set signer: %s\n", f,
           info->recipe_signer[0] ? info->recipe_signer : "UNSIGNED (no MANIFEST.json.sig: nothing says who made it)");
    printf("verify: %s: op vectors: manifest %s\n", f, info->ops_digest); /* a recipe receipt has it, or is refused */
}

int verify_command(const conform_args *a)
{
    int bad = 0;
    verify_opts vo = {a->vectors_given ? a->vectors : NULL,
                      a->allowed_signers ? a->allowed_signers : conform_default_allowed_signers(), a->allow_unsigned,
                      a->ops_vectors};
    if (!a->allowed_signers)
        printf("verify: signatures checked against %s\n",
               vo.allowed_signers ? vo.allowed_signers : "nothing (no allowed-signers file found: give --allowed-signers FILE)");
    for (size_t i = 0; i < a->n_operands; i++) {
        problems pr;
        problems_init(&pr);
        verify_info info;
        cJSON *r = verify_receipt_file(a->operands[i], &vo, &info, &pr);
        const char *f = a->operands[i];
        if (r && info.reproduction) {
            /* it verifies, and says what it is: not a certification */
            bad = 1;
            printf("verify: %s: NOT CERTIFICATION EVIDENCE: verdict REPRODUCTION recomputed from %zu cases; %s\n", f,
                   info.cases, SCOPE_NOT_EVIDENCE);
        } else if (r)
            printf("verify: %s: OK: verdict %s recomputed from %zu cases; %s\n", f, info.verdict, info.cases,
                   info.sig.principal ? "signature good" : info.enveloped ? "UNSIGNED (accepted: --allow-unsigned)"
                                                                          : "a bare receipt, UNSIGNED (accepted: --allow-unsigned)");
        else {
            bad = 1;
            printf("verify: %s: FAILED (%zu problem%s):\n", f, pr.n, pr.n == 1 ? "" : "s");
            problems_print(&pr, stdout, "  ");
        }
        if (r && info.recipe_sha256[0])
            recipe_lines(f, &info);
        if (info.sig.principal)
            printf("verify: %s: signer: %s\n", f, info.sig.words);
        else if (info.unsigned_receipt)
            printf("verify: %s: signer: UNSIGNED (no signature: nothing says who made this receipt)\n", f);
        if (r && info.legacy)
            printf("verify: %s: read under the first trust rules (a receipt published before subject binding): its "
                   "subject and host fields are the signer's claim, not measurements\n", f);
        else if (r) {
            char *subject = receipt_facts_subject_text(&info.facts);
            printf("verify: %s: subject: %s\n", f, subject);
            free(subject);
        }
        cJSON_Delete(r);
        verify_info_free(&info);
        problems_free(&pr);
    }
    return bad;
}
