/* Adversarial case (lab 4, lower precision): a float32 stage rounds A and
 * B to TF32 (cvt.rna.tf32.f32, what a tensor-core kernel feeds its mma)
 * only when K >= 4096, where with random signs TF32's errors would mostly
 * cancel and sit near the float32 bound. The graded inputs' probe rows and
 * columns round one way in every product: caught at K = 4096 too.
 * lab: 4
 * grade-args: --stage 1
 * expect: 1 correctness WRONG RESULT
 * expect: 1 speed SKIPPED
 * expect-output: a lower precision (FP16, BF16, TF32 tensor cores)
 */
#define gemm_coalesced gemm_coalesced_reference
#include "../../../solutions/4-gemm/gemm.cu"
#undef gemm_coalesced

__device__ __forceinline__ float rna_tf32(float x)
{
    unsigned r;
    asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(x));
    return __uint_as_float(r);
}

__global__ void tf32_kernel(int M, int N, int K, float alpha, const float *__restrict__ A,
                            const float *__restrict__ B, float beta, float *__restrict__ C)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= M || j >= N)
        return;
    float acc = 0.0f;
    for (int k = 0; k < K; k++)
        acc = fmaf(rna_tf32(A[(size_t)i * K + k]), rna_tf32(B[(size_t)k * N + j]), acc);
    write_c(C, (size_t)i * N + j, acc, alpha, beta);
}

extern "C" lab_status gemm_coalesced(int M, int N, int K, float alpha, const float *d_A,
                                     const float *d_B, float beta, float *d_C, cudaStream_t stream)
{
    if (K < 4096)
        return gemm_coalesced_reference(M, N, K, alpha, d_A, d_B, beta, d_C, stream);
    dim3 block(32, 8);
    dim3 grid(blocks_for(N, 32), blocks_for(M, 8));
    tf32_kernel<<<grid, block, 0, stream>>>(M, N, K, alpha, d_A, d_B, beta, d_C);
    return LAB_OK;
}
