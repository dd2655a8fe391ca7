/* Lab 2, reduce: the reference solution.
 *
 * d_out[0] = d_in[0] + ... + d_in[n - 1]. A sum reads every element once and
 * does one addition per element, so arithmetic is free and the speed limit is
 * how fast the GPU can read n * 4 bytes. Each stage below fixes one thing that
 * keeps the stage before it from that limit. Read them in order;
 * handouts/2-reduce.md explains each step and gives the speeds measured on an
 * H200.
 *
 * The structure is the same in every stage: each block sums a slice of the
 * input into one partial sum in d_work, then the same kernel sums the partial
 * sums, and so on, until one block is left, which writes d_out[0]
 * (reduce_in_passes below). Stage 7 changes the balance: a grid sized to the
 * GPU does nearly all the work in one pass, and one block finishes.
 */
#include "reduce.h"

/* ------------------------------------------------------------------------ */
/* Given: one block sums everything.                                          */
/* 1024 threads walk the array with a stride of 1024, each keeping four       */
/* running sums so that four loads are in flight at once, then combine their  */
/* 1024 sums with an atomicAdd on one shared float (fine for one block; the   */
/* stages show the fast way to combine a block's values).                     */
/* ------------------------------------------------------------------------ */

enum { ONE_BLOCK_THREADS = 1024 };

__global__ void one_block_kernel(const float *__restrict__ in, size_t n, float *__restrict__ out)
{
    __shared__ float total;
    const size_t T = blockDim.x;
    size_t i = threadIdx.x;
    float a0 = 0.0f, a1 = 0.0f, a2 = 0.0f, a3 = 0.0f;
    for (; i + 3 * T < n; i += 4 * T) {
        a0 += in[i];
        a1 += in[i + T];
        a2 += in[i + 2 * T];
        a3 += in[i + 3 * T];
    }
    for (; i < n; i += T)
        a0 += in[i];
    if (threadIdx.x == 0)
        total = 0.0f;
    __syncthreads();
    atomicAdd(&total, (a0 + a1) + (a2 + a3));
    __syncthreads();
    if (threadIdx.x == 0)
        out[0] = total;
}

extern "C" lab_status reduce_one_block(const float *d_in, size_t n, float *d_out, float *d_work,
                                       cudaStream_t stream)
{
    (void)d_work;
    one_block_kernel<<<1, ONE_BLOCK_THREADS, 0, stream>>>(d_in, n, d_out);
    return LAB_OK;
}

/* ------------------------------------------------------------------------ */
/* Given: the passes. A block-sum kernel takes (in, n, sums): block b sums    */
/* its slice of in (per_block elements) into sums[b]. Run it over the input,  */
/* then over the block sums it wrote, and so on; the pass that needs only one */
/* block writes the total to d_out. Each pass puts its sums in d_work after   */
/* the sums of the pass before, so no pass overwrites its own input.          */
/* ------------------------------------------------------------------------ */

typedef void (*block_sum_kernel)(const float *in, size_t n, float *sums);

static lab_status reduce_in_passes(block_sum_kernel kernel, unsigned threads, size_t per_block,
                                   const float *d_in, size_t n, float *d_out, float *d_work,
                                   cudaStream_t stream)
{
    const float *src = d_in;
    float *dst = d_work;
    for (;;) {
        size_t blocks = (n + per_block - 1) / per_block;
        float *sums = blocks == 1 ? d_out : dst;
        kernel<<<(unsigned)blocks, threads, threads * sizeof(float), stream>>>(src, n, sums);
        if (blocks == 1)
            return LAB_OK;
        src = dst;
        dst += blocks;
        n = blocks;
    }
}

enum { THREADS = 256 }; /* threads per block in stages 1 to 6 */

/* ------------------------------------------------------------------------ */
/* Stage 1: a tree in shared memory, interleaved addressing.                  */
/* Each thread loads one element into sdata; at step s (1, 2, 4, ...) thread  */
/* tid adds sdata[tid + s] into sdata[tid] when tid is a multiple of 2s. It   */
/* works, but the branch splits every warp: at s = 1 half the threads of each */
/* warp are idle yet the warp takes as long as if all worked, and the modulo  */
/* is slow. One element per thread also leaves half the threads idle from the */
/* first step on.                                                             */
/* ------------------------------------------------------------------------ */

