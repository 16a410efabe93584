/* junit.h — the run as JUnit XML, for CI systems. */
#ifndef CONFORM_REPORT_JUNIT_H
#define CONFORM_REPORT_JUNIT_H

#include "levels/run_ctx.h"

/* Writes JUnit XML: one testsuite per group/level, one testcase per case. */
int junit_write(const run_ctx *rc, const char *path);
/* XML text escaping (&, <, >, ", ' and characters XML 1.0 forbids). */
void xml_escape(sbuf *out, const char *s);

/* The verdict and its scope as a testsuite "isotrain-verdict" (junit_verdict.c). */
void junit_verdict_suite(sbuf *x, const run_ctx *rc);

#endif
