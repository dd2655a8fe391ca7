/* Adversarial case (lab 4): stage 3 steps through K in whole tiles of 8 and
 * drops the last, partial one, so every size whose K is not a multiple of 8
 * (1, 65, 131, 997) comes out wrong. The message must point at the K tail.
 * lab: 4
 * expect: 3 correctness WRONG RESULT
 * expect: 3 speed SKIPPED
 * expect-output: is the last, partial tile of K skipped?
 * grade-args: --stage 3
 */
#define gemm_tile_1d gemm_tile_1d_reference
#include "../../../solutions/4-gemm/gemm.cu"
#undef gemm_tile_1d

__global__ void __launch_bounds__(THREADS3)
    no_tail_kernel(int M, int N, int K, float alpha, const float *__restrict__ A,
                   const float *__restrict__ B, float beta, float *__restrict__ C)
{
    __shared__ float As[BM3][BK3], Bs[BK3][BN3];
    const int tid = threadIdx.x;
    const int row0 = blockIdx.y * BM3, col0 = blockIdx.x * BN3;
    const int tcol = tid % BN3, trow = tid / BN3;
    const int a_r = tid / BK3, a_c = tid % BK3, b_r = tid / BN3, b_c = tid % BN3;
    float acc[TM3] = {0.0f};
    for (int k0 = 0; k0 + BK3 <= K; k0 += BK3) { /* whole tiles only */
        int ai = row0 + a_r, bj = col0 + b_c;
        As[a_r][a_c] = ai < M ? A[(size_t)ai * K + k0 + a_c] : 0.0f;
        Bs[b_r][b_c] = bj < N ? B[(size_t)(k0 + b_r) * N + bj] : 0.0f;
        __syncthreads();
        for (int kk = 0; kk < BK3; kk++)
            for (int t = 0; t < TM3; t++)
                acc[t] += As[trow * TM3 + t][kk] * Bs[kk][tcol];
        __syncthreads();
    }
    int j = col0 + tcol;
    for (int t = 0; t < TM3; t++) {
        int i = row0 + trow * TM3 + t;
        if (i < M && j < N)
            write_c(C, (size_t)i * N + j, acc[t], alpha, beta);
    }
}

extern "C" lab_status gemm_tile_1d(int M, int N, int K, float alpha, const float *d_A,
                                   const float *d_B, float beta, float *d_C, cudaStream_t stream)
{
    dim3 grid(blocks_for(N, BN3), blocks_for(M, BM3));
    no_tail_kernel<<<grid, THREADS3, 0, stream>>>(M, N, K, alpha, d_A, d_B, beta, d_C);
    return LAB_OK;
}
