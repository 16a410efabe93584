/* fuzz_response — the runner's judge of one ops response line
 * (spec/iut-protocol.md P3-P6; protocol/ops_engine.c ops_judge) on any bytes
 * an IUT could send. Property: it never crashes, returns one of the case
 * verdicts, gives a reason for every non-PASS, and passes only a line that
 * really carries the expected output. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "protocol/ops_engine.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Hex case is free in answers (P4), so the match ignores ASCII case. */
static int contains(const uint8_t *d, size_t n, const char *needle)
{
    size_t k = strlen(needle);
    for (size_t i = 0; i + k <= n; i++) {
        size_t j = 0;
        while (j < k && (d[i + j] | 0x20) == (needle[j] | 0x20))
            j++;
        if (j == k)
            return 1;
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const op_def *op;
    static value want[4];
    if (!op) { /* `dot` with one f32 output: y = 0x3f800000 */
        op = op_find("dot", 3);
        if (!op)
            abort();
        char why[64];
        if (value_parse(op->out[0].type, "3f800000", 8, 1, &want[0], why, sizeof why) != 0)
            abort();
    }
    if (size > OPS_LINE_CAP)
        return 0;
    ops_req q;
    memset(&q, 0, sizeof q);
    q.id = "dot/1";
    q.op = op;
    q.want = want;
    ops_res r;
    memset(&r, 0, sizeof r);
    ops_judge(&q, (const char *)data, size, &r);
    if (r.v != V_PASS && r.v != V_FAIL && r.v != V_SKIP)
        abort(); /* a response alone is never an ERROR: that is the process */
    if (r.v != V_PASS && !r.reason)
        abort();
    if (r.v == V_PASS && (size < 19 || memcmp(data, "id=dot/1 ", 9) != 0 || !contains(data, size, "y=3f800000")))
        abort(); /* a PASS without the expected answer in it */
    ops_res_free(&r);
    return 0;
}
