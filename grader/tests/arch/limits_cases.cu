/* limits_cases.cu: a lab 1 library whose stages break one architecture
 * limit each, for the arch suite (grader/tests/check_arch.c) to prove that
 * it fails them. Never graded; its kernels never run (the recorder calls the
 * stages over a fake runtime).
 *   transpose_copy        fits everywhere (the control)
 *   transpose_naive_read  spills: 1024 threads leave 64 registers each, and
 *                         it keeps 160 values live
 *   transpose_naive_write asks for 100 KB of dynamic shared memory: more than
 *                         sm_75 (64 KB) and sm_86/89/120 (99 KB) give a block
 *   transpose_tiled       no __launch_bounds__, about 160 registers, launched
 *                         with 1024 threads: registers x threads > 65536
 *   transpose_padded      __launch_bounds__(256), launched with 512 threads */
#include "transpose.h"

#define LIVE 160

__global__ void fits_kernel(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = in[i];
}

/* LIVE values loaded before any is used, then combined: all live at once. */
__device__ __forceinline__ float many_live(const float *in, int n, int i)
{
    float v[LIVE];
#pragma unroll
    for (int k = 0; k < LIVE; k++)
        v[k] = in[(i + k * 977) % n];
    float s = 0.0f;
#pragma unroll
    for (int k = 0; k < LIVE; k++)
        s = s * v[LIVE - 1 - k] + v[k];
    return s;
}

__global__ void __launch_bounds__(1024, 1) spill_kernel(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = many_live(in, n, i);
}

__global__ void big_shared_kernel(const float *in, float *out, int n)
{
    extern __shared__ float big[];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    big[threadIdx.x] = i < n ? in[i] : 0.0f;
    __syncthreads();
    if (i < n)
        out[i] = big[blockDim.x - 1 - threadIdx.x];
}

__global__ void many_regs_kernel(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = many_live(in, n, i);
}

__global__ void __launch_bounds__(256) bounded_kernel(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = 2.0f * in[i];
}

#define BIG_SHARED (100 * 1024)

extern "C" lab_status transpose_copy(const float *d_in, float *d_out, int rows, int cols,
                                     cudaStream_t stream)
{
    int n = rows * cols;
    fits_kernel<<<(n + 255) / 256, 256, 0, stream>>>(d_in, d_out, n);
    return LAB_OK;
}

extern "C" lab_status transpose_naive_read(const float *d_in, float *d_out, int rows, int cols,
                                           cudaStream_t stream)
{
    int n = rows * cols;
    spill_kernel<<<(n + 1023) / 1024, 1024, 0, stream>>>(d_in, d_out, n);
    return LAB_OK;
}

extern "C" lab_status transpose_naive_write(const float *d_in, float *d_out, int rows, int cols,
                                            cudaStream_t stream)
{
    int n = rows * cols;
    if (cudaFuncSetAttribute(big_shared_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                             BIG_SHARED) != cudaSuccess)
        return LAB_ERROR; /* what a careful stage does; the launch below is what a careless one does */
    big_shared_kernel<<<(n + 255) / 256, 256, BIG_SHARED, stream>>>(d_in, d_out, n);
    return LAB_OK;
}

extern "C" lab_status transpose_tiled(const float *d_in, float *d_out, int rows, int cols,
                                      cudaStream_t stream)
{
    int n = rows * cols;
    many_regs_kernel<<<(n + 1023) / 1024, 1024, 0, stream>>>(d_in, d_out, n);
    return LAB_OK;
}

extern "C" lab_status transpose_padded(const float *d_in, float *d_out, int rows, int cols,
                                       cudaStream_t stream)
{
    int n = rows * cols;
    bounded_kernel<<<(n + 511) / 512, 512, 0, stream>>>(d_in, d_out, n);
    return LAB_OK;
}

extern "C" lab_status transpose_vectorized(const float *d_in, float *d_out, int rows, int cols,
                                           cudaStream_t stream)
{
    (void)d_in, (void)d_out, (void)rows, (void)cols, (void)stream;
    return LAB_TODO;
}
