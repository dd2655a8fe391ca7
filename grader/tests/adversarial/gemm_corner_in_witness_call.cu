/* Adversarial case (lab 4, issue 20 class 1): stage 3 is right in every call
 * the correctness test checks itself (two input sets at each size), and in
 * the third call at 1000 x 1003 x 997, the one the checking witness loads and
 * checks after them, it writes zeros over the last 8 x 11 corner of C, as a
 * partial tile's bounds bug would. No record is touched: the test writes its
 * own PASS. The witness checks every row of C at that size (a sample of 16
 * rows and 16 columns found such a corner about a quarter of the time):
 * WRONG RESULT, and the speed test it let run is not graded.
 * lab: 4
 * expect: 3 correctness WRONG RESULT
 * expect: 3 speed SKIPPED
 * expect-output: checking witness
 * grade-args: --stage 3
 */
#define gemm_tile_1d gemm_tile_1d_reference
#include "../../../solutions/4-gemm/gemm.cu"
#undef gemm_tile_1d

__global__ void spoil_corner(float *C, int M, int N)
{
    C[(size_t)(M - 8 + threadIdx.y) * N + (N - 11 + threadIdx.x)] = 0.0f;
}

extern "C" lab_status gemm_tile_1d(int M, int N, int K, float alpha, const float *d_A,
                                   const float *d_B, float beta, float *d_C, cudaStream_t stream)
{
    static int calls;
    lab_status st = gemm_tile_1d_reference(M, N, K, alpha, d_A, d_B, beta, d_C, stream);
    if (M == 1000 && N == 1003 && K == 997 && ++calls == 3)
        spoil_corner<<<1, dim3(11, 8), 0, stream>>>(d_C, M, N);
    return st;
}
