/* optable.h — the operations of spec/iut-protocol.md P5: names, input and
 * output keys in the order the runner sends them, their P4 types and the
 * lengths P5 requires. */
#ifndef CONFORM_OPTABLE_H
#define CONFORM_OPTABLE_H

#include <stddef.h>

#include "protocol/line_codec.h"

typedef struct {
    const char *key;
    val_type type;
    /* Array length as a product of variables and constants ("out*in",
     * "rows*dim", "1", "13088"); "@tensor" = the size of the mlp13k tensor
     * named by the `tensor` input; NULL for scalars. Int inputs bind the
     * variable of their own name; an array binds the one unbound variable of
     * its expression. */
    const char *len;
} op_field;

typedef struct {
    const char *name;
    const char *clause; /* isotrain-spec.md clause */
    op_field in[8];
    size_t n_in;
    op_field out[4];
    size_t n_out;
} op_def;

extern const op_def op_table[];
extern const size_t op_table_n;

/* The op of this name, or NULL. */
const op_def *op_find(const char *name, size_t len);

/* P5 lengths and input ranges. in[] holds d->n_in decoded inputs (in table
 * order); out[] d->n_out decoded outputs or NULL to check inputs only.
 * Returns 0, or -1 with *where_out (0 input / 1 output) and *where_index set
 * to the offending field and why filled with what was expected. */
int op_check(const op_def *d, const value *in, const value *out, int *where_out, size_t *where_index,
             char *why, size_t cap);

#endif
