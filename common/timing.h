/* timing.h: what every timed repetition needs. CUDA events on the grader's
 * stream, a cold L2 (flushed by overwriting a buffer twice its size, allocated
 * once), no persisting-L2 window left behind, and a host clock to compare
 * event time with wall time. */
#ifndef CUDA_LABS_TIMING_H
#define CUDA_LABS_TIMING_H

#include <stddef.h>
#include <cuda_runtime_api.h>

typedef struct l2_flusher {
    void *d_buf;
    size_t bytes;
} l2_flusher;

/* Allocates 2 x the L2 size of the current device (at least 8 MiB). */
cudaError_t l2_flusher_init(l2_flusher *f);
/* Overwrites the whole flush buffer on the stream: whatever sat in L2 is evicted. */
cudaError_t l2_flush(const l2_flusher *f, cudaStream_t stream);
void l2_flusher_free(l2_flusher *f);
/* Drops persisting L2 lines and clears the stream's access-policy window,
 * so a window set by earlier code cannot speed up the next repetition. */
cudaError_t l2_reset_persisting(cudaStream_t stream);

typedef struct gpu_timer {
    cudaEvent_t start, stop;
} gpu_timer;

cudaError_t gpu_timer_create(gpu_timer *t);
cudaError_t gpu_timer_start(gpu_timer *t, cudaStream_t stream);
cudaError_t gpu_timer_stop(gpu_timer *t, cudaStream_t stream);
/* Milliseconds between start and stop; waits for stop. */
cudaError_t gpu_timer_elapsed_ms(gpu_timer *t, float *ms);
void gpu_timer_destroy(gpu_timer *t);

/* Monotonic host clock in milliseconds. */
double wall_ms(void);

#endif
