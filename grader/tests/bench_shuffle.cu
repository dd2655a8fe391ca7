/* bench_shuffle.cu: times lab 3's reference scan with 4 and 8 int4 loads per
 * lane and its compaction with 8, 12 and 16, next to CUB, in one process:
 * the numbers behind ROUNDS and COMPACT_ROUNDS in solutions/3-shuffle. */
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
