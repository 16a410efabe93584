/* ulp.h — comparing binary32 values: spec/iut-protocol.md P6 equality (NaN
 * by class, +0 and -0 distinct) and ULP distances for localization. */
#ifndef CONFORM_ULP_H
#define CONFORM_ULP_H

#include <stddef.h>
#include <stdint.h>

#include "core/util.h"

int f32_bits_nan(uint32_t u);
/* P6: equal bits, or both NaN. */
int f32_same(uint32_t a, uint32_t b);
/* Distance in units in the last place between two non-NaN binary32 values:
 * the number of representable values between them, counted across zero
 * (+0 and -0 are one point); UINT64_MAX if either is NaN. */
uint64_t ulp_distance(uint32_t a, uint32_t b);

/* A histogram of ULP distances of differing elements. Buckets: 1, 2-3, 4-15,
 * 16-255, >=256, and sign/NaN (signs differ, incl. +0 vs -0, or one NaN). */
typedef struct {
    size_t differing;
    size_t b1, b2_3, b4_15, b16_255, b256, sign_nan;
    uint64_t max_ulp; /* over the differing pairs outside sign/NaN */
} ulp_hist;

void ulp_hist_init(ulp_hist *h);
/* Adds a pair that is not P6-equal. */
void ulp_hist_add(ulp_hist *h, uint32_t got, uint32_t want);
/* "1 ULP: 3, 2-3: 0, ..." */
void ulp_hist_text(const ulp_hist *h, sbuf *out);

#endif
