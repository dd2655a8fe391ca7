/* Adversarial case (lab 7, lower precision): the TF32 bonus stage converts
 * A and B to FP16 (__half) before multiplying. FP16 keeps TF32's 10-bit
 * mantissa, so inputs in [-1, 1) would not tell them apart; but lab 4's
 * inputs, which this stage is graded on, hold rows of A beyond FP16's
 * largest value (65504) and columns of B below its smallest (about 6e-8),
 * where FP16 gives infinity and 0: WRONG RESULT with the likely cause.
 * Built for sm_90a, as lab 7 is.
 * lab: 7
 * grade-args: --stage 5
 * expect: 5 correctness WRONG RESULT
 * expect: 5 speed SKIPPED
 * expect-output: rounded to a lower precision (FP16, __half)
 */
#include <cuda_fp16.h>

#define hopper_tf32 hopper_tf32_reference
#include "../../../solutions/7-hopper/hopper.cu"
#undef hopper_tf32

#include "rounded_hopper.cuh"

struct to_fp16 {
    __device__ float operator()(float x) const
    {
        return __half2float(__float2half_rn(x));
    }
};

extern "C" lab_status hopper_tf32(int M, int N, int K, const float *d_A, const float *d_B,
                                  float *d_C, hopper_tensor_map_fn tensor_map,
                                  cudaStream_t stream)
{
    (void)tensor_map;
    return rounded_tf32<to_fp16>(M, N, K, d_A, d_B, d_C, stream);
}
