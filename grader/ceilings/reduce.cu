/* grader/ceilings/reduce.cu: lab 2's ceiling, CUB's device-wide sum, built
 * into its own library (build/ceilings/lab2.so) that a grading child loads.
 * The grader itself is C and never links CUDA code that registers kernels at
 * start-up: its parent process must stay free of CUDA until it forks. */
#include <stdint.h>

#include <cub/device/device_reduce.cuh>

/* Bytes of temporary storage CUB needs to sum n floats; 0 on success. */
extern "C" int ceiling_reduce_temp_bytes(size_t n, size_t *bytes)
{
    *bytes = 0;
    cudaError_t err = cub::DeviceReduce::Sum(nullptr, *bytes, (const float *)nullptr,
                                             (float *)nullptr, (int64_t)n);
    return err == cudaSuccess ? 0 : -1;
}

/* d_out[0] = the sum of d_in[0..n), on stream; 0 when it was launched. */
extern "C" int ceiling_reduce_sum(const float *d_in, size_t n, float *d_out, void *d_temp,
                                  size_t temp_bytes, cudaStream_t stream)
{
    cudaError_t err = cub::DeviceReduce::Sum(d_temp, temp_bytes, d_in, d_out, (int64_t)n, stream);
    return err == cudaSuccess ? 0 : -1;
}

/* Last, after every definition: each function above is checked against its
 * type in ceilings.h (a conflicting redeclaration does not compile). At the
 * top of lab 3's file it changed the code nvcc made (the library grew by
 * 94 KB) and CUB's scan and select ran 18% and 30% slower on the H200, which
 * made the solution IMPOSSIBLE against them; here it changes nothing. */
#include "ceilings.h"
