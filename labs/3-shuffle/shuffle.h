/* shuffle.h: the contract between lab 3 and the grader. Read it; do not edit it.
 *
 * Lab 3 has three operations, each on buffers the grader owns (device memory,
 * 256-byte aligned, never overlapping) and a stream it gives:
 *
 *  - stages 1 and 2 sum floats, as in lab 2:
 *        d_out[0] = d_in[0] + ... + d_in[n - 1]
 *  - stages 0 and 3 to 6 are inclusive prefix sums (scans) of ints. Stage 3
 *    scans each segment of 32 elements on its own, stage 4 each segment of
 *    SHUFFLE_SEGMENT elements, stages 0, 5 and 6 the whole array:
 *        d_out[i] = d_in[s] + d_in[s + 1] + ... + d_in[i]
 *    where s is the first index of i's segment (0 for a whole-array scan);
 *  - stage 7 compacts: the elements of d_in greater than 0, in their order,
 *    go to d_out[0], d_out[1], ...; their number to d_count[0].
 *
 * d_work is scratch space of shuffle_work_bytes(n) bytes. It, d_out and
 * d_count hold garbage when a stage is called. A stage launches its kernels
 * on the stream and returns LAB_OK; cudaMemsetAsync on the stream is allowed
 * (zero your flags and counters with it). It must not allocate, synchronise,
 * time or print. A stage not written yet returns LAB_TODO. Any n >= 1 must
 * work. The ints are small (|d_in[i]| <= 5), so no sum overflows. */
#ifndef CUDA_LABS_SHUFFLE_H
#define CUDA_LABS_SHUFFLE_H

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

#define SHUFFLE_SEGMENT 1024 /* the segment length of stage 4's block scan */

/* Bytes of scratch space in d_work for n elements: room for an int per
 * element, and 1 MiB for flags, counters and partial sums. */
static inline size_t shuffle_work_bytes(size_t n)
{
    return 4 * n + ((size_t)1 << 20);
}

typedef lab_status (*shuffle_reduce_fn)(const float *d_in, size_t n, float *d_out, void *d_work,
                                        cudaStream_t stream);
typedef lab_status (*shuffle_scan_fn)(const int *d_in, size_t n, int *d_out, void *d_work,
                                      cudaStream_t stream);
typedef lab_status (*shuffle_compact_fn)(const int *d_in, size_t n, int *d_out, int *d_count,
                                         void *d_work, cudaStream_t stream);

/* Given, complete: one block scans the whole array, tile after tile. */
lab_status scan_one_block(const int *d_in, size_t n, int *d_out, void *d_work, cudaStream_t stream);
/* Given, complete: block sums in shared memory (lab 2's stage 6), in passes. */
lab_status reduce_shared(const float *d_in, size_t n, float *d_out, void *d_work,
                         cudaStream_t stream);

/* Stage 2: warp sums with __shfl_down_sync, several elements per thread. */
lab_status reduce_shuffle(const float *d_in, size_t n, float *d_out, void *d_work,
                          cudaStream_t stream);
/* Stage 3: inclusive scan of each segment of 32, with __shfl_up_sync. */
lab_status scan_warp(const int *d_in, size_t n, int *d_out, void *d_work, cudaStream_t stream);
/* Stage 4: inclusive scan of each segment of SHUFFLE_SEGMENT: warp scans, then
 * a scan of the warp totals. */
lab_status scan_block(const int *d_in, size_t n, int *d_out, void *d_work, cudaStream_t stream);
/* Stage 5: whole-array scan in passes: scan tiles, scan the tile totals, add back. */
lab_status scan_multipass(const int *d_in, size_t n, int *d_out, void *d_work,
                          cudaStream_t stream);
/* Stage 6: whole-array scan in one pass, tiles chained by decoupled look-back. */
lab_status scan_lookback(const int *d_in, size_t n, int *d_out, void *d_work,
                         cudaStream_t stream);
/* Stage 7: stream compaction of the elements > 0, with __ballot_sync and __popc. */
lab_status compact_positive(const int *d_in, size_t n, int *d_out, int *d_count, void *d_work,
                            cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
