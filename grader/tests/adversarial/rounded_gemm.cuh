/* rounded_gemm.cuh: for lab 4's lower-precision adversarial cases, a plain
 * GEMM (one thread per element of C) whose inputs pass through Round, a
 * functor with a __device__ float operator()(float), before each multiply.
 * Include it after solutions/4-gemm/gemm.cu (it uses write_c and blocks_for). */
template <typename Round>
__global__ void rounded_kernel(int M, int N, int K, float alpha, const float *__restrict__ A,
                               const float *__restrict__ B, float beta, float *__restrict__ C)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= M || j >= N)
        return;
    Round round;
    float acc = 0.0f;
    for (int k = 0; k < K; k++)
        acc = fmaf(round(A[(size_t)i * K + k]), round(B[(size_t)k * N + j]), acc);
    write_c(C, (size_t)i * N + j, acc, alpha, beta);
}

template <typename Round>
static lab_status rounded_gemm(int M, int N, int K, float alpha, const float *d_A,
                               const float *d_B, float beta, float *d_C, cudaStream_t stream)
{
    dim3 block(32, 8);
    dim3 grid(blocks_for(N, 32), blocks_for(M, 8));
    rounded_kernel<Round><<<grid, block, 0, stream>>>(M, N, K, alpha, d_A, d_B, beta, d_C);
    return LAB_OK;
}
