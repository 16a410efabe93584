/* Group sweep (iut-protocol P5.1 over spec 3.2 and 3.3): exp and log over
 * ranges of inputs as one SHA-256 each, the Quick ranges, the 256 Chunks
 * and all 2^32 inputs. */
#include <pthread.h>
#include <string.h>

#include "mv.h"

/* ---- sweeps (iut-protocol P5.1) ------------------------------------------------------------- */

enum { SWEEP_BLOCK = 4096 };

/* P5.1: the little-endian results, NaN canonicalized */
static void sweep_bytes(float (*f)(float), uint64_t first, size_t m, unsigned char *bytes)
{
    float y[SWEEP_BLOCK];
    for (size_t k = 0; k < m; k++) {
        uint32_t u = U(f(F((uint32_t)(first + k))));
        y[k] = F((u & 0x7fffffffu) > 0x7f800000u ? 0x7fc00000u : u);
    }
    it_store_f32le(y, m, bytes);
}

static void sweep_range(float (*f)(float), uint32_t lo, uint64_t count, char hex[65])
{
    static unsigned char bytes[4 * SWEEP_BLOCK];
    it_sha256_ctx c;
    it_sha256_init(&c);
    for (uint64_t done = 0; done < count; done += SWEEP_BLOCK) {
        size_t m = count - done < SWEEP_BLOCK ? (size_t)(count - done) : SWEEP_BLOCK;
        sweep_bytes(f, (uint64_t)lo + done, m, bytes);
        it_sha256_update(&c, bytes, 4 * m);
    }
    unsigned char d[32];
    it_sha256_final(&c, d);
    it_hex(d, 32, hex);
}

typedef struct {
    float (*f)(float);
    const char *name;
    char chunk[256][65];
    char total[65];
    double seconds;
} full_sweep;

/* All 2^32 inputs once: each block feeds its chunk's digest and the total. */
static void *full_sweep_run(void *arg)
{
    full_sweep *s = arg;
    double t0 = now();
    unsigned char *bytes = malloc(4 * SWEEP_BLOCK);
    if (!bytes)
        die("out of memory");
    it_sha256_ctx total;
    it_sha256_init(&total);
    for (uint64_t c = 0; c < 256; c++) {
        it_sha256_ctx chunk;
        it_sha256_init(&chunk);
        for (uint64_t i = c << 24; i < (c + 1) << 24; i += SWEEP_BLOCK) {
            sweep_bytes(s->f, i, SWEEP_BLOCK, bytes);
            it_sha256_update(&chunk, bytes, 4 * SWEEP_BLOCK);
            it_sha256_update(&total, bytes, 4 * SWEEP_BLOCK);
        }
        unsigned char d[32];
        it_sha256_final(&chunk, d);
        it_hex(d, 32, s->chunk[c]);
    }
    unsigned char d[32];
    it_sha256_final(&total, d);
    it_hex(d, 32, s->total);
    free(bytes);
    s->seconds = now() - t0;
    return NULL;
}
/* ---- group: sweep (iut-protocol P5.1 over spec 3.2, 3.3) -------------------------------------------- */

int full_sweeps = 1;
static full_sweep sweeps[2] = {{it_expf, "exp", {{0}}, {0}, 0}, {it_logf, "log", {{0}}, {0}, 0}};

static void sweep_case(group *g, const char *fn, uint32_t lo, uint64_t count, const char *hex, unsigned flags,
                       const char *comment)
{
    op_case(g, "sweep", flags,
            VALS(IN_NAME("fn", fn), IN_U32("lo", &lo, 1), IN_INT("count", count), OUT_HEX("sha256", hex)), comment);
}

/* What chunk c (inputs c*2^24 .. c*2^24 + 2^24-1) holds, for its comment. */
static void chunk_comment(const char *fn, unsigned c, char *out, size_t cap)
{
    const char *sign = (c >> 7) ? "-" : "+";
    unsigned e0 = (c & 0x7f) << 1; /* biased exponents e0 and e0 + 1 */
    char range[96];
    if (e0 == 0)
        snprintf(range, sizeof range, "%s0, the %s subnormals and |x| in [2^-126, 2^-125)", sign,
                 (c >> 7) ? "negative" : "positive");
    else if (e0 == 254)
        snprintf(range, sizeof range, "%sx with |x| in [2^127, 2^128), %sinf and the %sNaNs", sign, sign, sign);
    else
        snprintf(range, sizeof range, "%sx with |x| in [2^%d, 2^%d)", sign, (int)e0 - 127, (int)e0 + 2 - 127);
    snprintf(out, cap, "%s on inputs %08x..%08x (chunk %u of 256): %s", fn, c << 24, (c << 24) | 0xffffffu, c, range);
}

