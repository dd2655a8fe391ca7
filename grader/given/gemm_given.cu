/* grader/given/gemm_given.cu: lab 4's given stages (gemm_naive), the course's
 * own copy. The grader calls and times these, built into
 * build/ceilings/lab4-given.so, in place of the submission's, so that a
 * submission cannot slow a given stage to make the next one look fast. The
 * lab's header is included by its path, with no -I, so that no other file in
 * the student's folder can stand in for a header. Below, every paragraph is
 * labs/4-gemm/gemm.cu's, word for word and in order (a test holds them equal):
 * change the skeleton, then copy the change here. */
#include "../../labs/4-gemm/gemm.h"

/* The epilogue shared by all stages: as in BLAS, C is not read when beta == 0. */
__device__ __forceinline__ void write_c(float *C, size_t idx, float acc, float alpha, float beta)
{
    C[idx] = beta == 0.0f ? alpha * acc : alpha * acc + beta * C[idx];
}

static unsigned blocks_for(int n, int per_block)
{
    return (unsigned)((n + per_block - 1) / per_block);
}

/* ------------------------------------------------------------------------ */
/* Given: stage 0, naive, threads walking M.                                  */
/* One thread per element of C. Consecutive threads (threadIdx.x) take        */
/* consecutive rows i: each reads its own row of A (32 rows, 32 different     */
/* cache lines per warp access) and writes a column of C. Correct, slow: the */
/* yardstick.                                                                 */
/* ------------------------------------------------------------------------ */

__global__ void naive_kernel(int M, int N, int K, float alpha, const float *__restrict__ A,
                             const float *__restrict__ B, float beta, float *__restrict__ C)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= M || j >= N)
        return;
    float acc = 0.0f;
    for (int k = 0; k < K; k++)
        acc += A[(size_t)i * K + k] * B[(size_t)k * N + j];
    write_c(C, (size_t)i * N + j, acc, alpha, beta);
}

extern "C" lab_status gemm_naive(int M, int N, int K, float alpha, const float *d_A,
                                 const float *d_B, float beta, float *d_C, cudaStream_t stream)
{
    dim3 block(32, 8);
    dim3 grid(blocks_for(M, 32), blocks_for(N, 8));
    naive_kernel<<<grid, block, 0, stream>>>(M, N, K, alpha, d_A, d_B, beta, d_C);
    return LAB_OK;
}
