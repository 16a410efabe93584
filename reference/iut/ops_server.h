/* The `ops` verb of spec/iut-protocol.md (P3-P6): one request per line in,
 * one response per line out, every op of the P5 table computed with the
 * reference library. */
#ifndef IT_OPS_SERVER_H
#define IT_OPS_SERVER_H

#include <stdint.h>
#include <stdio.h>

/* Serves requests from in until end of input, answering on out (flushed after
 * every response) and writing diagnostics to diag. Returns the process exit
 * status: 0 at end of input, 4 when reading or writing fails. */
int it_ops_serve(FILE *in, FILE *out, FILE *diag);

/* The same, with a lower ceiling on `sweep`'s count than P5.1's 2^32: a
 * sweep above it is answered error=bad-request. Only the fuzz harness
 * (reference/fuzz/) uses it, so that one generated line cannot take minutes;
 * everything else about the answers is what it_ops_serve gives. */
int it_ops_serve_limited(FILE *in, FILE *out, FILE *diag, uint64_t max_sweep_count);

#endif
