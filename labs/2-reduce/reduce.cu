/* Lab 2, reduce: your work. Each stage below has a spec comment and TODOs;
 * write them in order and grade with `make lab2 && ./grade` (or one stage:
 * ./grade --stage 3). The given parts (the one-block kernel and the passes
 * helper) are complete: read them first.
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

[[maybe_unused]] static lab_status reduce_in_passes(block_sum_kernel kernel, unsigned threads, size_t per_block,
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
/* Goal: use the whole GPU. One block of THREADS threads per THREADS          */
/* elements: thread tid loads in[blockIdx.x * blockDim.x + tid] (0 past n)    */
/* into extern __shared__ float sdata[], then at steps s = 1, 2, 4, ... the   */
/* threads with tid % (2 * s) == 0 add sdata[tid + s] into sdata[tid], with   */
/* __syncthreads() after every step. Thread 0 writes sdata[0] to              */
/* sums[blockIdx.x]. reduce_in_passes does the rest.                          */
/* Expect: faster than one block by a factor that grows with the SM count    */
/* (about 11x on 132 SMs, 1.4x on 16; the grader asks for 0.07x per SM, at   */
/* most 3x, and does not grade this stage's speed below 16 SMs), but far     */
/* from the ceiling: the branch splits every warp (see the handout).          */
/* ------------------------------------------------------------------------ */

__global__ void interleaved_kernel(const float *__restrict__ in, size_t n, float *__restrict__ sums)
{
    /* TODO(lab2.s1): load, the tree with tid % (2 * s), store the block's sum. */
}

extern "C" lab_status reduce_interleaved(const float *d_in, size_t n, float *d_out, float *d_work,
                                         cudaStream_t stream)
{
    /* TODO(lab2.s1): return reduce_in_passes(interleaved_kernel, THREADS, THREADS, ...); */
    (void)d_in, (void)n, (void)d_out, (void)d_work, (void)stream;
    return LAB_TODO;
}

/* ------------------------------------------------------------------------ */
/* Stage 2: interleaved addressing, strided index.                            */
/* Goal: no divergent warps. At step s, thread tid works on                   */
/* index = 2 * s * tid, only while index < blockDim.x: the working threads    */
/* are the first ones, so whole warps work or skip together.                  */
/* Expect: faster than stage 1 (the grader asks for 1.15x); the addresses of  */
/* a warp are now 2s words apart, which costs bank conflicts (stage 3).       */
/* ------------------------------------------------------------------------ */

__global__ void strided_kernel(const float *__restrict__ in, size_t n, float *__restrict__ sums)
{
    /* TODO(lab2.s2): stage 1 with the strided index instead of the modulo. */
}

extern "C" lab_status reduce_strided(const float *d_in, size_t n, float *d_out, float *d_work,
                                     cudaStream_t stream)
{
    /* TODO(lab2.s2): like stage 1, with strided_kernel. */
    (void)d_in, (void)n, (void)d_out, (void)d_work, (void)stream;
    return LAB_TODO;
}

/* ------------------------------------------------------------------------ */
/* Stage 3: sequential addressing.                                            */
/* Goal: no bank conflicts. Fold the array in half at every step: for         */
/* s = blockDim.x / 2 down to 1, thread tid < s adds sdata[tid + s] into      */
/* sdata[tid]. A warp then touches 32 consecutive words, one per bank.        */
/* Expect: faster than stage 2 (the grader asks for 1.03x).                   */
/* ------------------------------------------------------------------------ */

__global__ void sequential_kernel(const float *__restrict__ in, size_t n, float *__restrict__ sums)
{
    /* TODO(lab2.s3): load, fold in half with s >>= 1, store. */
}

extern "C" lab_status reduce_sequential(const float *d_in, size_t n, float *d_out, float *d_work,
                                        cudaStream_t stream)
{
    /* TODO(lab2.s3): like stage 1, with sequential_kernel. */
    (void)d_in, (void)n, (void)d_out, (void)d_work, (void)stream;
    return LAB_TODO;
}

/* ------------------------------------------------------------------------ */
/* Stage 4: the first add during the load.                                    */
/* Goal: no idle threads after the load. Each block covers 2 * blockDim.x     */
/* elements: thread tid adds in[i] and in[i + blockDim.x], with               */
/* i = blockIdx.x * 2 * blockDim.x + tid (both loads coalesced, both guarded  */
/* against n), and the tree starts from that sum. Half as many blocks.        */
/* Expect: a big step (the grader asks for 1.3x over stage 3).                */
/* ------------------------------------------------------------------------ */

__global__ void first_add_kernel(const float *__restrict__ in, size_t n, float *__restrict__ sums)
{
    /* TODO(lab2.s4): two elements per thread, then stage 3's tree. */
}

