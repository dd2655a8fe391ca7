/* Adversarial case (lab 4, lower precision): gemm_tf32_scaled_fp16 with its
 * FP16 mma.sync in a __noinline__ device function that the kernel calls, in
 * case the check of the machine code read only the kernel's own body. The
 * lab's build compiles the whole program at once (no -rdc), which places a
 * callee's code inside each calling kernel's listing; a callee listed apart
 * as "$kernel$callee" counts as the kernel's too (grader/sass.c).
 * lab: 4
 * grade-args: --stage 8
 * expect: 8 correctness REJECTED
 * expect: 8 speed SKIPPED
 * expect-output: tensor-core instructions below TF32's precision
 * expect-output: launched scaled_fp16_kernel, which holds HMMA.16816.F32
 */
#define gemm_tensor_core gemm_tensor_core_reference
#include "../../../solutions/4-gemm/gemm.cu"
#undef gemm_tensor_core

#define SCALED_FP16_CALLED
#include "scaled_fp16_mma.cuh"

extern "C" lab_status gemm_tensor_core(int M, int N, int K, float alpha, const float *d_A,
                                       const float *d_B, float beta, float *d_C,
                                       cudaStream_t stream)
{
    return scaled_fp16_gemm(M, N, K, alpha, d_A, d_B, beta, d_C, stream);
}
