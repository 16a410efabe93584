/* The sse2 kernel set: simd_body.h compiled with -msse2 (the x86_64 baseline) (mk/reference.mk
 * KERNEL_FLAGS; never an FMA flag). Selected by dispatch.c when nothing better is available. */
#if defined(__x86_64__)
#define IT_K_SET it_kernels_sse2
#define IT_K_NAME "sse2"
#define IT_VBYTES 16
#define IT_MR 3
#define IT_NV 4
#define IT_VSQRT(v) ((vf)_mm_sqrt_ps((__m128)(v)))
#include <emmintrin.h>
#include "kernels/simd_body.h"
#else
typedef int it_kernels_sse2_absent; /* other ISAs: an empty unit */
#endif
