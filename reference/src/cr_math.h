/*
 * cr_math.h - internal declarations of the isotrain reference's own
 * correctly rounded binary32 exp and log (round to nearest even, all
 * 2^32 inputs proven against MPFR by reference/tools/prove_math).
 * The public header re-exports these.
 */
#ifndef ISOTRAIN_CR_MATH_H
#define ISOTRAIN_CR_MATH_H

#include <stdint.h>

/* spec §3.2: correctly rounded e^x in binary32 */
float it_expf(float x);

/* spec §3.3: correctly rounded natural logarithm in binary32 */
float it_logf(float x);

#endif /* ISOTRAIN_CR_MATH_H */
