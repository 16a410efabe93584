/* Chooses the kernel set (kernels.h): the best one this CPU runs, unless
 * ISOTRAIN_KERNELS or it_kernels_select names one. What the CPU runs is asked
 * of the CPU itself (CPUID and XGETBV on x86_64, AT_HWCAP on aarch64), so
 * under QEMU user mode it is the emulated CPU's answer. */
#include <stdlib.h>
#include <string.h>

#include "isotrain.h"
#include "kernels/kernels.h"

#if defined(__x86_64__)
#include <cpuid.h>
#endif
#if defined(__aarch64__) && defined(__linux__)
#include <sys/auxv.h>
#endif

#if defined(__x86_64__)
/* XCR0: which register states the OS saves on a context switch. A CPU with
 * AVX under an OS that does not save YMM must not use it. */
static unsigned long long xcr0(void)
{
    unsigned lo, hi;
    __asm__ __volatile__("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return ((unsigned long long)hi << 32) | lo;
}

static int x86_has(const char *name)
{
    unsigned a, b, c, d;
    if (strcmp(name, "sse2") == 0)
        return 1; /* part of x86_64 */
    if (!__get_cpuid(1, &a, &b, &c, &d))
        return 0;
    int avx = (c & (1u << 28)) && (c & (1u << 27)) /* AVX, OSXSAVE */ && (xcr0() & 0x6) == 0x6;
    if (strcmp(name, "avx") == 0)
        return avx;
    if (!avx || __get_cpuid_max(0, NULL) < 7)
        return 0;
    __cpuid_count(7, 0, a, b, c, d);
    if (strcmp(name, "avx2") == 0)
        return (b & (1u << 5)) != 0;

    if (strcmp(name, "avx512") == 0)
        return (b & (1u << 16)) != 0 && (xcr0() & 0xe6) == 0xe6; /* AVX-512F; opmask, ZMM_Hi256, Hi16_ZMM */
    return 0;
}
#endif

#if defined(__x86_64__)
/* CPUID.7.0:EBX.SHA, with CPUID.1:ECX.SSSE3 and .SSE4_1 (x86_sha.c uses both) */
static int x86_sha(void)
{
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & (1u << 9)) || !(c & (1u << 19)) || __get_cpuid_max(0, NULL) < 7)
        return 0;
    __cpuid_count(7, 0, a, b, c, d);
    return (b & (1u << 29)) != 0;
}
#endif

/* Every set this build has, worst first. */
static const it_kernel_set *const SETS[] = {
    &it_kernels_portable,
#if defined(__x86_64__)
    &it_kernels_sse2, &it_kernels_avx, &it_kernels_avx2, &it_kernels_avx512,
#endif
#if defined(__aarch64__)
    &it_kernels_neon,
#endif
};
enum { NSETS = sizeof SETS / sizeof SETS[0] };

static int runs_here(const it_kernel_set *k)
{
    if (k == &it_kernels_portable)
        return 1;
#if defined(__x86_64__)
    return x86_has(k->name);
#elif defined(__aarch64__) && defined(__linux__)
    return (getauxval(AT_HWCAP) & (1ul << 1)) != 0; /* HWCAP_ASIMD */
#else
    return 0;
#endif
}

static const it_kernel_set *active;
static it_sha256_blocks_fn sha_blocks = it_sha256_blocks_portable;
static const char *sha_name = "portable";

/* The set and, with it, the SHA-256 compression: the CPU's instructions
 * with every set but portable (which stays the definition end to end). */
static void set_active(const it_kernel_set *k)
{
    active = k;
    sha_blocks = it_sha256_blocks_portable;
    sha_name = "portable";
    if (k == &it_kernels_portable)
        return;
#if defined(__x86_64__)
    if (x86_sha()) {
        sha_blocks = it_sha256_blocks_shani;
        sha_name = "sha-ni";
    }
#elif defined(__aarch64__) && defined(__linux__)
    if (getauxval(AT_HWCAP) & (1ul << 6)) { /* HWCAP_SHA2 */
        sha_blocks = it_sha256_blocks_armv8;
        sha_name = "armv8-sha2";
    }
#endif
}

static const it_kernel_set *best(void)
{
    for (size_t i = NSETS; i-- > 0;)
        if (runs_here(SETS[i]))
            return SETS[i];
    return &it_kernels_portable;
}

