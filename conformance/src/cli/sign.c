/* sign.c — `isotrain-conform sign --sign-key KEY RECEIPT [OUT]`: signs an
 * unsigned receipt in a step of its own (DESIGN.md Wave 4, "the key not in
 * the room"): the run that made the receipt never held the key, so no IUT
 * could reach it, whatever the system allows (protocol/iut_room.h). The
 * envelope's payload is signed as it is, byte for byte (trust/dsse.h); the
 * receipt is not re-rendered, so what `run` wrote is what gets signed. */
#include <stdio.h>
#include <stdlib.h>

#include "cli/commands.h"
#include "core/problems.h"
#include "core/util.h"
#include "trust/dsse.h"

enum { SIGN_RECEIPT_MAX = 64 << 20 };

int sign_command(const conform_args *a)
{
    const char *in = a->operands[0], *out = a->n_operands > 1 ? a->operands[1] : a->operands[0];
    char err[512], *text;
    size_t len;
    if (read_file(in, SIGN_RECEIPT_MAX, &text, &len, err, sizeof err) != 0) {
        fprintf(stderr, "isotrain-conform: sign: %s\n", err);
        return 2;
    }
    problems pr;
    problems_init(&pr);
    dsse_opened o;
    int bad = dsse_open(in, text, len, &o, &pr) != 0;
    free(text);
    if (bad) {
        fprintf(stderr, "isotrain-conform: sign: %s is not a receipt envelope (run --receipt writes one):\n", in);
        problems_print(&pr, stderr, "  ");
        problems_free(&pr);
        return 2;
    }
    problems_free(&pr);
    if (o.n_sigs) {
        fprintf(stderr, "isotrain-conform: sign: %s already carries %zu signature%s: sign signs an unsigned receipt\n",
                in, o.n_sigs, o.n_sigs == 1 ? "" : "s");
        dsse_opened_free(&o);
        return 2;
    }
    char *env = dsse_envelope_bytes(o.payload, o.payload_len, a->sign_key, err, sizeof err);
    dsse_opened_free(&o);
    if (!env) {
        fprintf(stderr, "isotrain-conform: sign: %s\n", err);
        return 2;
    }
    if (dsse_write_file(out, env, err, sizeof err) != 0) {
        fprintf(stderr, "isotrain-conform: sign: %s\n", err);
        return 2;
    }
    printf("signed: %s (with %s; `isotrain-conform verify` names the signer)\n", out, a->sign_key);
    return 0;
}
