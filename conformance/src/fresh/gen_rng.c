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
        for (int k = 0; k < 4; k++) {
            uint32_t ctr[4], key[2], out[4];
            for (int i = 0; i < 4; i++)
                ctr[i] = fresh_u32(r);
            key[0] = fresh_u32(r);
            key[1] = fresh_u32(r);
            it_philox4x32_10(ctr, key, out);
            sbuf s;
            sbuf_init(&s);
            fresh_kv_u32(&s, "ctr", ctr, 4);
            fresh_kv_u32(&s, "key", key, 2);
            fresh_want_u32(&fresh_add(l, group, "philox", "random counter and key", sbuf_take(&s))[0], out, 4);
        }
    } else if (!strcmp(group, "rng")) {
        for (int k = 0; k < 3; k++) {
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
            fresh_want_u32(&fresh_add(l, group, "rng_u32", k == 1 ? "Edge: index carry" : "random seed, stream, index",
                                      kv)[0],
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
        uint32_t n = 1 + fresh_u32(r) % 0xfffffffeu;
        for (int i = 0; i < N; i++)
            k32[i] = it_u32_below(u[i], n);
        sbuf_init(&s);
        fresh_kv_u32(&s, "r", u, N);
        sbuf_printf(&s, " n=%u", (unsigned)n);
        fresh_want_u32(&fresh_add(l, group, "u32_below", "random words and bound", sbuf_take(&s))[0], k32, N);
    }
    return l->n - before;
}
