/* Adversarial case (lab 4, lower precision): the TF32 stage converts A and
 * B to FP16 (__half) before multiplying. FP16 keeps TF32's 10-bit mantissa,
 * so on inputs in [-1, 1) it passed; but the graded A has rows beyond
 * FP16's largest value (65504) and B columns below its smallest (about
 * 6e-8), where FP16 gives infinity and 0: caught, with the likely cause.
 * lab: 4
 * grade-args: --stage 8
 * expect: 8 correctness WRONG RESULT
 * expect: 8 speed SKIPPED
 * expect-output: rounded to a lower precision (FP16, __half)
 */
#include <cuda_fp16.h>

#define gemm_tensor_core gemm_tensor_core_reference
#include "../../../solutions/4-gemm/gemm.cu"
#undef gemm_tensor_core

__global__ void half_kernel(int M, int N, int K, float alpha, const float *__restrict__ A,
                            const float *__restrict__ B, float beta, float *__restrict__ C)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= M || j >= N)
        return;
    float acc = 0.0f;
    for (int k = 0; k < K; k++)
        acc = fmaf(__half2float(__float2half_rn(A[(size_t)i * K + k])),
                   __half2float(__float2half_rn(B[(size_t)k * N + j])), acc);
    write_c(C, (size_t)i * N + j, acc, alpha, beta);
}

extern "C" lab_status gemm_tensor_core(int M, int N, int K, float alpha, const float *d_A,
                                       const float *d_B, float beta, float *d_C,
                                       cudaStream_t stream)
{
    dim3 block(32, 8);
    dim3 grid(blocks_for(N, 32), blocks_for(M, 8));
    half_kernel<<<grid, block, 0, stream>>>(M, N, K, alpha, d_A, d_B, beta, d_C);
    return LAB_OK;
}
