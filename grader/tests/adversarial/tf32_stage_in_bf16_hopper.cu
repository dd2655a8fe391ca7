/* Adversarial case (lab 7, lower precision): the TF32 bonus stage rounds A
 * and B to BF16 before multiplying, as a stage that reused the lab's BF16
 * wgmma path would (BF16 keeps float32's exponent range but only 7 bits of
 * mantissa, not TF32's 10). The stage is judged with lab 4's TF32 bound on
 * lab 4's inputs, whose probe rows and columns every BF16 product misses by
 * about 2^-8, five times the bound: WRONG RESULT with the likely cause.
 * Built for sm_90a, as lab 7 is.
 * lab: 7
 * grade-args: --stage 5
 * expect: 5 correctness WRONG RESULT
 * expect: 5 speed SKIPPED
 * expect-output: a lower precision than TF32
 */
#include <cuda_bf16.h>

#define hopper_tf32 hopper_tf32_reference
#include "../../../solutions/7-hopper/hopper.cu"
#undef hopper_tf32

#include "rounded_hopper.cuh"

struct to_bf16 {
    __device__ float operator()(float x) const
    {
        return __bfloat162float(__float2bfloat16_rn(x));
    }
};

extern "C" lab_status hopper_tf32(int M, int N, int K, const float *d_A, const float *d_B,
                                  float *d_C, hopper_tensor_map_fn tensor_map,
                                  cudaStream_t stream)
{
    (void)tensor_map;
    return rounded_tf32<to_bf16>(M, N, K, d_A, d_B, d_C, stream);
}
