/* ulp.c — see ulp.h. */
#include "core/ulp.h"

int f32_bits_nan(uint32_t u)
{
    return (u & 0x7fffffffu) > 0x7f800000u;
}

/* spec/iut-protocol.md P6 */
int f32_same(uint32_t a, uint32_t b)
{
    return a == b || (f32_bits_nan(a) && f32_bits_nan(b));
}

static int64_t ordered(uint32_t u)
{
    int64_t mag = (int64_t)(u & 0x7fffffffu);
    return (u >> 31) ? -mag : mag;
}

uint64_t ulp_distance(uint32_t a, uint32_t b)
{
    if (f32_bits_nan(a) || f32_bits_nan(b))
        return UINT64_MAX;
    int64_t d = ordered(a) - ordered(b);
    return (uint64_t)(d < 0 ? -d : d);
}

void ulp_hist_init(ulp_hist *h)
{
    h->differing = h->b1 = h->b2_3 = h->b4_15 = h->b16_255 = h->b256 = h->sign_nan = 0;
    h->max_ulp = 0;
}

void ulp_hist_add(ulp_hist *h, uint32_t got, uint32_t want)
{
    h->differing++;
    if (f32_bits_nan(got) || f32_bits_nan(want) || ((got ^ want) >> 31)) {
        h->sign_nan++;
        return;
    }
    uint64_t d = ulp_distance(got, want);
    if (d > h->max_ulp)
        h->max_ulp = d;
    if (d <= 1)
        h->b1++;
    else if (d <= 3)
        h->b2_3++;
    else if (d <= 15)
        h->b4_15++;
    else if (d <= 255)
        h->b16_255++;
    else
        h->b256++;
}

void ulp_hist_text(const ulp_hist *h, sbuf *out)
{
    sbuf_printf(out, "1 ULP: %zu, 2-3: %zu, 4-15: %zu, 16-255: %zu, >=256: %zu, sign/NaN: %zu", h->b1, h->b2_3,
                h->b4_15, h->b16_255, h->b256, h->sign_nan);
}
