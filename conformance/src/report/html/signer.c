/* signer.c — who signed, in the words verify uses (trust/keys.h). The key is
 * named by the fingerprint of the key inside the SSHSIG (trust/sshsig.c
 * sshsig_fingerprint, the one parser verify uses too); only the pinned
 * fingerprint makes a key the project's, whatever principal an
 * allowed-signers file gives it (issue 27 item 5). */
#include "report/html/report.h"
#include "trust/keys.h"

void rp_signer_html(hw *w, const char *principal, const char *fp)
{
    static const char *const lead[] = {[KEY_OTHER] = "another key (not the project's), named ",
                                       [KEY_PROJECT] = "the project key ",
                                       [KEY_PROJECT_RETIRED] = "a retired project key "};
    hw_text(w, lead[key_class_of(fp)]);
    HW(w, "<strong>");
    hw_text_cap(w, principal, HW_CAP_NAME);
    HW(w, "</strong>");
}
