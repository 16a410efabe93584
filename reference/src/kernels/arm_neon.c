/* The neon kernel set: simd_body.h compiled with the aarch64 baseline (Advanced SIMD is mandatory) (mk/reference.mk
 * KERNEL_FLAGS; never an FMA flag). Selected by dispatch.c when AT_HWCAP has ASIMD. */
#if defined(__aarch64__)
#define IT_K_SET it_kernels_neon
#define IT_K_NAME "neon"
#define IT_VBYTES 16
#define IT_MR 8
#define IT_NV 2
#define IT_VSQRT(v) ((vf)vsqrtq_f32((float32x4_t)(v)))
#include <arm_neon.h>
#include "kernels/simd_body.h"
#else
typedef int it_kernels_neon_absent; /* other ISAs: an empty unit */
#endif
