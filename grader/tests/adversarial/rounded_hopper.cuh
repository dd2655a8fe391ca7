/* rounded_hopper.cuh: for lab 7's lower-precision adversarial cases, a stage
 * 5 (hopper_tf32) that is a plain GEMM, one thread per element of C, whose
 * inputs pass through Round, a functor with a __device__ float
 * operator()(float), before each multiply. Include it after
 * solutions/7-hopper/hopper.cu with hopper_tf32 renamed (it uses blocks_for). */
template <typename Round>
__global__ void rounded_tf32_kernel(int M, int N, int K, const float *A, const float *B, float *C)
{
    int n = blockIdx.x * blockDim.x + threadIdx.x, m = blockIdx.y * blockDim.y + threadIdx.y;
    if (m >= M || n >= N)
        return;
    Round round;
    float acc = 0.0f;
    for (int k = 0; k < K; k++)
        acc = fmaf(round(A[(size_t)m * K + k]), round(B[(size_t)k * N + n]), acc);
    C[(size_t)m * N + n] = acc;
}

template <typename Round>
static lab_status rounded_tf32(int M, int N, int K, const float *d_A, const float *d_B,
                               float *d_C, cudaStream_t stream)
{
    dim3 block(32, 8), grid(blocks_for(N, 32), blocks_for(M, 8));
    rounded_tf32_kernel<Round><<<grid, block, 0, stream>>>(M, N, K, d_A, d_B, d_C);
    return LAB_OK;
}
