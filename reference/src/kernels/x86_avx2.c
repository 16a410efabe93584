/* The avx2 kernel set: simd_body.h compiled with -mavx2 (mk/reference.mk
 * KERNEL_FLAGS; never an FMA flag). Selected by dispatch.c when CPUID has AVX2 and the OS saves YMM state. */
#if defined(__x86_64__)
#ifndef __AVX2__
#error "x86_avx2.c needs -mavx2 (mk/reference.mk)"
#endif
#define IT_K_SET it_kernels_avx2
#define IT_K_NAME "avx2"
#define IT_VBYTES 32
#define IT_MR 6
#define IT_NV 2
#define IT_VSQRT(v) ((vf)_mm256_sqrt_ps((__m256)(v)))
#include <immintrin.h>
#include "kernels/simd_body.h"
#else
typedef int it_kernels_avx2_absent; /* other ISAs: an empty unit */
#endif
