/* Lab 3, shuffle: your work. Each stage below has a spec comment and TODOs;
 * write them in order and grade with `make lab3 && ./grade` (or one stage:
 * ./grade --stage 3). Stages 0 and 1 and the helpers marked "Given" are
 * complete: read them first.
 *
 * The 32 threads of a warp can read each other's registers directly: a
 * shuffle (__shfl_*_sync) moves one value from lane to lane in one
 * instruction, with no shared memory and no barrier. This lab builds on that
 * a reduction, scans from one warp up to the whole GPU, and a stream
 * compaction. handouts/3-shuffle.md explains each stage and gives the speeds
 * measured on an H200.
 */
#include "shuffle.h"

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

/* ------------------------------------------------------------------------ */
/* Given: helpers for the stages below.                                       */
/* ------------------------------------------------------------------------ */

/* Blocks that fill the GPU once (SMs x blocks per SM), found on the first call. */
template <typename Kernel>
static int grid_for(Kernel kernel, int threads)
{
    int device = 0, sms = 0, per_sm = 0;
    if (cudaGetDevice(&device) != cudaSuccess ||
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess ||
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, 0) != cudaSuccess)
        return 0;
    return sms * per_sm;
}

/* The tile layout of the reference (you may choose another): a block of 256
 * threads owns a tile of 8 warps; warp w owns 128 R consecutive elements of
 * it, read in R rounds of 128: in round k, lane i holds elements
 * 128 k + 4 i .. 128 k + 4 i + 3 as one int4. Every load and store of a warp
 * then covers 512 contiguous bytes. The helpers below load and store one
 * warp's elements that way (zeros past n; nothing stored past n). */
enum {
    TILE_THREADS = 256,
    TILE_WARPS = TILE_THREADS / 32,
};

/* Reads a warp's 128 R elements (zeros past n) as R int4s per lane. */
template <int R>
__device__ __forceinline__ void load_warp_items(const int *__restrict__ in, size_t n,
                                                size_t warp_base, int4 (&v)[R])
{
    const unsigned lane = threadIdx.x & 31;
    if (warp_base + 128 * R <= n) {
        const int4 *in4 = reinterpret_cast<const int4 *>(in + warp_base);
#pragma unroll
        for (int k = 0; k < R; k++)
            v[k] = in4[32 * k + lane];
    } else {
#pragma unroll
        for (int k = 0; k < R; k++) {
            size_t e = warp_base + 128 * k + 4 * lane;
            v[k].x = e < n ? in[e] : 0;
            v[k].y = e + 1 < n ? in[e + 1] : 0;
            v[k].z = e + 2 < n ? in[e + 2] : 0;
            v[k].w = e + 3 < n ? in[e + 3] : 0;
        }
    }
}

template <int R>
__device__ __forceinline__ void store_warp_items(int *__restrict__ out, size_t n,
                                                 size_t warp_base, const int4 (&v)[R])
{
    const unsigned lane = threadIdx.x & 31;
    if (warp_base + 128 * R <= n) {
        int4 *out4 = reinterpret_cast<int4 *>(out + warp_base);
#pragma unroll
        for (int k = 0; k < R; k++)
            out4[32 * k + lane] = v[k];
    } else {
#pragma unroll
        for (int k = 0; k < R; k++) {
            size_t e = warp_base + 128 * k + 4 * lane;
            if (e < n)
                out[e] = v[k].x;
            if (e + 1 < n)
                out[e + 1] = v[k].y;
            if (e + 2 < n)
                out[e + 2] = v[k].z;
            if (e + 3 < n)
                out[e + 3] = v[k].w;
        }
    }
}

