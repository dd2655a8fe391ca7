/* Adversarial case (lab 4): stage 1 rounds A and B to FP16 before each
 * multiply (a float32 GEMM that quietly computes in half precision). The
 * errors are small, far above float32 rounding: caught, with the likely cause.
 * lab: 4
 * expect: 1 correctness WRONG RESULT
 * expect: 1 speed SKIPPED
 * expect-output: rounded to a lower precision
 * grade-args: --stage 1
 */
#include <cuda_fp16.h>

#define gemm_coalesced gemm_coalesced_reference
#include "../../../solutions/4-gemm/gemm.cu"
#undef gemm_coalesced

__global__ void half_kernel(int M, int N, int K, float alpha, const float *__restrict__ A,
                            const float *__restrict__ B, float beta, float *__restrict__ C)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= M || j >= N)
        return;
    float acc = 0.0f;
    for (int k = 0; k < K; k++)
        acc += __half2float(__float2half(A[(size_t)i * K + k])) *
               __half2float(__float2half(B[(size_t)k * N + j]));
    write_c(C, (size_t)i * N + j, acc, alpha, beta);
}

extern "C" lab_status gemm_coalesced(int M, int N, int K, float alpha, const float *d_A,
                                     const float *d_B, float beta, float *d_C, cudaStream_t stream)
{
    dim3 block(32, 8);
    dim3 grid(blocks_for(N, 32), blocks_for(M, 8));
    half_kernel<<<grid, block, 0, stream>>>(M, N, K, alpha, d_A, d_B, beta, d_C);
    return LAB_OK;
}
