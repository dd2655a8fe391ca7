/* reduce.h: the contract between lab 2 and the grader. Read it; do not edit it.
 *
 * Every stage sums the n floats of d_in and writes the sum, one float, to
 * d_out[0]:
 *
 *     d_out[0] = d_in[0] + d_in[1] + ... + d_in[n - 1]
 *
 * in any order of additions (float addition is not associative, so the grader
 * accepts a small difference from the exact sum: see the handout). The grader
 * owns every buffer (device memory, 256-byte aligned, never overlapping) and
 * the stream. d_work is scratch space for partial sums, reduce_work_floats(n)
 * floats long; its contents are garbage (NaN) when a stage is called, and the
 * same goes for d_out. A stage launches its kernel(s) on the stream and
 * returns LAB_OK. It must not allocate, synchronise, time, or print in this
 * path; cudaMemsetAsync on the stream is allowed. A stage not written yet
 * returns LAB_TODO. Any n >= 1 must work, not only the benchmark size. */
#ifndef CUDA_LABS_REDUCE_H
#define CUDA_LABS_REDUCE_H

#include <stddef.h>
#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef CUDA_LABS_LAB_STATUS
#define CUDA_LABS_LAB_STATUS
typedef enum lab_status {
    LAB_OK = 0,   /* kernels launched */
    LAB_TODO = 1, /* this stage is not written yet */
    LAB_ERROR = 2 /* the stage found a problem it could not handle */
} lab_status;
#endif

/* Floats of scratch space in d_work for an input of n floats: enough for the
 * partial sums of every pass when each block sums at least 32 elements. */
static inline size_t reduce_work_floats(size_t n)
{
    return n / 16 + 4096;
}

typedef lab_status (*reduce_fn)(const float *d_in, size_t n, float *d_out, float *d_work,
                                cudaStream_t stream);

/* Given, complete: one block of 1024 threads sums everything. The yardstick:
 * what one SM of the GPU can do alone. (Stages 1-6 do not use it to finish:
 * reduce_in_passes relaunches the stage's own kernel until one block is left.) */
lab_status reduce_one_block(const float *d_in, size_t n, float *d_out, float *d_work,
                            cudaStream_t stream);

/* Stage 1: tree in shared memory, interleaved addressing, divergent branch. */
lab_status reduce_interleaved(const float *d_in, size_t n, float *d_out, float *d_work,
                              cudaStream_t stream);
/* Stage 2: interleaved addressing with a strided index: no divergence, bank conflicts. */
lab_status reduce_strided(const float *d_in, size_t n, float *d_out, float *d_work,
                          cudaStream_t stream);
/* Stage 3: sequential addressing: no divergence, no bank conflicts. */
lab_status reduce_sequential(const float *d_in, size_t n, float *d_out, float *d_work,
                             cudaStream_t stream);
/* Stage 4: the first add during the load: every thread starts with two elements. */
lab_status reduce_first_add(const float *d_in, size_t n, float *d_out, float *d_work,
                            cudaStream_t stream);
/* Stage 5: the last warp unrolled, warp-synchronous with __syncwarp(). */
lab_status reduce_unroll_warp(const float *d_in, size_t n, float *d_out, float *d_work,
                              cudaStream_t stream);
/* Stage 6: the whole tree unrolled, the block size a template parameter. */
lab_status reduce_unroll_all(const float *d_in, size_t n, float *d_out, float *d_work,
                             cudaStream_t stream);
/* Stage 7: many elements per thread: a grid sized to the GPU, a grid-stride
 * loop of 16-byte loads, then one small finishing pass. */
lab_status reduce_many(const float *d_in, size_t n, float *d_out, float *d_work,
                       cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
