/* receipt.h — the JSON receipt of a run and its JUnit XML (design brief,
 * "Receipts"). */
#ifndef CONFORM_RECEIPT_H
#define CONFORM_RECEIPT_H

#include "run.h"

/* Writes the receipt; returns 0 or -1 with a message on stderr. */
int receipt_write(const run_ctx *rc, const char *path, const char *overall, const char *reached);
/* Writes JUnit XML: one testsuite per group/level, one testcase per case. */
int junit_write(const run_ctx *rc, const char *path);
/* XML text escaping (&, <, >, ", ' and characters XML 1.0 forbids). */
void xml_escape(sbuf *out, const char *s);

#endif
