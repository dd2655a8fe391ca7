#define _POSIX_C_SOURCE 200809L
#include "timing.h"

#include <string.h>
#include <time.h>

cudaError_t l2_flusher_init(l2_flusher *f)
{
    int dev = 0, l2 = 0;
    cudaError_t err = cudaGetDevice(&dev);
    if (err == cudaSuccess)
        err = cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev);
    if (err != cudaSuccess)
        return err;
    f->bytes = 2 * (size_t)l2;
    if (f->bytes < ((size_t)8 << 20))
        f->bytes = (size_t)8 << 20;
    return cudaMalloc(&f->d_buf, f->bytes);
}

cudaError_t l2_flush(const l2_flusher *f, cudaStream_t stream)
{
    return cudaMemsetAsync(f->d_buf, 0x5a, f->bytes, stream);
}

void l2_flusher_free(l2_flusher *f)
{
    if (f->d_buf)
        cudaFree(f->d_buf);
    f->d_buf = NULL;
}

cudaError_t l2_reset_persisting(cudaStream_t stream)
{
    cudaStreamAttrValue none;
    memset(&none, 0, sizeof none);
    none.accessPolicyWindow.num_bytes = 0;
    cudaError_t err = cudaStreamSetAttribute(stream, cudaStreamAttributeAccessPolicyWindow, &none);
    cudaError_t err2 = cudaCtxResetPersistingL2Cache();
    return err != cudaSuccess ? err : err2;
}

cudaError_t gpu_timer_create(gpu_timer *t)
{
    cudaError_t err = cudaEventCreate(&t->start);
    return err != cudaSuccess ? err : cudaEventCreate(&t->stop);
}

cudaError_t gpu_timer_start(gpu_timer *t, cudaStream_t stream)
{
    return cudaEventRecord(t->start, stream);
}

cudaError_t gpu_timer_stop(gpu_timer *t, cudaStream_t stream)
{
    return cudaEventRecord(t->stop, stream);
}

cudaError_t gpu_timer_elapsed_ms(gpu_timer *t, float *ms)
{
    cudaError_t err = cudaEventSynchronize(t->stop);
    return err != cudaSuccess ? err : cudaEventElapsedTime(ms, t->start, t->stop);
}

void gpu_timer_destroy(gpu_timer *t)
{
    cudaEventDestroy(t->start);
    cudaEventDestroy(t->stop);
}

double wall_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}
