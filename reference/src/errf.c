/* The one way a function of the reference explains a failure: a message
 * into the caller's buffer, and the status it returns. */
#include <stdarg.h>
#include <stdio.h>

#include "isotrain_profile.h"

int it_errf(char *err, size_t cap, int status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, cap, fmt, ap);
    va_end(ap);
    return status;
}
