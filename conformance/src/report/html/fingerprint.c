/* fingerprint.c — which key made a signature, as a fingerprint a reader can
 * compare with `ssh-keygen -l -f KEY.pub`: "SHA256:" and the unpadded
 * base64 of the SHA-256 of the public key blob (OpenSSH sshkey_fingerprint).
 * The blob is the one inside the SSHSIG (OpenSSH PROTOCOL.sshsig: "SSHSIG",
 * uint32 version, string publickey, string namespace, string reserved,
 * string hash_algorithm, string signature), so this names the key that
 * signed; whether that key is an allowed signer is verify's answer, and the
 * page says which receipts it checked. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "isotrain.h"
#include "report/html/report.h"
#include "trust/dsse.h"
#include "trust/keys.h"

static const char BEGIN[] = "-----BEGIN SSH SIGNATURE-----", END[] = "-----END SSH SIGNATURE-----";

int rp_sshsig_fingerprint(const char *armored, char out[64])
{
    const char *b = strstr(armored, BEGIN), *e = b ? strstr(b, END) : NULL;
    if (!b || !e)
        return -1;
    sbuf text;
    sbuf_init(&text);
    for (const char *p = b + sizeof BEGIN - 1; p < e; p++)
        if (*p != '\n' && *p != '\r')
            sbuf_addc(&text, *p);
    unsigned char *blob = NULL;
    size_t n = 0;
    int rc = -1;
    if (text.len && b64_decode(text.p, text.len, &blob, &n) == 0 && n >= 14 && !memcmp(blob, "SSHSIG", 6)) {
        uint32_t klen = (uint32_t)blob[10] << 24 | (uint32_t)blob[11] << 16 | (uint32_t)blob[12] << 8 | blob[13];
        if (klen > 0 && klen <= n - 14) {
            unsigned char d[32];
            it_sha256(blob + 14, klen, d);
            sbuf b64;
            sbuf_init(&b64);
            b64_encode(&b64, d, sizeof d);
            while (b64.len && b64.p[b64.len - 1] == '=')
                b64.p[--b64.len] = '\0';
            snprintf(out, 64, "SHA256:%s", b64.p);
            sbuf_free(&b64);
            rc = 0;
        }
    }
    free(blob);
    sbuf_free(&text);
    return rc;
}

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
