/* gen_rng.c — fresh cases for philox (spec §6.1) and the rng group (§6.2
 * rng_u32 with a random seed, stream and index, including indices that carry
 * into the counter's high word; §6.3 u32_to_symmetric; §6.4 u32_below). */
#include <string.h>

#include "fresh/fresh.h"
#include "isotrain.h"

size_t fresh_gen_rng(fresh_list *l, const char *group, fresh_rng *r)
{
    size_t before = l->n;
    if (!strcmp(group, "philox")) {
        for (int k = 0; k < FRESH_MIN_PER_GROUP; k++) {
            uint32_t ctr[4], key[2], out[4];
            for (int i = 0; i < 4; i++)
                ctr[i] = fresh_u32(r);
            key[0] = fresh_u32(r);
            key[1] = fresh_u32(r);
            if (k % 4 == 3) /* Edge: a counter word about to carry, a key word of all ones */
                ctr[0] = 0xffffffffu, key[1] = 0xffffffffu;
            it_philox4x32_10(ctr, key, out);
            sbuf s;
            sbuf_init(&s);
            fresh_kv_u32(&s, "ctr", ctr, 4);
            fresh_kv_u32(&s, "key", key, 2);
            fresh_want_u32(&fresh_add(l, group, "philox",
                                      k % 4 == 3 ? "Edge: a counter word about to carry, a key word of all ones"
                                                 : "random counter and key",
                                      sbuf_take(&s))[0],
                           out, 4);
        }
    } else if (!strcmp(group, "rng")) {
        /* four rounds of: rng_u32 (random, and across a 2^32 index carry),
         * u32_to_symmetric, u32_below with a bound of another class each */
        for (int rep = 0; rep < 4; rep++) {
            for (int k = 0; k < 2; k++) {
                enum { COUNT = 12 };
                uint64_t seed = (uint64_t)fresh_u32(r) << 32 | fresh_u32(r);
                uint32_t stream = fresh_u32(r);
                /* k = 1: just below a 2^32 boundary of the index, so the run crosses it */
                uint64_t index = k == 1 ? ((uint64_t)fresh_u32(r) << 32 | (0xffffffffu - 5)) : fresh_u32(r);
                uint32_t w[COUNT];
                for (int i = 0; i < COUNT; i++)
                    w[i] = it_rng_u32(seed, stream, index + (uint64_t)i);
                char *kv = xasprintf("seed=%016llx stream=%u index=%016llx count=%d", (unsigned long long)seed,
                                     (unsigned)stream, (unsigned long long)index, COUNT);
                fresh_want_u32(
                    &fresh_add(l, group, "rng_u32", k == 1 ? "Edge: index carry" : "random seed, stream, index", kv)[0],
                    w, COUNT);
            }
            enum { N = 16 };
            uint32_t u[N], k32[N];
            float y[N];
            for (int i = 0; i < N; i++) {
                u[i] = fresh_u32(r);
                y[i] = it_u32_to_symmetric(u[i]);
            }
            sbuf s;
            sbuf_init(&s);
            fresh_kv_u32(&s, "r", u, N);
            fresh_want_f32(&fresh_add(l, group, "u32_to_symmetric", "random words", sbuf_take(&s))[0], y, N);
            static const char *const bound[4] = {"random words and bound", "Edge: a small bound (2 to 17)",
                                                 "Edge: a power-of-two bound", "Edge: a bound near 2^32"};
            uint32_t n = rep == 0   ? 1 + fresh_u32(r) % 0xfffffffeu
                         : rep == 1 ? 2 + fresh_below(r, 16)
                         : rep == 2 ? 1u << (1 + fresh_below(r, 31))
                                    : 0xffffffffu - fresh_below(r, 1024);
            for (int i = 0; i < N; i++)
                k32[i] = it_u32_below(u[i], n);
            sbuf_init(&s);
            fresh_kv_u32(&s, "r", u, N);
            sbuf_printf(&s, " n=%u", (unsigned)n);
            fresh_want_u32(&fresh_add(l, group, "u32_below", bound[rep], sbuf_take(&s))[0], k32, N);
        }
    }
    return l->n - before;
}
