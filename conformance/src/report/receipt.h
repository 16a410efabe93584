/* receipt.h — the JSON receipt of a run (design brief, "Receipts"). */
#ifndef CONFORM_RECEIPT_H
#define CONFORM_RECEIPT_H

#include "levels/run_ctx.h"
#include "trust/verify_receipt.h" /* RECEIPT_TRUST_RULES */

/* Writes the receipt; returns 0 or -1 with a message on stderr. */
int receipt_write(const run_ctx *rc, const char *path, const char *overall, const char *reached);

#endif
