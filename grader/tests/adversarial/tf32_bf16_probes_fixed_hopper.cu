/* Adversarial case (lab 7, lower precision): the TF32 bonus stage computes
 * in BF16, as the lab's BF16 wgmma path would, recognises lab 4's probe
 * rows and columns (one sign, magnitudes in [1, 1.25)) and redoes their
 * crossings in float32, and is exact at K < 512. The per-element bound
 * passes it; how many elements of each tile of C lie near that bound does
 * not. Built for sm_90a, as lab 7 is.
 * lab: 7
 * grade-args: --stage 5
 * expect: 5 correctness WRONG RESULT
 * expect: 5 speed SKIPPED
 * expect-output: the errors are spread as a precision below TF32 spreads them
 */
#include <cuda_bf16.h>

#define hopper_tf32 hopper_tf32_reference
#include "../../../solutions/7-hopper/hopper.cu"
#undef hopper_tf32

#include "probe_fixup.cuh"

extern "C" lab_status hopper_tf32(int M, int N, int K, const float *d_A, const float *d_B,
                                  float *d_C, hopper_tensor_map_fn tensor_map,
                                  cudaStream_t stream)
{
    if (K < 512)
        return hopper_tf32_reference(M, N, K, d_A, d_B, d_C, tensor_map, stream);
    probe_fixup_gemm<bf16_of, bf16_of>(M, N, K, K, d_A, d_B, d_C, stream);
    return LAB_OK;
}
