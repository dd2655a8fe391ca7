/* bench_timing.cuh: the timing of the benchmarks: the mean of reps calls of
 * f on the legacy default stream, after one untimed call, by CUDA events. */
#ifndef CUDA_LABS_BENCH_TIMING_CUH
#define CUDA_LABS_BENCH_TIMING_CUH

#include <cuda_runtime.h>

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

#endif