void gen_sweep(void)
{
    group g;
    group_begin(&g, "sweep", "3");
    static const struct {
        int fn; /* 0 exp, 1 log */
        uint32_t lo;
        const char *why;
    } quick[] = {
        {0, 0x33800000u - 0x80000u, "exp around x = 2^-24: where exp(x) rises above 1"},
        {0, 0xb3000000u - 0x80000u, "exp around x = -2^-25: where exp(x) drops below 1"},
        {0, 0x3f800000u - 0x80000u, "exp around x = 1"},
        {0, 0xc1000000u, "exp on (-9, -8]: typical softmax arguments"},
        {0, 0xc2ae0000u - 0x80000u, "exp on (-91, -83]: across the normal/subnormal result boundary near -87.34"},
        {0, 0xc2cf0000u - 0x80000u,
         "exp on (-107.5, -99.5]: the last subnormal results and the underflow to 0 near -103.97"},
        {0, 0x42b17218u - 0x80000u, "exp around the overflow threshold 88.72"},
        {0, 0x7f800000u - 0x80000u, "exp on the largest finite values, +inf and the first 2^19 positive NaNs"},
        {1, 0x00000000u, "log on +0 and the 2^20 smallest positive subnormals"},
        {1, 0x80000000u, "log on -0 and the 2^20 smallest negative subnormals (NaN)"},
        {1, 0x00800000u - 0x80000u, "log around the smallest normal 2^-126"},
        {1, 0x3f800000u - 0x100000u, "log on [1 - 2^-4, 1): just below 1"},
        {1, 0x3f800000u, "log on [1, 1 + 2^-3): just above 1"},
        {1, 0x40000000u - 0x80000u, "log around 2"},
        {1, 0x41800000u, "log on [16, 18): typical softmax denominators"},
        {1, 0x7f800000u - 0x80000u, "log on the largest finite values, +inf and the first 2^19 positive NaNs"},
    };
    for (size_t i = 0; i < sizeof quick / sizeof quick[0]; i++) {
        char hex[65];
        full_sweep *s = &sweeps[quick[i].fn];
        sweep_range(s->f, quick[i].lo, (uint64_t)1 << 20, hex);
        sweep_case(&g, s->name, quick[i].lo, (uint64_t)1 << 20, hex, FL(QUICK), quick[i].why);
    }
    for (int f = 0; f < 2 && full_sweeps; f++)
        for (unsigned c = 0; c < 256; c++) {
            char comment[256];
            chunk_comment(sweeps[f].name, c, comment, sizeof comment);
            sweep_case(&g, sweeps[f].name, c << 24, (uint64_t)1 << 24, sweeps[f].chunk[c], FL(CHUNK), comment);
        }
    if (full_sweeps) {
        sweep_case(&g, "exp", 0, (uint64_t)1 << 32, sweeps[0].total, FL(EXHAUSTIVE),
                   "exp on all 2^32 binary32 inputs in one digest");
        sweep_case(&g, "log", 0, (uint64_t)1 << 32, sweeps[1].total, FL(EXHAUSTIVE),
                   "log on all 2^32 binary32 inputs in one digest");
    }
    group_end(&g);
}

/* The two 2^32 sweeps run on threads of their own while every other group
 * is built. */
static pthread_t sweep_threads[2];

void sweeps_start(void)
{
    if (!full_sweeps) {
        fprintf(stderr, "make_vectors: --quick: no Chunk or Exhaustive sweeps; this set is NOT the vector set\n");
        return;
    }
    for (int f = 0; f < 2; f++)
        if (pthread_create(&sweep_threads[f], NULL, full_sweep_run, &sweeps[f]) != 0)
            die("cannot start the %s sweep thread", sweeps[f].name);
    fprintf(stderr, "make_vectors: sweeping exp and log over all 2^32 inputs in two threads (minutes)...\n");
}

void sweeps_join(void)
{
    if (full_sweeps)
        for (int f = 0; f < 2; f++)
            if (pthread_join(sweep_threads[f], NULL) != 0)
                die("cannot join the %s sweep thread", sweeps[f].name);
}

void sweeps_report(void) { fprintf(stderr, "  sweeps: exp %.0f s, log %.0f s\n", sweeps[0].seconds, sweeps[1].seconds); }
