/* transpose.h: the contract between lab 1 and the grader. Read it; do not edit it.
 *
 * Every stage transposes a rows x cols matrix of floats, stored row-major in
 * d_in, into the cols x rows matrix d_out:
 *
 *     d_out[c * rows + r] = d_in[r * cols + c]    for 0 <= r < rows, 0 <= c < cols
 *
 * The grader owns both buffers (device memory, 256-byte aligned, never
 * overlapping) and the stream. A stage launches its kernel(s) on that stream and
 * returns LAB_OK. It must not allocate, synchronise, time, or print in this path:
 * the grader times the call and checks the result itself. A stage not written
 * yet returns LAB_TODO. Any rows, cols >= 1 must work, not only the benchmark size. */
#ifndef CUDA_LABS_TRANSPOSE_H
#define CUDA_LABS_TRANSPOSE_H

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

typedef lab_status (*transpose_fn)(const float *d_in, float *d_out, int rows, int cols,
                                   cudaStream_t stream);

/* Given, complete: copies d_in to d_out unchanged (rows x cols). The yardstick:
 * a transpose moves the same bytes as this copy, so it can at best match it. */
lab_status transpose_copy(const float *d_in, float *d_out, int rows, int cols,
                          cudaStream_t stream);

/* Stage 1: one thread per element, reads coalesced, writes strided. */
lab_status transpose_naive_read(const float *d_in, float *d_out, int rows, int cols,
                                cudaStream_t stream);
/* Stage 2: one thread per element, writes coalesced, reads strided. */
lab_status transpose_naive_write(const float *d_in, float *d_out, int rows, int cols,
                                 cudaStream_t stream);
/* Stage 3: a 32 x 32 tile through shared memory; reads and writes coalesced. */
lab_status transpose_tiled(const float *d_in, float *d_out, int rows, int cols,
                           cudaStream_t stream);
/* Stage 4: stage 3 without shared-memory bank conflicts (padded tile). */
lab_status transpose_padded(const float *d_in, float *d_out, int rows, int cols,
                            cudaStream_t stream);
/* Stage 5: several elements per thread, 16-byte loads and stores. */
lab_status transpose_vectorized(const float *d_in, float *d_out, int rows, int cols,
                                cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
