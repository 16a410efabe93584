/* A deliberate defect for negative controls only: switches the FPU into
 * flush-to-zero mode so tests (and `isotrain info --force-ftz`) can show the
 * spec §2.2 probe firing on each host. Never called by a training run. */
#include "fpenv_force.h"

#if defined(__SSE__) || defined(__x86_64__) || defined(_M_X64)
#include <xmmintrin.h>
#endif

int it_fpenv_force_flush(void)
{
#if defined(__SSE__) || defined(__x86_64__) || defined(_M_X64)
    /* MXCSR bit 15 = FTZ, bit 6 = DAZ. Through the intrinsics, not inline
     * asm, so GCC, clang and MSVC (which has no x64 inline asm) all build it */
    _mm_setcsr(_mm_getcsr() | 0x8040u);
    return 0;
#elif defined(__aarch64__)
    /* FPCR bit 24 = FZ: flushes subnormal inputs and outputs */
    unsigned long fpcr;
    __asm__ volatile("mrs %0, fpcr" : "=r"(fpcr));
    fpcr |= 1ul << 24;
    __asm__ volatile("msr fpcr, %0" : : "r"(fpcr));
    return 0;
#elif defined(__arm__) && defined(__ARM_FP)
    /* FPSCR bit 24 = FZ */
    unsigned int fpscr;
    __asm__ volatile("vmrs %0, fpscr" : "=r"(fpscr));
    fpscr |= 1u << 24;
    __asm__ volatile("vmsr fpscr, %0" : : "r"(fpscr));
    return 0;
#else
    return -1; /* no flush mode known for this ISA */
#endif
}
