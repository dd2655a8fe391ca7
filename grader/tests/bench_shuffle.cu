/* bench_shuffle.cu: times lab 3's reference scan with 4 and 8 int4 loads per
 * lane and its compaction with 8, 12 and 16, next to CUB, in one process:
 * the numbers behind ROUNDS and COMPACT_ROUNDS in solutions/3-shuffle. And
 * where stage 2's gain over stage 1 comes from: each stage next to a variant
 * that changes only the other half (the finish of the block, shared-memory
 * tree or shuffles; the loads, two per thread or the float4 loop). */
#include <algorithm>
#include <cstdio>
#include <vector>

#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>

#include "../../solutions/3-shuffle/shuffle.cu"
#include "bench_timing.cuh"

struct keep_positive {
    __host__ __device__ bool operator()(int x) const { return x > 0; }
};


template <int R>
static void lookback(const int *in, size_t n, int *out, void *work)
{
    size_t tile = TILE_WARPS * 128 * R, tiles = (n + tile - 1) / tile;
    cudaError_t err;
    tile_chain c = chain_in(work, tiles, 0, &err);
    lookback_scan_kernel<R><<<(unsigned)tiles, TILE_THREADS>>>(in, n, out, c);
}

template <int R>
static void compact(const int *in, size_t n, int *out, int *count, void *work)
{
    size_t tile = TILE_WARPS * 128 * R, tiles = (n + tile - 1) / tile;
    cudaError_t err;
    tile_chain c = chain_in(work, tiles, 0, &err);
    compact_kernel<R><<<(unsigned)tiles, TILE_THREADS>>>(in, n, out, count, c, (long long)tiles);
}

/* Stage 1's two elements per thread, finished with stage 2's shuffles. */
__global__ void __launch_bounds__(SHARED_THREADS)
    pair_shuffle_kernel(const float *__restrict__ in, size_t n, float *__restrict__ sums)
{
    __shared__ float warp_sums[SHARED_THREADS / 32];
    size_t i = (size_t)blockIdx.x * (2 * SHARED_THREADS) + threadIdx.x;
    float v = (i < n ? in[i] : 0.0f) + (i + SHARED_THREADS < n ? in[i + SHARED_THREADS] : 0.0f);
    v = block_sum_shuffle(v, warp_sums);
    if (threadIdx.x == 0)
        sums[blockIdx.x] = v;
}

/* Stage 2's float4 loop, finished with stage 1's shared-memory tree. */
__global__ void __launch_bounds__(SHARED_THREADS)
    loop_tree_kernel(const float *__restrict__ in, size_t n, float *__restrict__ sums)
{
    __shared__ float sdata[SHARED_THREADS];
    float v = block_sum_tree(thread_sum_float4(in, n), sdata);
    if (threadIdx.x == 0)
        sums[blockIdx.x] = v;
}

/* Stage 1's passes (two elements per thread until one block is left) with a given kernel. */
static void pair_passes(void (*kernel)(const float *, size_t, float *), const float *in, size_t n,
                        float *work, float *out)
{
    for (;;) {
        size_t blocks = (n + 2 * SHARED_THREADS - 1) / (2 * SHARED_THREADS);
        float *sums = blocks == 1 ? out : work;
        kernel<<<(unsigned)blocks, SHARED_THREADS>>>(in, n, sums);
        if (blocks == 1)
            return;
        in = work;
        work += blocks;
        n = blocks;
    }
}

/* Stage 2's two launches (a grid that fills the GPU, then one block) with the tree. */
static void loop_tree(const float *in, size_t n, float *work, float *out, unsigned grid)
{
    loop_tree_kernel<<<grid, SHARED_THREADS>>>(in, n, work);
    loop_tree_kernel<<<1, SHARED_THREADS>>>(work, grid, out);
}

/* The four sums at n floats, each checked against a double sum, the ratios in one run. */
static void sum_parts(size_t n, int reps)
{
    std::vector<float> h(n);
    double exact = 0;
    for (size_t i = 0; i < n; i++)
        exact += h[i] = (float)((i * 2654435761u) % 1000) / 1000.0f - 0.5f;
    float *d_in, *d_out, *d_work;
    cudaMalloc(&d_in, n * 4);
    cudaMalloc(&d_out, 4);
    cudaMalloc(&d_work, n * 4 / 256 + 4096);
    cudaMemcpy(d_in, h.data(), n * 4, cudaMemcpyHostToDevice);
    unsigned grid = (unsigned)grid_for(loop_tree_kernel, SHARED_THREADS);
    auto s1 = [&] { reduce_shared(d_in, n, d_out, d_work, 0); };
    auto pair_shfl = [&] { pair_passes(pair_shuffle_kernel, d_in, n, d_work, d_out); };
    auto loop_tr = [&] { loop_tree(d_in, n, d_work, d_out, grid); };
    auto s2 = [&] { reduce_shuffle(d_in, n, d_out, d_work, 0); };
    const char *name[4] = {"stage 1 (two per thread, tree)", "two per thread, shuffles",
                           "float4 loop, tree", "stage 2 (float4 loop, shuffles)"};
    float ms[4];
    for (int k = 0; k < 4; k++) {
        auto run = [&] { k == 0 ? s1() : k == 1 ? pair_shfl() : k == 2 ? loop_tr() : s2(); };
        run();
        float got = 0;
        cudaMemcpy(&got, d_out, 4, cudaMemcpyDeviceToHost);
        ms[k] = time_median_ms(run, reps);
        printf("sum, %-34s %.4f ms = %.0f GB/s (sum %.3f, exact %.3f)\n", name[k], ms[k],
               4.0 * n / ms[k] / 1e6, got, exact);
    }
    printf("sum: stage 2 over stage 1 %.2fx = the loop %.2fx (tree kept) x the shuffles %.2fx "
           "(loop kept); the shuffles with two per thread %.2fx\n",
           ms[0] / ms[3], ms[0] / ms[2], ms[2] / ms[3], ms[0] / ms[1]);
    cudaFree(d_in);
    cudaFree(d_out);
    cudaFree(d_work);
}

