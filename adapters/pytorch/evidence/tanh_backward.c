/* The arithmetic of PyTorch's tanh backward, aten::tanh_backward(grad, y) =
 * grad * (1 - y*y), as one function, for compile_probe.sh: which instructions
 * does GCC make of it on each ISA at its default -ffp-contract=fast (what
 * Debian's libtorch was built with), and with -ffp-contract=off (spec §2.4)?
 * tanh_backward_neon is the same expression written with the NEON intrinsics
 * of ATen's Vectorized<float> on aarch64. */
float tanh_backward(float grad, float y)
{
    return grad * (1.0f - y * y);
}

#ifdef __aarch64__
#include <arm_neon.h>
float32x4_t tanh_backward_neon(float32x4_t grad, float32x4_t y)
{
    return vmulq_f32(grad, vsubq_f32(vdupq_n_f32(1.0f), vmulq_f32(y, y)));
}
#endif
