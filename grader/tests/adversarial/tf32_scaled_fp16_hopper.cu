/* Adversarial case (lab 7, lower precision): the TF32 bonus stage
 * multiplies on FP16 tensor cores (mma.sync m16n8k16), with each row of A
 * and each column of B scaled by a power of two so that FP16's range holds
 * lab 4's inputs. FP16 keeps TF32's 10-bit mantissa, so every numerical
 * check passes; a TF32 mma.sync on a path never taken carries the .TF32
 * the technique check looks for. Caught by the machine code: the stage's
 * kernel holds HMMA without .TF32 (scaled_fp16_mma.cuh). Built for sm_90a,
 * as lab 7 is.
 * lab: 7
 * grade-args: --stage 5
 * expect: 5 correctness REJECTED
 * expect: 5 speed SKIPPED
 * expect-output: tensor-core instructions below TF32's precision
 * expect-output: launched scaled_fp16_kernel, which holds HMMA.16816.F32
 */
#define hopper_tf32 hopper_tf32_reference
#include "../../../solutions/7-hopper/hopper.cu"
#undef hopper_tf32

#include "scaled_fp16_mma.cuh"

extern "C" lab_status hopper_tf32(int M, int N, int K, const float *d_A, const float *d_B,
                                  float *d_C, hopper_tensor_map_fn tensor_map,
                                  cudaStream_t stream)
{
    (void)tensor_map;
    return scaled_fp16_gemm(M, N, K, 1.0f, d_A, d_B, 0.0f, d_C, stream);
}
