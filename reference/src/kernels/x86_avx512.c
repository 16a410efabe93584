/* The avx512 kernel set: simd_body.h compiled with -mavx512f (mk/reference.mk
 * KERNEL_FLAGS; never an FMA flag). Selected by dispatch.c when CPUID has AVX-512F and the OS saves ZMM state. */
#if defined(__x86_64__)
#ifndef __AVX512F__
#error "x86_avx512.c needs -mavx512f (mk/reference.mk)"
#endif
#define IT_K_SET it_kernels_avx512
#define IT_K_NAME "avx512"
#define IT_VBYTES 64
#define IT_MR 12
#define IT_NV 2
#define IT_VSQRT(v) ((vf)_mm512_sqrt_ps((__m512)(v)))
#include <immintrin.h>
#include "kernels/simd_body.h"
#else
typedef int it_kernels_avx512_absent; /* other ISAs: an empty unit */
#endif