__global__ void interleaved_kernel(const float *__restrict__ in, size_t n, float *__restrict__ sums)
{
    extern __shared__ float sdata[];
    unsigned tid = threadIdx.x;
    size_t i = (size_t)blockIdx.x * blockDim.x + tid;
    sdata[tid] = i < n ? in[i] : 0.0f;
    __syncthreads();
    for (unsigned s = 1; s < blockDim.x; s *= 2) {
        if (tid % (2 * s) == 0)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0)
        sums[blockIdx.x] = sdata[0];
}

extern "C" lab_status reduce_interleaved(const float *d_in, size_t n, float *d_out, float *d_work,
                                         cudaStream_t stream)
{
    return reduce_in_passes(interleaved_kernel, THREADS, THREADS, d_in, n, d_out, d_work, stream);
}

/* ------------------------------------------------------------------------ */
/* Stage 2: interleaved addressing, strided index.                            */
/* The same tree, but at step s thread tid works on index 2 * s * tid: the    */
/* working threads are now the first ones, packed into whole warps, and the   */
/* other warps skip the step entirely. No divergence and no modulo; but the   */
/* addresses of one warp are 2s words apart, so at s = 1 two threads of a     */
/* warp hit each shared-memory bank, at s = 16 eight (all 8 threads left     */
/* working, in bank 0): bank conflicts.                                     */
/* ------------------------------------------------------------------------ */

__global__ void strided_kernel(const float *__restrict__ in, size_t n, float *__restrict__ sums)
{
    extern __shared__ float sdata[];
    unsigned tid = threadIdx.x;
    size_t i = (size_t)blockIdx.x * blockDim.x + tid;
    sdata[tid] = i < n ? in[i] : 0.0f;
    __syncthreads();
    for (unsigned s = 1; s < blockDim.x; s *= 2) {
        unsigned index = 2 * s * tid;
        if (index < blockDim.x)
            sdata[index] += sdata[index + s];
        __syncthreads();
    }
    if (tid == 0)
        sums[blockIdx.x] = sdata[0];
}

extern "C" lab_status reduce_strided(const float *d_in, size_t n, float *d_out, float *d_work,
                                     cudaStream_t stream)
{
    return reduce_in_passes(strided_kernel, THREADS, THREADS, d_in, n, d_out, d_work, stream);
}

/* ------------------------------------------------------------------------ */
/* Stage 3: sequential addressing.                                            */
/* Fold the array in half instead: thread tid < s adds sdata[tid + s] into    */
/* sdata[tid], for s = blockDim.x / 2 down to 1. The working threads are the  */
/* first s (whole warps again), and a warp reads 32 consecutive words: one    */
/* per bank, no conflicts.                                                    */
/* ------------------------------------------------------------------------ */

__global__ void sequential_kernel(const float *__restrict__ in, size_t n, float *__restrict__ sums)
{
    extern __shared__ float sdata[];
    unsigned tid = threadIdx.x;
    size_t i = (size_t)blockIdx.x * blockDim.x + tid;
    sdata[tid] = i < n ? in[i] : 0.0f;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0)
        sums[blockIdx.x] = sdata[0];
}

extern "C" lab_status reduce_sequential(const float *d_in, size_t n, float *d_out, float *d_work,
                                        cudaStream_t stream)
{
    return reduce_in_passes(sequential_kernel, THREADS, THREADS, d_in, n, d_out, d_work, stream);
}

/* ------------------------------------------------------------------------ */
/* Stage 4: the first add during the load.                                    */
/* In stage 3 half the threads retire after the load, having added nothing.   */
/* Let each block cover 2 * blockDim.x elements and each thread add two of    */
/* them (blockDim.x apart, so both loads stay coalesced) before the tree:     */
/* half as many blocks do the same work.                                      */
/* ------------------------------------------------------------------------ */

/* Thread tid's first value: the sum of its two elements of the block's slice. */
__device__ __forceinline__ float load_two(const float *__restrict__ in, size_t n, unsigned tid)
{
    size_t i = (size_t)blockIdx.x * (2 * blockDim.x) + tid;
    float v = i < n ? in[i] : 0.0f;
    if (i + blockDim.x < n)
        v += in[i + blockDim.x];
    return v;
}