extern "C" lab_status reduce_first_add(const float *d_in, size_t n, float *d_out, float *d_work,
                                       cudaStream_t stream)
{
    /* TODO(lab2.s4): per_block is now 2 * THREADS. */
    (void)d_in, (void)n, (void)d_out, (void)d_work, (void)stream;
    return LAB_TODO;
}

/* ------------------------------------------------------------------------ */
/* Stage 5: the last warp unrolled.                                           */
/* Goal: no block-wide barriers once one warp is left. Run the loop only      */
/* while s > 32, then let warp 0 (tid < 32) finish on its own: for            */
/* s = 32, 16, ..., 1, read v += sdata[tid + s], __syncwarp(), write          */
/* sdata[tid] = v, __syncwarp(). The threads of a warp do not run in          */
/* lockstep on Volta and later: without the __syncwarp() calls (`volatile`    */
/* alone, the old recipe) a thread can read a value its neighbour has not     */
/* written yet. Needs blockDim.x >= 64.                                       */
/* Expect: a modest gain on recent GPUs (the grader asks for 1.05x).          */
/* ------------------------------------------------------------------------ */

__global__ void unroll_warp_kernel(const float *__restrict__ in, size_t n, float *__restrict__ sums)
{
    /* TODO(lab2.s5): stage 4 with the loop stopping at s > 32 and a warp finish. */
}

extern "C" lab_status reduce_unroll_warp(const float *d_in, size_t n, float *d_out, float *d_work,
                                         cudaStream_t stream)
{
    /* TODO(lab2.s5): like stage 4, with unroll_warp_kernel. */
    (void)d_in, (void)n, (void)d_out, (void)d_work, (void)stream;
    return LAB_TODO;
}

/* ------------------------------------------------------------------------ */
/* Stage 6: the whole tree unrolled.                                          */
/* Goal: no loop overhead at all. Make the block size a template parameter,   */
/* template <unsigned BLOCK> __global__ void unroll_all_kernel(...), and      */
/* write each step as if (BLOCK >= 512) { if (tid < 256) ...;                 */
/* __syncthreads(); }, down to the warp finish. BLOCK is known at compile     */
/* time, so the compiler drops the steps that do not apply and the loop.      */
/* Launch unroll_all_kernel<THREADS> (a switch over the block sizes you       */
/* support, if you want more than one).                                       */
/* Expect: at least as fast as stage 5 (how much faster depends on the GPU    */
/* and compiler: the grader asks only that it not be slower).                 */
/* ------------------------------------------------------------------------ */

/* TODO(lab2.s6): template <unsigned BLOCK> __global__ void unroll_all_kernel(...) */

extern "C" lab_status reduce_unroll_all(const float *d_in, size_t n, float *d_out, float *d_work,
                                        cudaStream_t stream)
{
    /* TODO(lab2.s6): reduce_in_passes(unroll_all_kernel<THREADS>, THREADS, 2 * THREADS, ...) */
    (void)d_in, (void)n, (void)d_out, (void)d_work, (void)stream;
    return LAB_TODO;
}

/* ------------------------------------------------------------------------ */
/* Stage 7: many elements per thread.                                         */
/* Goal: the read bandwidth of the GPU. Stages 1 to 6 start one block per     */
/* 256 or 512 elements; here:                                                 */
/*  - size the grid to the GPU: SMs x blocks per SM (cudaDeviceGetAttribute   */
/*    with cudaDevAttrMultiProcessorCount, and                                */
/*    cudaOccupancyMaxActiveBlocksPerMultiprocessor), fewer for small n;      */
/*  - each thread loops over the input as float4s with a stride of           */
/*    gridDim.x * blockDim.x, issuing several loads before adding any         */
/*    (the grader's buffers are 256-byte aligned, so d_in is float4-aligned); */
/*  - the last n % 4 elements are added by one block;                         */
/*  - then your stage 6 tree, one partial sum per block in d_work, and one    */
/*    more launch of the same kernel with a single block over those sums.     */
/* Expect: close to CUB (the grader asks for 1.5x over stage 6 and 80% of     */
/* CUB's speed; the reference reaches 99.6% of CUB on an H200).             */
/* ------------------------------------------------------------------------ */

/* TODO(lab2.s7): your grid-stride kernel. */

extern "C" lab_status reduce_many(const float *d_in, size_t n, float *d_out, float *d_work,
                                  cudaStream_t stream)
{
    /* TODO(lab2.s7): pick the grid, launch over d_in into d_work, then one
     * block over the block sums into d_out; return LAB_OK. */
    (void)d_in, (void)n, (void)d_out, (void)d_work, (void)stream;
    return LAB_TODO;
}
