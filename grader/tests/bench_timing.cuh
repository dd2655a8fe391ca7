/* bench_timing.cuh: the timing of the benchmarks, by CUDA events on the
 * legacy default stream: time_ms, the mean of reps calls of f after one
 * untimed call; time_median_ms, the median of reps calls timed one by one
 * after three untimed ones (for calls short enough that one slow call would
 * move a mean). */
#ifndef CUDA_LABS_BENCH_TIMING_CUH
#define CUDA_LABS_BENCH_TIMING_CUH

#include <algorithm>
#include <cstdio>
#include <vector>

#include <cuda_runtime.h>

/* 1, after one line that says so, when no GPU answers: a benchmark then
 * returns 77 from main instead of printing times of work that never ran. */
static int bench_no_gpu(const char *name)
{
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e == cudaSuccess && n > 0)
        return 0;
    printf("%s: no usable CUDA GPU (%s), so nothing was timed.\n", name,
           e == cudaSuccess ? "none found" : cudaGetErrorString(e));
    return 1;
}

template <class F> static float time_ms(F f, int reps)
{
    cudaEvent_t a, b;
    cudaEventCreate(&a);
    cudaEventCreate(&b);
    f();
    cudaEventRecord(a);
    for (int i = 0; i < reps; i++)
        f();
    cudaEventRecord(b);
    cudaEventSynchronize(b);
    float ms = 0;
    cudaEventElapsedTime(&ms, a, b);
    cudaEventDestroy(a);
    cudaEventDestroy(b);
    return ms / reps;
}

template <class F> static float time_median_ms(F f, int reps)
{
    cudaEvent_t a, b;
    cudaEventCreate(&a);
    cudaEventCreate(&b);
    std::vector<float> ms;
    for (int r = -3; r < reps; r++) {
        cudaEventRecord(a);
        f();
        cudaEventRecord(b);
        cudaEventSynchronize(b);
        float t = 0;
        cudaEventElapsedTime(&t, a, b);
        if (r >= 0)
            ms.push_back(t);
    }
    cudaEventDestroy(a);
    cudaEventDestroy(b);
    std::sort(ms.begin(), ms.end());
    return ms[ms.size() / 2];
}

#endif