/* ------------------------------------------------------------------------ */
/* Stage 2: warp-shuffle sum.                                                 */
/* Goal: a block sum without a tree in shared memory. Write                   */
/*   __device__ float warp_sum_down(float v): five steps of                  */
/*   v += __shfl_down_sync(FULL_MASK, v, offset) for offset = 16, 8, 4, 2, 1; */
/*   lane 0 ends with the warp's total;                                       */
/* then a kernel in which every thread adds several elements (grid-stride,   */
/* float4 loads, several in flight: lab 2's stage 7), each warp sums with    */
/* warp_sum_down, lane 0 writes the warp's sum to __shared__ float           */
/* warp_sums[8], one __syncthreads(), and warp 0 sums those 8 and writes the */
/* block's sum to d_work. One more launch with one block sums the block sums. */
/* Expect: 1.5x over stage 1 and 80% of CUB (the reference on an H200:       */
/* 1.88x and 99.5%). That speed comes from the loop; the grader checks the   */
/* shuffles in your kernels' machine code (SHFL): without them the stage     */
/* loses its speed points, however fast it is.                               */
/* ------------------------------------------------------------------------ */

/* TODO(lab3.s2): warp_sum_down and your kernel. */

extern "C" lab_status reduce_shuffle(const float *d_in, size_t n, float *d_out, void *d_work,
                                     cudaStream_t stream)
{
    /* TODO(lab3.s2): grid_for(your_kernel, threads) blocks over d_in into d_work, then one
     * block over the block sums into d_out. */
    (void)d_in, (void)n, (void)d_out, (void)d_work, (void)stream;
    return LAB_TODO;
}

/* ------------------------------------------------------------------------ */
/* Stage 3: warp scan of each segment of 32.                                  */
/* Goal: the Kogge-Stone scan in one warp. Write                              */
/*   __device__ int warp_inclusive_scan(int v): for d = 1, 2, 4, 8, 16,       */
/*   int below = __shfl_up_sync(FULL_MASK, v, d); if (lane >= d) v += below;  */
/* and a kernel in which lane i of each warp loads element 32 w + i, scans,   */
/* and stores it. The last warp is partial when n % 32 != 0: its lanes past n */
/* load 0 and still call the shuffle (the full mask promises that all 32      */
/* lanes do), and only the lanes below n store. Keep every loop condition the */
/* same for the whole warp.                                                   */
/* Expect: about two thirds of a copy's bandwidth; the speed is reported,     */
/* not graded.                                                                */
/* ------------------------------------------------------------------------ */

/* TODO(lab3.s3): warp_inclusive_scan and your kernel. */

extern "C" lab_status scan_warp(const int *d_in, size_t n, int *d_out, void *d_work,
                                cudaStream_t stream)
{
    /* TODO(lab3.s3): launch your warp-scan kernel. */
    (void)d_in, (void)n, (void)d_out, (void)d_work, (void)stream;
    return LAB_TODO;
}

/* ------------------------------------------------------------------------ */
/* Stage 4: block scan of each segment of SHUFFLE_SEGMENT (1024).            */
/* Goal: a scan wider than a warp. A block of 8 warps takes one segment at a  */
/* time (one int4 per lane: load_warp_items with R = 1): each warp scans its  */
/* 128 elements (the four values of its int4 in registers, then               */
/* warp_inclusive_scan of the int4 totals); lane 0 puts the warp's total in   */
/* __shared__ int warp_totals[8]; after a __syncthreads(), warp 0 scans the   */
/* 8 totals; after another, each warp adds the totals of the warps before it. */
/* Write the warp part and the block part as helpers: stages 5 to 7 need      */
/* them for bigger tiles (R = 4 or 8 rounds per warp, a running total over    */
/* the rounds).                                                               */
/* Expect: close to a copy's bandwidth; reported, not graded.                 */
/* ------------------------------------------------------------------------ */

/* TODO(lab3.s4): the warp part and the block part as helpers, and your kernel. */

extern "C" lab_status scan_block(const int *d_in, size_t n, int *d_out, void *d_work,
                                 cudaStream_t stream)
{
    /* TODO(lab3.s4): launch your block-scan kernel. */
    (void)d_in, (void)n, (void)d_out, (void)d_work, (void)stream;
    return LAB_TODO;
}