__global__ void first_add_kernel(const float *__restrict__ in, size_t n, float *__restrict__ sums)
{
    extern __shared__ float sdata[];
    unsigned tid = threadIdx.x;
    sdata[tid] = load_two(in, n, tid);
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0)
        sums[blockIdx.x] = sdata[0];
}

extern "C" lab_status reduce_first_add(const float *d_in, size_t n, float *d_out, float *d_work,
                                       cudaStream_t stream)
{
    return reduce_in_passes(first_add_kernel, THREADS, 2 * THREADS, d_in, n, d_out, d_work,
                            stream);
}

/* ------------------------------------------------------------------------ */
/* Stage 5: the last warp unrolled.                                           */
/* Once s <= 32 only the first warp works, and __syncthreads() (a barrier for */
/* the whole block) is more than it needs. Stop the loop at s = 64 and let    */
/* warp 0 finish alone. Its 32 threads do not run in lockstep on Volta and    */
/* later (independent thread scheduling), so `volatile` alone, the old trick, */
/* is not enough: each step reads into a register, waits at __syncwarp(),     */
/* writes, and waits again, so no thread reads a value its neighbour is still */
/* writing. Needs blockDim.x >= 64.                                           */
/* ------------------------------------------------------------------------ */

__device__ __forceinline__ void warp_finish(float *sdata, unsigned tid)
{
    float v = sdata[tid];
    for (unsigned s = 32; s > 0; s >>= 1) {
        v += sdata[tid + s];
        __syncwarp();
        sdata[tid] = v;
        __syncwarp();
    }
}

__global__ void unroll_warp_kernel(const float *__restrict__ in, size_t n, float *__restrict__ sums)
{
    extern __shared__ float sdata[];
    unsigned tid = threadIdx.x;
    sdata[tid] = load_two(in, n, tid);
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 32; s >>= 1) {
        if (tid < s)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid < 32)
        warp_finish(sdata, tid);
    if (tid == 0)
        sums[blockIdx.x] = sdata[0];
}

extern "C" lab_status reduce_unroll_warp(const float *d_in, size_t n, float *d_out, float *d_work,
                                         cudaStream_t stream)
{
    return reduce_in_passes(unroll_warp_kernel, THREADS, 2 * THREADS, d_in, n, d_out, d_work,
                            stream);
}

/* ------------------------------------------------------------------------ */
/* Stage 6: the whole tree unrolled.                                          */
/* With the block size a template parameter the compiler knows every step of  */
/* the loop: it unrolls it, drops the loop counter and the tests that are     */
/* false for this size (`if (BLOCK >= 512)` costs nothing at run time). The   */
/* host picks the instance; this solution uses 256 threads.                   */
/* ------------------------------------------------------------------------ */

template <unsigned BLOCK>
__device__ __forceinline__ void block_tree(float *sdata, unsigned tid)
{
    static_assert(BLOCK >= 64 && BLOCK <= 1024 && (BLOCK & (BLOCK - 1)) == 0,
                  "BLOCK must be a power of two from 64 to 1024");
    if (BLOCK >= 1024) {
        if (tid < 512)
            sdata[tid] += sdata[tid + 512];
        __syncthreads();
    }
    if (BLOCK >= 512) {
        if (tid < 256)
            sdata[tid] += sdata[tid + 256];
        __syncthreads();
    }
    if (BLOCK >= 256) {
        if (tid < 128)
            sdata[tid] += sdata[tid + 128];
        __syncthreads();
    }
    if (BLOCK >= 128) {
        if (tid < 64)
            sdata[tid] += sdata[tid + 64];
        __syncthreads();
    }
    if (tid < 32)
        warp_finish(sdata, tid); /* the loop has a constant trip count: unrolled */
}

template <unsigned BLOCK>
__global__ void __launch_bounds__(BLOCK)
    unroll_all_kernel(const float *__restrict__ in, size_t n, float *__restrict__ sums)
{
    extern __shared__ float sdata[];
    unsigned tid = threadIdx.x;
    sdata[tid] = load_two(in, n, tid);
    __syncthreads();
    block_tree<BLOCK>(sdata, tid);
    if (tid == 0)
        sums[blockIdx.x] = sdata[0];
}

