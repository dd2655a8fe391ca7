/* Adversarial case (lab 4, lower precision): the TF32 stage rounds A and B
 * to BF16, which has float32's exponent range (the range rows and columns
 * pass) but only a 7-bit mantissa, not TF32's 10. The stage teaches TF32
 * and is judged with TF32's bound, so this must fail: on the probe rows and
 * columns every product is rounded down by about 2^-8, five times the
 * bound, at every K.
 * lab: 4
 * grade-args: --stage 8
 * expect: 8 correctness WRONG RESULT
 * expect: 8 speed SKIPPED
 * expect-output: a lower precision than TF32
 */
#include <cuda_bf16.h>

#define gemm_tensor_core gemm_tensor_core_reference
#include "../../../solutions/4-gemm/gemm.cu"
#undef gemm_tensor_core

#include "rounded_gemm.cuh"

struct to_bf16 {
    __device__ float operator()(float x) const
    {
        return __bfloat162float(__float2bfloat16_rn(x));
    }
};

extern "C" lab_status gemm_tensor_core(int M, int N, int K, float alpha, const float *d_A,
                                       const float *d_B, float beta, float *d_C,
                                       cudaStream_t stream)
{
    return rounded_gemm<to_bf16>(M, N, K, alpha, d_A, d_B, beta, d_C, stream);
}
