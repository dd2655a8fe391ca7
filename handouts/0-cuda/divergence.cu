/* divergence.cu: what a branch costs when the threads of one warp disagree.
 *
 * Three kernels do the same arithmetic, `iters` dependent FMAs per thread:
 *   no branch         every thread runs path A;
 *   branch per warp   if ((threadIdx.x / 32) % 2) path B else path A:
 *                     all 32 threads of a warp agree, so each warp runs one path;
 *   branch per thread if (threadIdx.x % 2) path B else path A:
 *                     every warp holds both kinds of thread, so it runs path A
 *                     with half its lanes idle, then path B with the other half.
 * Paths A and B cost the same (iters FMAs each) but are built differently, so
 * the compiler cannot merge them into one loop with selected constants: the
 * branch stays a branch (check: nvcc -arch=sm_90 -cubin, then cuobjdump -sass,
 * and look for BSSY/BSYNC and BRA in divergent_kernel<2>).
 *
 * Each kernel is timed with CUDA events, three untimed calls first, then
 * `reps` rounds of the three in turn; the median of each is printed, with the
 * ratios. Build and run: make divergence (or nvcc -O3 -arch=native
 * handouts/0-cuda/divergence.cu -o divergence && ./divergence).
 * Arguments: [threads [iters [reps]]], default 4194304 4096 15.
 * Exit status: 0 after a run, 77 with one line when no GPU is usable, 1 on a
 * CUDA error or bad arguments. */
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_runtime.h>

#include "../../common/cuda_check.h"

enum { NO_BRANCH = 0, PER_WARP = 1, PER_THREAD = 2 };

#define THREADS_PER_BLOCK 256

/* Path A: one chain of iters FMAs. */
__device__ float path_a(float v, int iters)
{
#pragma unroll 4
    for (int i = 0; i < iters; i++)
        v = fmaf(v, 0.9999f, 0.0001f);
    return v;
}

/* Path B: the same number of FMAs, two per trip, with other constants. */
__device__ float path_b(float v, int iters)
{
#pragma unroll 2
    for (int i = 0; i < iters / 2; i++) {
        v = fmaf(v, 1.0001f, -0.0002f);
        v = fmaf(v, 0.9998f, 0.0003f);
    }
    return v;
}

template <int MODE>
__global__ void __launch_bounds__(THREADS_PER_BLOCK)
divergent_kernel(const float *x, float *y, int n, int iters)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float v = x[i];
    bool take_b = MODE == PER_WARP     ? ((threadIdx.x / 32) % 2) != 0
                : MODE == PER_THREAD ? (threadIdx.x % 2) != 0
                                     : false;
    if (take_b)
        v = path_b(v, iters);
    else
        v = path_a(v, iters);
    y[i] = v;
}

/* 1, after one line that says so, when no GPU answers (main then returns 77,
 * the status the course's tools use for "nothing was run: no GPU"). */
static int no_gpu(void)
{
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e == cudaSuccess && n > 0)
        return 0;
    printf("divergence: no usable CUDA GPU (%s), so nothing was timed.\n",
           e == cudaSuccess ? "none found" : cudaGetErrorString(e));
    return 1;
}

static float median(std::vector<float> v)
{
    std::sort(v.begin(), v.end());
    size_t m = v.size() / 2;
    return v.size() % 2 ? v[m] : 0.5f * (v[m - 1] + v[m]);
}