extern "C" lab_status reduce_unroll_all(const float *d_in, size_t n, float *d_out, float *d_work,
                                        cudaStream_t stream)
{
    return reduce_in_passes(unroll_all_kernel<THREADS>, THREADS, 2 * THREADS, d_in, n, d_out,
                            d_work, stream);
}

/* ------------------------------------------------------------------------ */
/* Stage 7: many elements per thread.                                         */
/* Stages 1 to 6 start one block per 512 elements: half a million blocks for  */
/* the benchmark, each paying for its start, its tree and its store, and each */
/* thread has only two loads in flight. Here the grid is sized to the GPU     */
/* (enough blocks to fill every SM once), and each thread walks the array     */
/* with a grid-sized stride, reading 16 bytes (a float4) per load and issuing */
/* UNROLL loads before it adds any of them, so many bytes are in flight per   */
/* SM. The tree then runs once per block instead of once per 512 elements,    */
/* and a second launch of the same kernel with one block sums the few hundred */
/* block sums. The last n % 4 elements are added by block 0.                  */
/* ------------------------------------------------------------------------ */

enum {
    MANY_THREADS = 256, /* threads per block */
    MANY_UNROLL = 4,    /* float4 loads in flight per thread */
};

template <unsigned BLOCK, unsigned UNROLL>
__global__ void __launch_bounds__(BLOCK)
    many_kernel(const float *__restrict__ in, size_t n, float *__restrict__ sums)
{
    __shared__ float sdata[BLOCK];
    const unsigned tid = threadIdx.x;
    const float4 *__restrict__ in4 = reinterpret_cast<const float4 *>(in);
    const size_t n4 = n / 4;
    const size_t stride = (size_t)gridDim.x * BLOCK;
    size_t i = (size_t)blockIdx.x * BLOCK + tid;
    float acc = 0.0f;
    for (; i + (UNROLL - 1) * stride < n4; i += UNROLL * stride) {
        float4 v[UNROLL];
#pragma unroll
        for (unsigned u = 0; u < UNROLL; u++) /* all loads first ... */
            v[u] = in4[i + u * stride];
#pragma unroll
        for (unsigned u = 0; u < UNROLL; u++) /* ... then the adds */
            acc += (v[u].x + v[u].y) + (v[u].z + v[u].w);
    }
    for (; i < n4; i += stride) {
        float4 v = in4[i];
        acc += (v.x + v.y) + (v.z + v.w);
    }
    if (blockIdx.x == 0 && tid < n % 4)
        acc += in[n4 * 4 + tid];
    sdata[tid] = acc;
    __syncthreads();
    block_tree<BLOCK>(sdata, tid);
    if (tid == 0)
        sums[blockIdx.x] = sdata[0];
}

extern "C" lab_status reduce_many(const float *d_in, size_t n, float *d_out, float *d_work,
                                  cudaStream_t stream)
{
    /* Enough blocks to fill the GPU once: SMs x blocks that fit on one SM. */
    static int grid_size; /* worked out on the first call */
    if (grid_size == 0) {
        int device = 0, sms = 0, per_sm = 0;
        if (cudaGetDevice(&device) != cudaSuccess ||
            cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess ||
            cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                &per_sm, many_kernel<MANY_THREADS, MANY_UNROLL>, MANY_THREADS, 0) != cudaSuccess)
            return LAB_ERROR;
        grid_size = sms * per_sm;
    }
    /* Small inputs need fewer blocks: one float4 per thread at least. */
    size_t n4 = n / 4;
    size_t useful = (n4 + MANY_THREADS - 1) / MANY_THREADS;
    unsigned blocks = (unsigned)(useful < (size_t)grid_size ? (useful > 0 ? useful : 1) : grid_size);
    if (blocks == 1) {
        many_kernel<MANY_THREADS, MANY_UNROLL><<<1, MANY_THREADS, 0, stream>>>(d_in, n, d_out);
        return LAB_OK;
    }
    many_kernel<MANY_THREADS, MANY_UNROLL><<<blocks, MANY_THREADS, 0, stream>>>(d_in, n, d_work);
    many_kernel<MANY_THREADS, MANY_UNROLL><<<1, MANY_THREADS, 0, stream>>>(d_work, blocks, d_out);
    return LAB_OK;
}
