/* problems.h — a list of findings, each one line naming the file, the JSON
 * path (or line) and what was expected. The manifest check and the loader
 * collect every problem instead of stopping at the first, so `lint` can
 * report them all (vectors/FORMAT.md: "the runner's loader is the lint"). */
#ifndef CONFORM_PROBLEMS_H
#define CONFORM_PROBLEMS_H

#include <stddef.h>
#include <stdio.h>

typedef struct {
    char **items;
    size_t n, cap;
} problems;

void problems_init(problems *p);
void problems_free(problems *p);
void problems_add(problems *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Prints each problem on its own line, prefixed. */
void problems_print(const problems *p, FILE *out, const char *prefix);

#endif