/* ------------------------------------------------------------------------ */
/* Stage 5: device scan in passes.                                            */
/* Goal: the whole array. (1) each block scans its tile (8 warps x 128 R     */
/* elements) and writes the tile's total to d_work; (2) scan the tile totals, */
/* by calling the same function on them (recursion ends when one tile is    */
/* left); (3) every tile t > 0 adds the scanned total of tile t - 1. The      */
/* totals of the next level go after those of this one in d_work (keep them  */
/* 16-byte aligned if you read them as int4).                                 */
/* Expect: 5x over the one-block scan of stage 0 (the reference: far more);  */
/* about two thirds of CUB, because the data cross memory twice.              */
/* ------------------------------------------------------------------------ */

/* TODO(lab3.s5): the tile-scan kernel and the add-back kernel. */

extern "C" lab_status scan_multipass(const int *d_in, size_t n, int *d_out, void *d_work,
                                     cudaStream_t stream)
{
    /* TODO(lab3.s5): the three passes, recursively. */
    (void)d_in, (void)n, (void)d_out, (void)d_work, (void)stream;
    return LAB_TODO;
}

/* ------------------------------------------------------------------------ */
/* Stage 6: single-pass scan with decoupled look-back.                        */
/* Goal: read and write each element once. In d_work, one 64-bit status word  */
/* per tile, (flag << 32) | value, and a counter; zero them with             */
/* cudaMemsetAsync on the stream first. Flags: 0 nothing yet, 1 aggregate     */
/* (the tile's own total), 2 prefix (the inclusive sum up to the tile's end). */
/* Each block:                                                                */
/*  - takes its tile number from atomicAdd(counter, 1) (not blockIdx.x: a     */
/*    tile may only wait for tiles that have surely started);                 */
/*  - scans its tile and publishes flag 1 with its total (tile 0: flag 2);   */
/*  - warp 0 looks back: lane i reads the status of tile t - 1 - i (through a */
/*    volatile pointer), waits while __any_sync says some lane saw flag 0,    */
/*    finds the nearest flag 2 with __ballot_sync and __ffs, sums the values  */
/*    up to it (a warp sum with __shfl_xor_sync), and moves 32 tiles further  */
/*    back if none had flag 2;                                                */
/*  - publishes flag 2 with its inclusive prefix, then adds the exclusive     */
/*    prefix to its elements and stores them.                                 */
/* The value and the flag share one 64-bit word, written in one store, so a   */
/* reader never sees one without the other.                                   */
/* Expect: 1.15x over stage 5 and 60% of CUB (the reference: 96% on an H200).*/
/* ------------------------------------------------------------------------ */

/* TODO(lab3.s6): the status words, the look-back and your kernel. */

extern "C" lab_status scan_lookback(const int *d_in, size_t n, int *d_out, void *d_work,
                                    cudaStream_t stream)
{
    /* TODO(lab3.s6): zero the status words and the counter, launch one block per tile. */
    (void)d_in, (void)n, (void)d_out, (void)d_work, (void)stream;
    return LAB_TODO;
}

/* ------------------------------------------------------------------------ */
/* Stage 7: stream compaction.                                                */
/* Goal: keep the elements > 0, in order, in one pass. Stage 6's kernel, with */
/* counts instead of values: in each round a warp calls                       */
/* __ballot_sync(FULL_MASK, x > 0) once per int4 slot; an element's place     */
/* among the round's kept elements is __popc(ballot & lanes_below) summed     */
/* over the slots, plus the kept ones in this lane's earlier slots. The tiles */
/* chain their counts with the look-back; every kept element goes to          */
/* d_out[prefix of the tile + place in the tile]; the last tile writes        */
/* d_count[0].                                                                */
/* Expect: 50% of the speed of CUB's select (graded on that alone).          */
/* ------------------------------------------------------------------------ */

/* TODO(lab3.s7): your compaction kernel. */

extern "C" lab_status compact_positive(const int *d_in, size_t n, int *d_out, int *d_count,
                                       void *d_work, cudaStream_t stream)
{
    /* TODO(lab3.s7): zero the status words and the counter, launch one block per tile. */
    (void)d_in, (void)n, (void)d_out, (void)d_count, (void)d_work, (void)stream;
    return LAB_TODO;
}
