/* Adversarial case (lab 4, lower precision): the TF32 stage rounds A and B
 * to BF16, which has float32's exponent range (the range rows and columns
 * pass) but only a 7-bit mantissa, not TF32's 10. The stage teaches TF32
 * and is judged with TF32's bound, so this must fail: on the probe rows and
 * columns every product is rounded down by about 2^-8, five times the
 * bound, at every K.
 * lab: 4
 * grade-args: --stage 8
 * expect: 8 correctness WRONG RESULT
 * expect: 8 speed SKIPPED
 * expect-output: a lower precision than TF32
 */
#include <cuda_bf16.h>

#define gemm_tensor_core gemm_tensor_core_reference
#include "../../../solutions/4-gemm/gemm.cu"
#undef gemm_tensor_core

__global__ void bf16_kernel(int M, int N, int K, float alpha, const float *__restrict__ A,
                            const float *__restrict__ B, float beta, float *__restrict__ C)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= M || j >= N)
        return;
    float acc = 0.0f;
    for (int k = 0; k < K; k++)
        acc = fmaf(__bfloat162float(__float2bfloat16_rn(A[(size_t)i * K + k])),
                   __bfloat162float(__float2bfloat16_rn(B[(size_t)k * N + j])), acc);
    write_c(C, (size_t)i * N + j, acc, alpha, beta);
}

extern "C" lab_status gemm_tensor_core(int M, int N, int K, float alpha, const float *d_A,
                                       const float *d_B, float beta, float *d_C,
                                       cudaStream_t stream)
{
    dim3 block(32, 8);
    dim3 grid(blocks_for(N, 32), blocks_for(M, 8));
    bf16_kernel<<<grid, block, 0, stream>>>(M, N, K, alpha, d_A, d_B, beta, d_C);
    return LAB_OK;
}
