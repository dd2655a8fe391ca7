/* Adversarial case (lab 4, slowed given stage): the given naive GEMM first
 * runs three times with alpha 0 and beta 1 (C unchanged, all the work
 * done), then once for real; stage 1 is the given naive code under stage
 * 1's name. Against the submission's slowed copy it would be 4x its base
 * and pass the 2x; against the course's copy it is 1x: caught.
 * lab: 4
 * grade-args: --stage 1
 * expect: 1 correctness PASS
 * expect: 1 speed TOO SLOW
 */
#define gemm_naive gemm_naive_course
#define gemm_coalesced gemm_coalesced_reference
#include "../../../solutions/4-gemm/gemm.cu"
#undef gemm_naive
#undef gemm_coalesced

extern "C" lab_status gemm_naive(int M, int N, int K, float alpha, const float *d_A,
                                 const float *d_B, float beta, float *d_C, cudaStream_t stream)
{
    for (int k = 0; k < 3; k++)
        gemm_naive_course(M, N, K, 0.0f, d_A, d_B, 1.0f, d_C, stream);
    return gemm_naive_course(M, N, K, alpha, d_A, d_B, beta, d_C, stream);
}

extern "C" lab_status gemm_coalesced(int M, int N, int K, float alpha, const float *d_A,
                                     const float *d_B, float beta, float *d_C, cudaStream_t stream)
{
    return gemm_naive_course(M, N, K, alpha, d_A, d_B, beta, d_C, stream);
}
