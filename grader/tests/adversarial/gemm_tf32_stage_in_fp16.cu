/* Adversarial case (lab 4, lower precision): the TF32 stage converts A and
 * B to FP16 (__half) before multiplying. FP16 keeps TF32's 10-bit mantissa,
 * so on inputs in [-1, 1) it passed; but the graded A has rows beyond
 * FP16's largest value (65504) and B columns below its smallest (about
 * 6e-8), where FP16 gives infinity and 0: caught, with the likely cause.
 * lab: 4
 * grade-args: --stage 8
 * expect: 8 correctness WRONG RESULT
 * expect: 8 speed SKIPPED
 * expect-output: rounded to a lower precision (FP16, __half)
 */
#include <cuda_fp16.h>

#define gemm_tensor_core gemm_tensor_core_reference
#include "../../../solutions/4-gemm/gemm.cu"
#undef gemm_tensor_core

#include "rounded_gemm.cuh"

struct to_fp16 {
    __device__ float operator()(float x) const { return __half2float(__float2half_rn(x)); }
};

extern "C" lab_status gemm_tensor_core(int M, int N, int K, float alpha, const float *d_A,
                                       const float *d_B, float beta, float *d_C,
                                       cudaStream_t stream)
{
    return rounded_gemm<to_fp16>(M, N, K, alpha, d_A, d_B, beta, d_C, stream);
}
