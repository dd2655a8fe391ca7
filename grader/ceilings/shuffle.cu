/* grader/ceilings/shuffle.cu: lab 3's ceilings, CUB's device-wide sum, scan
 * and select, built into build/ceilings/lab3.so (see reduce.cu for why the
 * ceilings live in libraries of their own). */
#include <stdint.h>

#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>

struct positive {
    __host__ __device__ bool operator()(int x) const { return x > 0; }
};

/* The largest temporary storage the three need for n elements; 0 on success. */
extern "C" int ceiling_shuffle_temp_bytes(size_t n, size_t *bytes)
{
    size_t a = 0, b = 0, c = 0;
    int64_t m = (int64_t)n;
    if (cub::DeviceReduce::Sum(nullptr, a, (const float *)nullptr, (float *)nullptr, m) !=
            cudaSuccess ||
        cub::DeviceScan::InclusiveSum(nullptr, b, (const int *)nullptr, (int *)nullptr, m) !=
            cudaSuccess ||
        cub::DeviceSelect::If(nullptr, c, (const int *)nullptr, (int *)nullptr, (int *)nullptr, m,
                              positive()) != cudaSuccess)
        return -1;
    *bytes = a > b ? (a > c ? a : c) : (b > c ? b : c);
    return 0;
}

extern "C" int ceiling_shuffle_sum(const float *d_in, size_t n, float *d_out, void *d_temp,
                                   size_t temp_bytes, cudaStream_t stream)
{
    return cub::DeviceReduce::Sum(d_temp, temp_bytes, d_in, d_out, (int64_t)n, stream) ==
                   cudaSuccess
               ? 0
               : -1;
}

extern "C" int ceiling_shuffle_scan(const int *d_in, size_t n, int *d_out, void *d_temp,
                                    size_t temp_bytes, cudaStream_t stream)
{
    return cub::DeviceScan::InclusiveSum(d_temp, temp_bytes, d_in, d_out, (int64_t)n, stream) ==
                   cudaSuccess
               ? 0
               : -1;
}

extern "C" int ceiling_shuffle_select(const int *d_in, size_t n, int *d_out, int *d_count,
                                      void *d_temp, size_t temp_bytes, cudaStream_t stream)
{
    return cub::DeviceSelect::If(d_temp, temp_bytes, d_in, d_out, d_count, (int64_t)n,
                                 positive(), stream) == cudaSuccess
               ? 0
               : -1;
}

/* Last, after every definition: each function above is checked against its
 * type in ceilings.h (a conflicting redeclaration does not compile). At the
 * top of lab 3's file it changed the code nvcc made (the library grew by
 * 94 KB) and CUB's scan and select ran 18% and 30% slower on the H200, which
 * made the solution IMPOSSIBLE against them; here it changes nothing. */
#include "ceilings.h"
