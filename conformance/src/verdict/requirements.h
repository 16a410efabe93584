/* requirements.h — what an IUT is judged by, as data (conformance/README.md
 * "Verdicts", spec §12.1, spec/iut-protocol.md P10):
 *
 *  - the spec version certified: the lower of the version the IUT's hello
 *    claims and the vector set's, compared as MAJOR.MINOR (a PATCH adds no
 *    requirement, spec §12.1);
 *  - the requirements that arrived after 1.0, one row each with the version
 *    that brought it (requirement_table);
 *  - when each op group and profile arrived: the spec_version its vector
 *    file carries (vectors/FORMAT.md §1: a file keeps the version that
 *    introduced it);
 *  - which profiles use which op (op_users): a run scoped to one profile
 *    (--profile) requires the groups of that profile's ops.
 *
 * `run` sets every case's `required` flag from these (req_apply) and `verify`
 * recomputes them from a receipt, so no flag is taken on trust. */
#ifndef CONFORM_VERDICT_REQUIREMENTS_H
#define CONFORM_VERDICT_REQUIREMENTS_H

#include "core/results.h"
#include "vectorset/vectors_load.h"

typedef struct {
    unsigned major, minor;
} spec_mm;

/* "x.y.z" -> MAJOR.MINOR; -1 if s is not such a version. */
int spec_mm_parse(const char *s, spec_mm *out);
int spec_mm_cmp(spec_mm a, spec_mm b);

/* The requirements later versions added (spec §12.4); everything else is
 * 1.0's. */
typedef enum {
    REQ_FRESH_SEED_RUN,   /* a fresh-seed training run: hello train_seed=1, train --seed S */
    REQ_EXIT_64_PROFILE,  /* an unknown profile is answered with exit status 64 */
} spec_requirement;

typedef struct {
    spec_requirement req;
    spec_mm since;
    const char *what, *clause;
} requirement_row;

extern const requirement_row requirement_table[];
extern const size_t requirement_table_n;

/* The facts a run is judged by. */
typedef struct {
    const vector_set *vs;
    const char *profile;   /* --profile, NULL: every profile */
    int exhaustive;        /* --exhaustive */
    int iut_known;         /* hello named a spec version */
    spec_mm iut, vectors;  /* what hello claims, the vector set's version */
    spec_mm certified;     /* the lower of the two (the vector set's without hello) */
    int major_apart;       /* the IUT claims another MAJOR version than the set's */
    char iut_text[32], vectors_text[32], certified_text[24]; /* "1.0.0", "1.1.0", "1.0" */
} req_ctx;

/* iut_spec: hello's spec= (NULL if hello failed). vs must outlive q. */
void req_init(req_ctx *q, const vector_set *vs, const char *iut_spec, const char *profile, int exhaustive);

/* The versions in words: long (the run's header) or short (its summary). */
void req_describe(const req_ctx *q, int lng, char *buf, size_t cap);

/* The certified version includes the requirement. */
int req_certified_has(const req_ctx *q, spec_requirement r);
/* The version the IUT claims includes it (how to read what it does). */
int req_iut_has(const req_ctx *q, spec_requirement r);
/* A file of this spec_version arrived after the version the IUT claims:
 * the IUT cannot know what it tests. */
int req_beyond_iut(const req_ctx *q, const char *file_spec_version);

/* The group has an op that profile uses (op_users). */
int req_group_serves(const op_group *g, const char *profile);
/* The group has an op the GPT family uses (spec §16: §14 with parameters,
 * so gptchar's ops): the groups a recipe set's certification runs
 * (vectorset/ops_base.h). */
int req_group_family(const op_group *g);
/* The group is in the run's scope: no --profile, or the profile uses it. */
int req_group_in_scope(const req_ctx *q, const op_group *g);

/* Why a case is or is not required; a SKIP of a required case narrows the
 * run (P10). */
typedef enum {
    RQ_REQUIRED,
    RQ_EXHAUSTIVE,      /* a Chunk/Exhaustive sweep without --exhaustive (P5.1) */
    RQ_PROFILE_SCOPE,   /* an op group only other profiles use (--profile) */
    RQ_BEYOND_IUT,      /* arrived after the spec version the IUT claims */
    RQ_NOT_CERTIFIED,   /* a requirement the certified version does not have */
} req_kind;

req_kind req_case_kind(const req_ctx *q, const case_result *c);
/* Sets every case's `required` from req_case_kind. */
void req_apply(const req_ctx *q, results *r);

/* "profile addmod113; op groups adamw, sqrt" — what the vector set tests
 * beyond the version the IUT claims and the IUT skipped (not implemented);
 * NULL when nothing. The caller frees it. */
char *req_not_implemented(const req_ctx *q, const results *r);

#endif
