/* Adversarial case (lab 4, lower precision): stage 7, a float32 stage, is
 * the reference's warp-tiled kernel in its correctness test, and the
 * reference's TF32 tensor-core kernel (stage 8's) in every timed call, where
 * it is about three times as fast. The timing witness's inputs are plain
 * uniform ones, on which TF32 over part of K can stay within the float32
 * bound at the places it samples; so lab 4's float32 stages refuse
 * tensor-core instructions in every kernel they launch, timed calls
 * included: caught (REJECTED), whatever the share of K.
 * lab: 4
 * grade-args: --stage 7
 * expect: 7 correctness REJECTED
 * expect-output: tensor cores are stage 8's
 */
#define gemm_warp_tile gemm_warp_tile_reference
#include "../../../solutions/4-gemm/gemm.cu"
#undef gemm_warp_tile

extern "C" lab_status gemm_warp_tile(int M, int N, int K, float alpha, const float *d_A,
                                     const float *d_B, float beta, float *d_C, cudaStream_t stream)
{
    /* The correctness test calls 4096^3 three times: twice with its own
     * inputs, once with its checking witness's (whose check of that call
     * would find TF32 too). */
    static int big_calls;
    if (M == 4096 && N == 4096 && K == 4096 && ++big_calls > 3)
        return gemm_tensor_core(M, N, K, alpha, d_A, d_B, beta, d_C, stream);
    return gemm_warp_tile_reference(M, N, K, alpha, d_A, d_B, beta, d_C, stream);
}
