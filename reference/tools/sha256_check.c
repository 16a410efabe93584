/* sha256_check: the SHA-256 of every kernel set this CPU runs (each set's
 * compression: the portable definition, or the CPU's SHA instructions,
 * kernels/dispatch.c) against the known answers and against each other, on
 * every prefix of a pseudo-random message of a few MiB (every length from 0
 * bytes up, so every padding case and every block count) and on one-shot
 * messages of random lengths up to that size. libc only and static, so the
 * same program runs under qemu-aarch64, where `-cpu cortex-a72` has the
 * Armv8 SHA2 instructions (make check-sha256, part of make test-cross).
 *
 *   sha256_check [MIB]    (default 2)
 *
 * Prints one line per set and a last line with the fold of every prefix
 * digest (FNV-1a 64 over the digests, independent of the SHA code under
 * test), which the same message gives on every host; exit 0 only if every
 * known answer matched and every set gave the same digests. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "isotrain.h"
#include "sha256_kats.h"

static uint64_t fnv(uint64_t h, const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

static uint64_t xorshift(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static int hex_is(const unsigned char d[32], const char *want)
{
    char hex[65];
    it_hex(d, 32, hex);
    return strcmp(hex, want) == 0;
}

int main(int argc, char **argv)
{
    long mib = argc > 1 ? atol(argv[1]) : 2;
    if (mib < 1 || mib > 64) {
        fprintf(stderr, "usage: sha256_check [MIB 1..64]\n");
        return 2;
    }
    const size_t n = (size_t)mib << 20;
    unsigned char *msg = malloc(n > 1000000 ? n : 1000000), d[32];
    if (!msg)
        return 2;
    const char *sets[16];
    size_t ns = it_kernels_available(sets, 16);
    uint64_t first_prefix = 0, first_oneshot = 0;
    int ok = 1;
    for (size_t k = 0; k < ns; k++) {
        it_kernels_select(sets[k]);
        size_t kats = 0;
        unsigned char buf[256];
        for (size_t i = 0; i < IT_SHA256_NKATS; i++) {
            size_t len = it_sha256_kat_msg(&IT_SHA256_KATS[i], buf, sizeof buf);
            it_sha256(buf, len, d);
            kats += hex_is(d, IT_SHA256_KATS[i].md);
        }
        memset(msg, 'a', 1000000);
        it_sha256(msg, 1000000, d);
        int million = hex_is(d, IT_SHA256_MILLION_A);
        /* every prefix length 0..n, one byte at a time: a copy of the running
         * context is finished at each length */
        uint64_t s = 0x9e3779b97f4a7c15ull;
        for (size_t i = 0; i < n; i++)
            msg[i] = (unsigned char)(xorshift(&s) >> 56);
        uint64_t prefix = 0xcbf29ce484222325ull;
        it_sha256_ctx c, f;
        it_sha256_init(&c);
        for (size_t len = 0;; len++) {
            f = c;
            it_sha256_final(&f, d);
            prefix = fnv(prefix, d, 32);
            if (len == n)
                break;
            it_sha256_update(&c, msg + len, 1);
        }
        /* one-shot: whole blocks straight from the message, random lengths */
        uint64_t oneshot = 0xcbf29ce484222325ull, r = 12345;
        for (int i = 0; i < 96; i++) { /* 2^k - 1, 2^k, 2^k + 1 for k < 22, then random lengths */
            size_t len = i < 66 ? ((size_t)1 << (i / 3)) - 1 + (size_t)(i % 3) : (size_t)(xorshift(&r) % (n + 1));
            if (len > n)
                len = n;
            it_sha256(msg + (n - len), len, d);
            oneshot = fnv(oneshot, d, 32);
        }
        int same = k == 0 || (prefix == first_prefix && oneshot == first_oneshot);
        if (k == 0)
            first_prefix = prefix, first_oneshot = oneshot;
        int good = kats == IT_SHA256_NKATS && million && same;
        ok &= good;
        printf("sha256_check: set=%s compression=%s kats=%zu/%zu million_a=%s prefixes=%zu prefix_fold=%016llx "
               "oneshot_fold=%016llx %s\n",
               sets[k], it_sha256_name(), kats, (size_t)IT_SHA256_NKATS, million ? "ok" : "WRONG", n + 1,
               (unsigned long long)prefix, (unsigned long long)oneshot,
               good ? "ok" : "FAILED (a known answer, or a digest another set disagrees with)");
    }
    printf("sha256_check: %s: prefix_fold=%016llx oneshot_fold=%016llx over %zu MiB\n",
           ok ? "every set agrees" : "FAILED", (unsigned long long)first_prefix, (unsigned long long)first_oneshot,
           (size_t)mib);
    free(msg);
    return ok ? 0 : 1;
}
