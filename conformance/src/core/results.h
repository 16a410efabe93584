/* results.h — verdicts of cases and levels, as reported in the summary, the
 * receipt and JUnit. A case is PASS, FAIL, SKIP or ERROR; errors count as
 * failed in the closing line. A level is PASS only if every required case
 * ran and passed (spec/iut-protocol.md P1: skipped is never passed). */
#ifndef CONFORM_RESULTS_H
#define CONFORM_RESULTS_H

#include <stddef.h>

typedef enum { V_PASS, V_FAIL, V_SKIP, V_ERROR } verdict;

const char *verdict_name(verdict v);

typedef struct {
    char *level; /* "protocol", "ops", "train" */
    char *suite; /* JUnit testsuite: "hello", "ops/exp", "train/mlp13k" */
    char *id;    /* case id: "exp/3", "mlp13k/137" */
    verdict v;
    char *reason; /* why, for everything but PASS */
    int required; /* a SKIP of a required case keeps its level from PASS */
    double seconds;
} case_result;

typedef struct {
    case_result *c;
    size_t n, cap;
} results;

void results_init(results *r);
void results_free(results *r);
/* Adds a case (strings are copied; reason may be NULL). */
void results_add(results *r, const char *level, const char *suite, const char *id, verdict v, const char *reason,
                 int required, double seconds);

typedef struct {
    size_t passed, failed, errors, skipped, skipped_required;
} tally;

/* Counts the cases of one level (NULL: all). */
tally results_tally(const results *r, const char *level);

/* L_ERROR: the cases were judged, but the IUT's process misbehaved around
 * them (P3: output after the last response, a non-zero exit, no exit). */
typedef enum { L_NOT_RUN, L_PASS, L_FAIL, L_NOT_REACHED, L_ERROR } level_verdict;
const char *level_verdict_name(level_verdict v);

/* A level's verdict from its cases: FAIL if any failed or errored, NOT
 * REACHED if a required case was skipped or none ran, else PASS. */
level_verdict level_from_tally(tally t);

/* The case that judges how a level's `ops` process ended (P3, P8: nothing
 * after the last answer, exit 0, in time): level "protocol", PASS or ERROR
 * with the reason. It counts in the run's verdict like any case, so an
 * ops session that misbehaves after its answers can never leave a PASS. */
#define OPS_SESSION_CASE "ops-session"
#define FRESH_OPS_SESSION_CASE "fresh-ops-session"
/* A level's verdict from the case list: level_from_tally, except that a
 * level whose cases all passed is ERROR when its session case (NULL: none)
 * is ERROR. run and verify both use it. */
level_verdict level_from_cases(const results *r, const char *level, const char *session_id);

#endif
