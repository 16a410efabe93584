/* The train verb's option table (train_options.c). */
#ifndef IT_IUT_OPTIONS_H
#define IT_IUT_OPTIONS_H

#include "iut.h"

typedef struct {
    const char *name;
    int takes_value;
    int data_parallel; /* only a data-parallel front end knows it */
    int (*set)(iut_train_request *r, const char *flag, const char *value, char *err, size_t cap);
    size_t field; /* set == NULL: a const char * (an option with a value) or an int flag at this offset */
} iut_option;

extern const iut_option iut_train_options[];
extern const size_t iut_n_train_options;

/* Syntax only: 0, or IUT_EXIT_USAGE with the message in err. */
int iut_parse_train_options(int argc, char **argv, int data_parallel, iut_train_request *r, char *err, size_t cap);
/* Whether the option `name` was on the command line. */
int iut_given(const iut_train_request *r, const char *name);

#endif
