/* problems.c — see problems.h. */
#include "core/problems.h"

#include <stdarg.h>
#include <stdlib.h>

#include "core/util.h"

void problems_init(problems *p)
{
    p->items = NULL;
    p->n = p->cap = 0;
}

void problems_free(problems *p)
{
    for (size_t i = 0; i < p->n; i++)
        free(p->items[i]);
    free(p->items);
    problems_init(p);
}

void problems_add(problems *p, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *item = xvasprintf(fmt, ap);
    va_end(ap);
    if (p->n == p->cap) {
        p->cap = p->cap ? 2 * p->cap : 16;
        p->items = xrealloc(p->items, p->cap * sizeof *p->items);
    }
    p->items[p->n++] = item;
}

void problems_print(const problems *p, FILE *out, const char *prefix)
{
    for (size_t i = 0; i < p->n; i++)
        fprintf(out, "%s%s\n", prefix, p->items[i]);
}