int main(int argc, char **argv)
{
    if (bench_no_gpu("bench_shuffle"))
        return 77;
    size_t n = argc > 1 ? strtoull(argv[1], nullptr, 0) : ((size_t)1 << 28);
    int reps = argc > 2 ? atoi(argv[2]) : 20;
    int *d_in, *d_out, *d_count;
    void *d_work;
    cudaMalloc(&d_in, n * 4);
    cudaMalloc(&d_out, n * 4);
    cudaMalloc(&d_count, 4);
    cudaMalloc(&d_work, shuffle_work_bytes(n));
    sum_parts(n, reps);
    std::vector<int> h(n);
    for (size_t i = 0; i < n; i++)
        h[i] = (int)((i * 2654435761u) % 10) - 4;
    cudaMemcpy(d_in, h.data(), n * 4, cudaMemcpyHostToDevice);
    size_t t1 = 0, t2 = 0;
    cub::DeviceScan::InclusiveSum(nullptr, t1, d_in, d_out, (int64_t)n);
    cub::DeviceSelect::If(nullptr, t2, d_in, d_out, d_count, (int64_t)n, keep_positive());
    void *d_temp;
    cudaMalloc(&d_temp, std::max(t1, t2));
    double scan_gb = 8.0 * n / 1e9, read_gb = 4.0 * n / 1e9;
    float cub_scan = time_median_ms([&] { cub::DeviceScan::InclusiveSum(d_temp, t1, d_in, d_out, (int64_t)n); }, reps);
    float cub_select = time_median_ms([&] { cub::DeviceSelect::If(d_temp, t2, d_in, d_out, d_count, (int64_t)n, keep_positive()); }, reps);
    printf("n = %zu: CUB scan %.4f ms = %.0f GB/s; CUB select %.4f ms = %.0f GB/s (input)\n", n,
           cub_scan, scan_gb / cub_scan * 1e3, cub_select, read_gb / cub_select * 1e3);
    float l4 = time_median_ms([&] { lookback<4>(d_in, n, d_out, d_work); }, reps);
    float l8 = time_median_ms([&] { lookback<8>(d_in, n, d_out, d_work); }, reps);
    printf("look-back scan, 4 rounds: %.0f GB/s = %.1f%% of CUB; 8 rounds: %.0f GB/s = %.1f%%\n",
           scan_gb / l4 * 1e3, 100 * cub_scan / l4, scan_gb / l8 * 1e3, 100 * cub_scan / l8);
    float c8 = time_median_ms([&] { compact<8>(d_in, n, d_out, d_count, d_work); }, reps);
    float c12 = time_median_ms([&] { compact<12>(d_in, n, d_out, d_count, d_work); }, reps);
    float c16 = time_median_ms([&] { compact<16>(d_in, n, d_out, d_count, d_work); }, reps);
    printf("compaction (%% of CUB): 8 rounds %.1f%%, 12 rounds %.1f%%, 16 rounds %.1f%% (197 registers: one block per SM)\n",
           100 * cub_select / c8, 100 * cub_select / c12, 100 * cub_select / c16);
    float mp = time_median_ms([&] { scan_multipass(d_in, n, d_out, d_work, 0); }, reps);
    float ws = time_median_ms([&] { scan_warp(d_in, n, d_out, d_work, 0); }, reps);
    float bs = time_median_ms([&] { scan_block(d_in, n, d_out, d_work, 0); }, reps);
    printf("multi-pass %.0f GB/s, warp scan %.0f GB/s, block scan %.0f GB/s\n", scan_gb / mp * 1e3,
           scan_gb / ws * 1e3, scan_gb / bs * 1e3);
    cudaError_t e = cudaDeviceSynchronize();
    printf("%s\n", cudaGetErrorString(e));
    return e != cudaSuccess;
}