int it_kernels_select(const char *name)
{
    if (!name || strcmp(name, "auto") == 0) {
        set_active(best());
        return 0;
    }
    for (size_t i = 0; i < NSETS; i++)
        if (strcmp(SETS[i]->name, name) == 0) {
            if (!runs_here(SETS[i]))
                return -2;
            set_active(SETS[i]);
            return 0;
        }
    /* a set of another instruction set: known, but not in this build */
    const char *known = it_kernels_known();
    size_t len = strlen(name);
    for (const char *k = strstr(known, name); k; k = strstr(k + 1, name))
        if ((k == known || k[-1] == ' ') && (k[len] == ' ' || k[len] == '\0'))
            return -2;
    return -1;
}

int it_kernels_select_env(void)
{
    const char *env = getenv("ISOTRAIN_KERNELS");
    return it_kernels_select(env && *env ? env : NULL);
}

const it_kernel_set *it_kernels(void)
{
    if (!active && it_kernels_select_env() != 0)
        set_active(best()); /* the CLI reports a bad ISOTRAIN_KERNELS before it gets here */
    return active;
}

/* 128-bit tiles for the products on AMD family 17h models below 0x30 (Zen,
 * Zen+: the 256-bit operations are two 128-bit ones) and Hygon's Dhyana
 * (family 18h, the same core); everything else gets the set's full width. */
static int narrow_by_cpu(void)
{
#if defined(__x86_64__)
    unsigned a, b, c, d;
    if (!__get_cpuid(0, &a, &b, &c, &d))
        return 0;
    int amd = b == 0x68747541u && d == 0x69746e65u && c == 0x444d4163u;   /* "AuthenticAMD" */
    int hygon = b == 0x6f677948u && d == 0x6e65476eu && c == 0x656e6975u; /* "HygonGenuine" */
    if ((!amd && !hygon) || !__get_cpuid(1, &a, &b, &c, &d))
        return 0;
    unsigned family = ((a >> 8) & 0xf) + ((a >> 20) & 0xff), model = ((a >> 4) & 0xf) | ((a >> 12) & 0xf0);
    return (family == 0x17 && model < 0x30) || family == 0x18;
#else
    return 0;
#endif
}

float *it_gemm_scratch(void)
{
    static _Thread_local float buf[IT_GEMM_KC * IT_GEMM_NC + IT_GEMM_MC * IT_GEMM_KC] __attribute__((aligned(64)));
    return buf;
}

static int gemm_tile = -1; /* -1: not chosen yet */

int it_gemm_tile_select(const char *name)
{
    if (!name || !*name || strcmp(name, "auto") == 0)
        gemm_tile = narrow_by_cpu();
    else if (strcmp(name, "narrow") == 0)
        gemm_tile = 1;
    else if (strcmp(name, "wide") == 0)
        gemm_tile = 0;
    else
        return -1;
    return 0;
}

int it_gemm_narrow(void)
{
    if (gemm_tile < 0 && it_gemm_tile_select(getenv("ISOTRAIN_GEMM_TILE")) != 0)
        gemm_tile = narrow_by_cpu(); /* an unknown value: the automatic choice */
    return gemm_tile;
}

it_sha256_blocks_fn it_sha256_blocks(void)
{
    it_kernels();
    return sha_blocks;
}

const char *it_sha256_name(void)
{
    it_kernels();
    return sha_name;
}

const char *it_kernels_name(void) { return it_kernels()->name; }

size_t it_kernels_available(const char **names, size_t cap)
{
    size_t n = 0;
    for (size_t i = 0; i < NSETS; i++)
        if (runs_here(SETS[i])) {
            if (n < cap)
                names[n] = SETS[i]->name;
            n++;
        }
    return n;
}

const char *it_kernels_known(void)
{
    return "portable sse2 avx avx2 avx512 neon";
}

void it_expf_array(const float *x, float *y, size_t n) { it_kernels()->expf_v(x, y, n, 1); }
void it_logf_array(const float *x, float *y, size_t n) { it_kernels()->logf_v(x, y, n, 1); }
void it_tanhf_array(const float *x, float *y, size_t n) { it_kernels()->tanhf_v(x, y, n); }