int main(int argc, char **argv)
{
    if (no_gpu())
        return 77;
    int n = argc > 1 ? atoi(argv[1]) : 1 << 22;
    int iters = argc > 2 ? atoi(argv[2]) : 4096;
    int reps = argc > 3 ? atoi(argv[3]) : 15;
    if (n < 1 || iters < 2 || iters % 2 || reps < 1) {
        fprintf(stderr, "usage: divergence [threads [iters (even) [reps]]]\n");
        return 1;
    }

    cudaDeviceProp prop;
    if (CUDA_CHECK(cudaGetDeviceProperties(&prop, 0)) != cudaSuccess)
        return 1;

    float *d_x = NULL, *d_y = NULL;
    if (CUDA_CHECK(cudaMalloc(&d_x, (size_t)n * sizeof(float))) != cudaSuccess ||
        CUDA_CHECK(cudaMalloc(&d_y, (size_t)n * sizeof(float))) != cudaSuccess)
        return 1;
    std::vector<float> h_x(n);
    for (int i = 0; i < n; i++)
        h_x[i] = (float)(i % 1000) / 1000.0f;
    if (CUDA_CHECK(cudaMemcpy(d_x, h_x.data(), (size_t)n * sizeof(float),
                              cudaMemcpyHostToDevice)) != cudaSuccess)
        return 1;

    typedef void (*kernel_fn)(const float *, float *, int, int);
    const kernel_fn kernels[3] = {divergent_kernel<NO_BRANCH>, divergent_kernel<PER_WARP>,
                                  divergent_kernel<PER_THREAD>};
    const char *names[3] = {"no branch", "branch per warp   ((tid / 32) % 2)",
                            "branch per thread (tid % 2)"};
    int blocks = (n + THREADS_PER_BLOCK - 1) / THREADS_PER_BLOCK;

    /* How many blocks of this kernel fit on one SM at once (the handout's
     * occupancy section). */
    int per_sm = 0;
    if (CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
            &per_sm, divergent_kernel<PER_THREAD>, THREADS_PER_BLOCK, 0)) != cudaSuccess)
        return 1;
    int warp_slots = prop.maxThreadsPerMultiProcessor / prop.warpSize;
    int warps = per_sm * THREADS_PER_BLOCK / prop.warpSize;

    printf("divergence on %s (%d SMs): %d threads, %d dependent FMAs each, %d threads per block\n",
           prop.name, prop.multiProcessorCount, n, iters, THREADS_PER_BLOCK);
    printf("occupancy: %d blocks per SM, %d of %d warp slots (%.0f%%)\n", per_sm, warps,
           warp_slots, 100.0 * warps / warp_slots);

    cudaEvent_t start, stop;
    if (CUDA_CHECK(cudaEventCreate(&start)) != cudaSuccess ||
        CUDA_CHECK(cudaEventCreate(&stop)) != cudaSuccess)
        return 1;

    /* Warm-up: module loading and clocks settle before anything is timed. */
    for (int w = 0; w < 3; w++)
        for (int k = 0; k < 3; k++)
            kernels[k]<<<blocks, THREADS_PER_BLOCK>>>(d_x, d_y, n, iters);
    if (CUDA_CHECK(cudaGetLastError()) != cudaSuccess ||
        CUDA_CHECK(cudaDeviceSynchronize()) != cudaSuccess)
        return 1;

    /* Rounds of the three kernels in turn, so a drift in clocks touches all. */
    std::vector<float> ms[3];
    for (int r = 0; r < reps; r++)
        for (int k = 0; k < 3; k++) {
            CUDA_CHECK(cudaEventRecord(start));
            kernels[k]<<<blocks, THREADS_PER_BLOCK>>>(d_x, d_y, n, iters);
            CUDA_CHECK(cudaEventRecord(stop));
            if (CUDA_CHECK(cudaGetLastError()) != cudaSuccess ||
                CUDA_CHECK(cudaEventSynchronize(stop)) != cudaSuccess)
                return 1;
            float t = 0;
            CUDA_CHECK(cudaEventElapsedTime(&t, start, stop));
            ms[k].push_back(t);
        }

    float med[3];
    for (int k = 0; k < 3; k++)
        med[k] = median(ms[k]);
    printf("%-36s %8.3f ms (median of %d)\n", names[0], med[0], reps);
    printf("%-36s %8.3f ms  %.2fx no branch\n", names[1], med[1], med[1] / med[0]);
    printf("%-36s %8.3f ms  %.2fx branch per warp\n", names[2], med[2], med[2] / med[1]);

    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    cudaFree(d_x);
    cudaFree(d_y);
    return 0;
}
