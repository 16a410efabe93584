/* fuzz_trace — the runner's strict parser of a training trace (spec §9.2,
 * spec/iut-protocol.md P7; protocol/trace.c) on any bytes an IUT could
 * write. Property: no crash; on success the steps are 0, 1, 2, ... in order
 * and no more than the header announces; on failure the message names the
 * line. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "protocol/trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > TRACE_CAP)
        return 0;
    trace_doc t;
    memset(&t, 0, sizeof t);
    char err[512];
    err[0] = '\0';
    int r = trace_parse((const char *)data, size, "trace.txt", &t, err, sizeof err);
    if (r == 0) {
        if (t.n > (size_t)t.steps + 1)
            abort();
        for (size_t i = 0; i < t.n; i++)
            if (t.s[i].step != i || (i > 0 && !t.s[i].has_loss))
                abort();
    } else if (r != -1 || strncmp(err, "trace.txt:", 10) != 0)
        abort();
    trace_free(&t);
    return 0;
}
