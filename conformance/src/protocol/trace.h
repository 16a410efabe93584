/* trace.h — the training trace of spec §9.2 as spec/iut-protocol.md P7
 * words it: a header line "# isotrain-trace v1 profile=NAME steps=N", then
 * "step=0 [digest=<64 hex>]", then per step
 * "step=t loss=<8 hex> loss_dec=<decimal> [digest=<64 hex>]". Parsed
 * strictly: every deviation is an error naming the line. */
#ifndef CONFORM_TRACE_H
#define CONFORM_TRACE_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint32_t step;
    int has_loss;
    uint32_t loss; /* binary32 bits */
    int has_digest;
    char digest[65]; /* lowercase */
    size_t line_no;
} trace_step;

typedef struct {
    char *profile;
    uint32_t steps; /* from the header */
    trace_step *s;  /* s[i].step == i (from + i for a resumed run) */
    size_t n;
} trace_doc;

enum { TRACE_CAP = 1 << 20 }; /* P8: a trace is at most 1 MiB */

/* Parses text (name is used in messages). A trace may stop before step
 * `steps` (a failed run); anything malformed is an error "name:LINE: ...".
 * Returns 0, or -1 with the message in err; on -1, t holds the steps parsed
 * before the bad line. */
int trace_parse(const char *text, size_t len, const char *name, trace_doc *t, char *err, size_t cap);
/* The same for a run resumed at step `from` (spec §9.4): its first line is
 * step=from without a loss, and s[i].step == from + i. */
int trace_parse_from(const char *text, size_t len, const char *name, uint32_t from, trace_doc *t, char *err,
                     size_t cap);
/* Reads and parses a file of at most max bytes. */
int trace_parse_file(const char *path, size_t max, trace_doc *t, char *err, size_t cap);
void trace_free(trace_doc *t);

#endif
