/* grader/given/shuffle_given.cu: lab 3's given stages (scan_one_block and
 * reduce_shared), the course's own copy. The grader calls and times these,
 * built into build/ceilings/lab3-given.so, in place of the submission's, so
 * that a submission cannot slow a given stage to make the next one look fast.
 * The lab's header is included by its path, with no -I, so that no other file
 * in the student's folder can stand in for a header. Below, every paragraph is
 * labs/3-shuffle/shuffle.cu's, word for word and in order (a test holds them
 * equal): change the skeleton, then copy the change here. */
#include "../../labs/3-shuffle/shuffle.h"

#define FULL_MASK 0xffffffffu

/* ------------------------------------------------------------------------ */
/* Given: one block scans everything, tile after tile.                        */
/* 1024 threads each take 16 consecutive elements of a 16384-element tile,    */
/* scan them in registers, and combine their totals with a scan in shared     */
/* memory (a step per power of two, two barriers per step); the running       */
/* total of the tiles before is carried in a register. One SM does all the    */
/* work: the yardstick for stages 5 to 7.                                     */
/* ------------------------------------------------------------------------ */

enum { ONE_THREADS = 1024, ONE_ITEMS = 16 };

__global__ void __launch_bounds__(ONE_THREADS)
    one_block_scan_kernel(const int *__restrict__ in, size_t n, int *__restrict__ out)
{
    __shared__ int totals[ONE_THREADS];
    const unsigned tid = threadIdx.x;
    int carry = 0; /* the sum of all tiles before this one */
    for (size_t base = 0; base < n; base += (size_t)ONE_THREADS * ONE_ITEMS) {
        size_t first = base + (size_t)tid * ONE_ITEMS;
        int v[ONE_ITEMS], sum = 0;
#pragma unroll
        for (int k = 0; k < ONE_ITEMS; k++) {
            sum += first + k < n ? in[first + k] : 0;
            v[k] = sum;
        }
        totals[tid] = sum;
        __syncthreads();
        for (unsigned off = 1; off < ONE_THREADS; off <<= 1) {
            int t = tid >= off ? totals[tid - off] : 0;
            __syncthreads();
            totals[tid] += t;
            __syncthreads();
        }
        int before = carry + (tid > 0 ? totals[tid - 1] : 0);
#pragma unroll
        for (int k = 0; k < ONE_ITEMS; k++)
            if (first + k < n)
                out[first + k] = v[k] + before;
        carry += totals[ONE_THREADS - 1];
        __syncthreads(); /* everyone has read totals before the next tile writes it */
    }
}

extern "C" lab_status scan_one_block(const int *d_in, size_t n, int *d_out, void *d_work,
                                     cudaStream_t stream)
{
    (void)d_work;
    one_block_scan_kernel<<<1, ONE_THREADS, 0, stream>>>(d_in, n, d_out);
    return LAB_OK;
}

/* ------------------------------------------------------------------------ */
/* Given: stage 1, block sums in shared memory, the design of lab 2's stage  */
/* 6: two elements per thread, a completely unrolled tree, passes until one  */
/* block is left.                                                             */
/* ------------------------------------------------------------------------ */

enum { SHARED_THREADS = 256 };

/* The block's sum of every thread's v, in a completely unrolled tree in
 * sdata[SHARED_THREADS]: thread 0 returns it (the others, partial sums). */
__device__ __forceinline__ float block_sum_tree(float v, float *sdata)
{
    const unsigned tid = threadIdx.x;
    sdata[tid] = v;
    __syncthreads();
    if (tid < 128)
        sdata[tid] += sdata[tid + 128];
    __syncthreads();
    if (tid < 64)
        sdata[tid] += sdata[tid + 64];
    __syncthreads();
    float x = 0.0f;
    if (tid < 32) {
        x = sdata[tid];
        for (unsigned s = 32; s > 0; s >>= 1) {
            x += sdata[tid + s];
            __syncwarp();
            sdata[tid] = x;
            __syncwarp();
        }
    }
    return x;
}

__global__ void __launch_bounds__(SHARED_THREADS)
    shared_sum_kernel(const float *__restrict__ in, size_t n, float *__restrict__ sums)
{
    __shared__ float sdata[SHARED_THREADS];
    size_t i = (size_t)blockIdx.x * (2 * SHARED_THREADS) + threadIdx.x;
    float v = i < n ? in[i] : 0.0f;
    if (i + SHARED_THREADS < n)
        v += in[i + SHARED_THREADS];
    v = block_sum_tree(v, sdata);
    if (threadIdx.x == 0)
        sums[blockIdx.x] = v;
}

extern "C" lab_status reduce_shared(const float *d_in, size_t n, float *d_out, void *d_work,
                                    cudaStream_t stream)
{
    const float *src = d_in;
    float *dst = (float *)d_work;
    for (;;) {
        size_t blocks = (n + 2 * SHARED_THREADS - 1) / (2 * SHARED_THREADS);
        float *sums = blocks == 1 ? d_out : dst;
        shared_sum_kernel<<<(unsigned)blocks, SHARED_THREADS, 0, stream>>>(src, n, sums);
        if (blocks == 1)
            return LAB_OK;
        src = dst;
        dst += blocks;
        n = blocks;
    }
}
