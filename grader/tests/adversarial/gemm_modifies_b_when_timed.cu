/* Adversarial case (lab 4): stage 1 is correct, but from its fourth call at
 * 4096^3 on (only timed calls get there: the correctness test calls each
 * size three times, twice with its own inputs and once with the checking
 * witness's) it writes into B after multiplying. Every timed call's check
 * finds B changed: the timing witness's, and the test's own full check
 * after the loop, whose message stands ("after timing": the witness's
 * findings replace only a verdict about speed).
 * lab: 4
 * grade-args: --stage 1
 * expect: 1 correctness PASS
 * expect: 1 speed INPUT MODIFIED
 * expect-output: B was changed
 */
#define gemm_coalesced gemm_coalesced_reference
#include "../../../solutions/4-gemm/gemm.cu"
#undef gemm_coalesced

__global__ void scribble(float *B)
{
    B[12345] += 1.0f;
}

extern "C" lab_status gemm_coalesced(int M, int N, int K, float alpha, const float *d_A,
                                     const float *d_B, float beta, float *d_C, cudaStream_t stream)
{
    static int big_calls;
    lab_status st = gemm_coalesced_reference(M, N, K, alpha, d_A, d_B, beta, d_C, stream);
    if (st == LAB_OK && M == 4096 && N == 4096 && K == 4096 && ++big_calls > 3)
        scribble<<<1, 1, 0, stream>>>(const_cast<float *>(d_B));
    return st;
}
