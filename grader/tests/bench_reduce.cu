/* bench_reduce.cu: times lab 2's reference stage 7 in several shapes (block
 * size, float4 loads in flight, blocks per SM) next to CUB, in one process:
 * the numbers behind the choices in solutions/2-reduce/reduce.cu.
 * make bench-reduce (GPU needed). */
#include <algorithm>
#include <cstdio>
#include <vector>

#include <cub/device/device_reduce.cuh>

#include "../../solutions/2-reduce/reduce.cu"
#include "bench_timing.cuh"

template <unsigned BLOCK, unsigned UNROLL>
static void run_many(const float *d_in, size_t n, float *d_out, float *d_work, int per_sm,
                     cudaStream_t s)
{
    int dev = 0, sms = 0;
    cudaGetDevice(&dev);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    unsigned blocks = (unsigned)(sms * per_sm);
    many_kernel<BLOCK, UNROLL><<<blocks, BLOCK, 0, s>>>(d_in, n, d_work);
    many_kernel<BLOCK, UNROLL><<<1, BLOCK, 0, s>>>(d_work, blocks, d_out);
}

/* The divergence experiment of the handout: each thread runs one of two
 * arithmetic loops, chosen by tid % 2 (both paths in every warp) or by
 * (tid / warpSize) % 2 (one path per warp). With a short body the compiler
 * predicates the branch away and both cost the same. */
template <int ITERS>
__global__ void branch_kernel(const float *__restrict__ in, float *__restrict__ out, int per_warp)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    float x = in[i];
    bool odd = per_warp ? (threadIdx.x / warpSize) % 2 : threadIdx.x % 2;
    if (odd) {
#pragma unroll 1
        for (int k = 0; k < ITERS; k++)
            x = x * 1.0001f + 0.5f;
    } else {
#pragma unroll 1
        for (int k = 0; k < ITERS; k++)
            x = x * 0.9999f - 0.25f;
    }
    out[i] = x;
}


int main(int argc, char **argv)
{
    if (bench_no_gpu("bench_reduce"))
        return 77;
    size_t n = argc > 1 ? strtoull(argv[1], nullptr, 0) : ((size_t)1 << 28);
    int reps = argc > 2 ? atoi(argv[2]) : 30;
    float *d_in, *d_out, *d_work;
    cudaMalloc(&d_in, n * 4);
    cudaMalloc(&d_out, 4);
    cudaMalloc(&d_work, reduce_work_floats(n) * 4);
    std::vector<float> h(n);
    for (size_t i = 0; i < n; i++)
        h[i] = (float)((i * 2654435761u) % 1000) / 1000.0f - 0.4f;
    cudaMemcpy(d_in, h.data(), n * 4, cudaMemcpyHostToDevice);
    size_t temp = 0;
    cub::DeviceReduce::Sum(nullptr, temp, d_in, d_out, (int64_t)n);
    void *d_temp;
    cudaMalloc(&d_temp, temp);
    double gb = n * 4.0 / 1e9;
    float cub_ms = time_median_ms([&] { cub::DeviceReduce::Sum(d_temp, temp, d_in, d_out, (int64_t)n); }, reps);
    printf("n = %zu: CUB %.4f ms = %.0f GB/s\n", n, cub_ms, gb / cub_ms * 1e3);
#define TRY(B, U, P)                                                                            \
    do {                                                                                        \
        float ms = time_median_ms([&] { run_many<B, U>(d_in, n, d_out, d_work, P, 0); }, reps);       \
        printf("  block %4d unroll %d blocks/SM %2d: %.4f ms = %5.0f GB/s = %5.1f%% of CUB\n", \
               B, U, P, ms, gb / ms * 1e3, 100.0 * cub_ms / ms);                               \
    } while (0)
    TRY(256, 2, 8); TRY(256, 4, 8); TRY(256, 8, 8); TRY(256, 4, 4); TRY(256, 4, 16);
    TRY(512, 4, 4); TRY(512, 2, 4); TRY(128, 4, 16); TRY(1024, 4, 2); TRY(256, 8, 4);
    const char *names[] = {"one block", "interleaved", "strided", "sequential", "first add",
                           "unroll warp", "unroll all", "many (solution)"};
    reduce_fn fns[] = {reduce_one_block, reduce_interleaved, reduce_strided, reduce_sequential,
                       reduce_first_add, reduce_unroll_warp, reduce_unroll_all, reduce_many};
    float prev = 0;
    for (int s = 0; s < 8; s++) {
        float ms = time_median_ms([&] { fns[s](d_in, n, d_out, d_work, 0); }, s == 0 ? 5 : reps);
        printf("stage %d %-16s %.4f ms = %5.0f GB/s = %5.1f%% of CUB, %.2fx over the stage before\n",
               s, names[s], ms, gb / ms * 1e3, 100.0 * cub_ms / ms, prev > 0 ? prev / ms : 0.0);
        prev = ms;
    }
    /* The branch experiment on 2^24 threads. */
    {
        size_t m = (size_t)1 << 24;
        float *d_o;
        cudaMalloc(&d_o, m * 4);
        for (int per_warp = 0; per_warp < 2; per_warp++) {
            float a = time_median_ms([&] { branch_kernel<1><<<m / 256, 256>>>(d_in, d_o, per_warp); }, reps);
            float b = time_median_ms([&] { branch_kernel<256><<<m / 256, 256>>>(d_in, d_o, per_warp); }, reps);
            printf("branch on %-18s 1 step: %.4f ms   256 steps: %.4f ms\n",
                   per_warp ? "(tid / 32) % 2" : "tid % 2", a, b);
        }
        cudaFree(d_o);
    }
    cudaError_t e = cudaDeviceSynchronize();
    printf("%s\n", cudaGetErrorString(e));
    return e != cudaSuccess;
}
