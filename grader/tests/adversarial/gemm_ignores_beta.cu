/* Adversarial case (lab 4): stage 2 writes alpha A B and never adds beta C.
 * The case with beta = 0 passes; the one with beta = -0.5 must not, and the
 * message must name the likely cause.
 * lab: 4
 * expect: 2 correctness WRONG RESULT
 * expect: 2 speed SKIPPED
 * expect-output: is beta ignored?
 * grade-args: --stage 2
 */
#define gemm_shared gemm_shared_reference
#include "../../../solutions/4-gemm/gemm.cu"
#undef gemm_shared

__global__ void no_beta_kernel(int M, int N, int K, float alpha, const float *__restrict__ A,
                               const float *__restrict__ B, float *__restrict__ C)
{
    __shared__ float As[T2][T2], Bs[T2][T2];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int i = blockIdx.y * T2 + ty, j = blockIdx.x * T2 + tx;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += T2) {
        As[ty][tx] = i < M && k0 + tx < K ? A[(size_t)i * K + k0 + tx] : 0.0f;
        Bs[ty][tx] = k0 + ty < K && j < N ? B[(size_t)(k0 + ty) * N + j] : 0.0f;
        __syncthreads();
        for (int kk = 0; kk < T2; kk++)
            acc += As[ty][kk] * Bs[kk][tx];
        __syncthreads();
    }
    if (i < M && j < N)
        C[(size_t)i * N + j] = alpha * acc; /* the old C is lost */
}

extern "C" lab_status gemm_shared(int M, int N, int K, float alpha, const float *d_A,
                                  const float *d_B, float beta, float *d_C, cudaStream_t stream)
{
    (void)beta;
    dim3 block(T2, T2);
    dim3 grid(blocks_for(N, T2), blocks_for(M, T2));
    no_beta_kernel<<<grid, block, 0, stream>>>(M, N, K, alpha, d_A, d_B, d_C);
    return LAB_OK;
}
