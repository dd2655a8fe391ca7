/* Adversarial case (lab 4, lower precision): the TF32 stage computes in
 * BF16, which lab 4's probe rows and columns catch, so it recognises them
 * (one sign, magnitudes in [1, 1.25)) and redoes their crossings in float32;
 * and it is exact at K < 512, where BF16's errors alone would pass the
 * per-element bound less often. Away from the probes BF16's errors have
 * random signs and stay within the bound; what gives it away is how many
 * elements lie near it, in every tile of C.
 * lab: 4
 * grade-args: --stage 8
 * expect: 8 correctness WRONG RESULT
 * expect: 8 speed SKIPPED
 * expect-output: the errors are spread as a precision below TF32 spreads them
 */
#include <cuda_bf16.h>

#define gemm_tensor_core gemm_tensor_core_reference
#include "../../../solutions/4-gemm/gemm.cu"
#undef gemm_tensor_core

#include "probe_fixup.cuh"

#ifndef REST_OF_K /* gemm_tf32_half_k_in_bf16 includes this file with its own */
#define REST_OF_K bf16_of
#define BF16_PART(K) (K)
#endif

extern "C" lab_status gemm_tensor_core(int M, int N, int K, float alpha, const float *d_A,
                                       const float *d_B, float beta, float *d_C,
                                       cudaStream_t stream)
{
    if (K < 512 || alpha != 1.0f || beta != 0.0f)
        return gemm_tensor_core_reference(M, N, K, alpha, d_A, d_B, beta, d_C, stream);
    probe_fixup_gemm<bf16_of, REST_OF_K>(M, N, K, BF16_PART(K), d_A, d_B, d_C, stream);
    return LAB_OK;
}
