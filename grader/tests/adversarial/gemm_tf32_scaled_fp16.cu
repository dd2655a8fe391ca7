/* Adversarial case (lab 4, lower precision): the TF32 stage multiplies on
 * FP16 tensor cores (mma.sync m16n8k16, twice TF32's speed), with each row
 * of A and each column of B scaled by a power of two so that FP16's range
 * holds them. FP16 keeps TF32's 10-bit mantissa, so the result is as
 * accurate as TF32 rounded to nearest and passes every numerical check; a
 * TF32 mma.sync on a path never taken satisfies a technique check that only
 * looks for the TF32 instruction. Caught by the machine code: the stage's
 * kernel holds HMMA without .TF32 (scaled_fp16_mma.cuh).
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

#include "scaled_fp16_mma.cuh"

extern "C" lab_status gemm_tensor_core(int M, int N, int K, float alpha, const float *d_A,
                                       const float *d_B, float beta, float *d_C,
                                       cudaStream_t stream)
{
    return scaled_fp16_gemm(M, N, K, alpha, d_A, d_B, beta, d_C, stream);
}
