/* Lab 3, shuffle: the reference solution.
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
/* Warp primitives used by the stages below.                                  */
/* ------------------------------------------------------------------------ */

/* Sum over the warp: after the butterfly (__shfl_xor_sync) every lane holds
 * the total. */
__device__ __forceinline__ float warp_sum(float v)
{
#pragma unroll
    for (int lane_mask = 16; lane_mask > 0; lane_mask >>= 1)
        v += __shfl_xor_sync(FULL_MASK, v, lane_mask);
    return v;
}

__device__ __forceinline__ int warp_sum_int(int v)
{
#pragma unroll
    for (int lane_mask = 16; lane_mask > 0; lane_mask >>= 1)
        v += __shfl_xor_sync(FULL_MASK, v, lane_mask);
    return v;
}

/* Inclusive scan over the warp (Kogge-Stone): at step d each lane adds the
 * value of the lane d below it, so after five steps lane i holds the sum of
 * lanes 0..i. All 32 lanes must take part. */
__device__ __forceinline__ int warp_inclusive_scan(int v)
{
    const int lane = threadIdx.x & 31;
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
        int below = __shfl_up_sync(FULL_MASK, v, d);
        if (lane >= d)
            v += below;
    }
    return v;
}

/* ------------------------------------------------------------------------ */
/* Stage 2: warp-shuffle reduce.                                              */
/* A grid sized to the GPU reads float4s in a grid-stride loop (lab 2, stage  */
/* 7); each warp then sums its 32 values with five __shfl_down_sync steps,    */
/* lane 0 of each warp puts the warp's sum in a small shared array, and warp  */
/* 0 sums those. One barrier per block instead of one per tree level. A       */
/* second launch with one block sums the block sums.                          */
/* ------------------------------------------------------------------------ */

enum { SHFL_THREADS = 256, SHFL_UNROLL = 4 };

/* Lane 0 ends with the sum of the warp's values (the other lanes with partial sums). */
__device__ __forceinline__ float warp_sum_down(float v)
{
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1)
        v += __shfl_down_sync(FULL_MASK, v, offset);
    return v;
}

/* This thread's part of the sum: grid-stride over float4s, SHFL_UNROLL loads
 * in flight (lab 2's stage 7); the first block also takes the n % 4 left. */
__device__ __forceinline__ float thread_sum_float4(const float *__restrict__ in, size_t n)
{
    const unsigned tid = threadIdx.x;
    const float4 *__restrict__ in4 = reinterpret_cast<const float4 *>(in);
    const size_t n4 = n / 4, stride = (size_t)gridDim.x * blockDim.x;
    size_t i = (size_t)blockIdx.x * blockDim.x + tid;
    float acc = 0.0f;
    for (; i + (SHFL_UNROLL - 1) * stride < n4; i += SHFL_UNROLL * stride) {
        float4 v[SHFL_UNROLL];
#pragma unroll
        for (int u = 0; u < SHFL_UNROLL; u++)
            v[u] = in4[i + u * stride];
#pragma unroll
        for (int u = 0; u < SHFL_UNROLL; u++)
            acc += (v[u].x + v[u].y) + (v[u].z + v[u].w);
    }
    for (; i < n4; i += stride) {
        float4 v = in4[i];
        acc += (v.x + v.y) + (v.z + v.w);
    }
    if (blockIdx.x == 0 && tid < n % 4)
        acc += in[n4 * 4 + tid];
    return acc;
}

/* The block's sum of every thread's v: shuffles in each warp, the warps'
 * sums through warp_sums[blockDim.x / 32], one barrier. Thread 0 returns it. */
__device__ __forceinline__ float block_sum_shuffle(float v, float *warp_sums)
{
    const unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    v = warp_sum_down(v);
    if (lane == 0)
        warp_sums[warp] = v;
    __syncthreads();
    if (warp == 0)
        v = warp_sum_down(lane < blockDim.x / 32 ? warp_sums[lane] : 0.0f);
    return v;
}

__global__ void __launch_bounds__(SHFL_THREADS)
    shuffle_sum_kernel(const float *__restrict__ in, size_t n, float *__restrict__ sums)
{
    __shared__ float warp_sums[SHFL_THREADS / 32];
    float acc = block_sum_shuffle(thread_sum_float4(in, n), warp_sums);
    if (threadIdx.x == 0)
        sums[blockIdx.x] = acc;
}

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

extern "C" lab_status reduce_shuffle(const float *d_in, size_t n, float *d_out, void *d_work,
                                     cudaStream_t stream)
{
    static int grid_size;
    if (grid_size == 0 && (grid_size = grid_for(shuffle_sum_kernel, SHFL_THREADS)) == 0)
        return LAB_ERROR;
    size_t useful = (n / 4 + SHFL_THREADS - 1) / SHFL_THREADS;
    unsigned blocks = (unsigned)(useful < 1 ? 1 : useful < (size_t)grid_size ? useful : grid_size);
    if (blocks == 1) {
        shuffle_sum_kernel<<<1, SHFL_THREADS, 0, stream>>>(d_in, n, d_out);
        return LAB_OK;
    }
    float *sums = (float *)d_work;
    shuffle_sum_kernel<<<blocks, SHFL_THREADS, 0, stream>>>(d_in, n, sums);
    shuffle_sum_kernel<<<1, SHFL_THREADS, 0, stream>>>(sums, blocks, d_out);
    return LAB_OK;
}

/* ------------------------------------------------------------------------ */
/* Stage 3: warp scan of each segment of 32.                                  */
/* Lane i of a warp loads element 32w + i, the warp scans with                */
/* __shfl_up_sync, lane i stores. Lanes past n load 0 and still take part:    */
/* the full mask says all 32 lanes reach the shuffle, so the loop condition   */
/* must be the same for the whole warp (it tests the warp's first element).   */
/* ------------------------------------------------------------------------ */

enum { WARP_SCAN_THREADS = 256 };

__global__ void warp_scan_kernel(const int *__restrict__ in, size_t n, int *__restrict__ out)
{
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    const unsigned lane = threadIdx.x & 31;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i - lane < n; i += stride) {
        int v = warp_inclusive_scan(i < n ? in[i] : 0);
        if (i < n)
            out[i] = v;
    }
}

extern "C" lab_status scan_warp(const int *d_in, size_t n, int *d_out, void *d_work,
                                cudaStream_t stream)
{
    (void)d_work;
    static int grid_size;
    if (grid_size == 0 && (grid_size = grid_for(warp_scan_kernel, WARP_SCAN_THREADS)) == 0)
        return LAB_ERROR;
    size_t useful = (n + WARP_SCAN_THREADS - 1) / WARP_SCAN_THREADS;
    unsigned blocks = (unsigned)(useful < (size_t)grid_size ? useful : grid_size);
    warp_scan_kernel<<<blocks, WARP_SCAN_THREADS, 0, stream>>>(d_in, n, d_out);
    return LAB_OK;
}

/* ------------------------------------------------------------------------ */
/* The tile scan shared by stages 4 to 7.                                     */
/* A block of 256 threads scans a tile of 8 warps x 1024 elements. Warp w     */
/* owns elements [1024 w, 1024 w + 1024) of the tile and reads them in eight */
/* rounds of 128: in round k, lane i holds the four elements                  */
/* 128 k + 4 i .. 128 k + 4 i + 3 as one int4, so every load and store of a   */
/* warp covers 512 contiguous bytes. Each round: a scan of the four values in */
/* registers, a warp scan of the four-value totals, plus the running total of */
/* the rounds before. Then the warp totals go through shared memory and warp  */
/* 0 scans them: each warp learns what the warps before it hold.             */
/* ------------------------------------------------------------------------ */

enum {
    TILE_THREADS = 256,
    TILE_WARPS = TILE_THREADS / 32,
    ROUNDS = 8,                           /* int4 loads per lane (make bench tried 4 and 8) */
    WARP_ITEMS = 128 * ROUNDS,            /* elements per warp */
    TILE_ITEMS = TILE_WARPS * WARP_ITEMS, /* 8192 */
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

/* Scans a warp's elements in place (inclusive, from the warp's first
 * element) and returns the warp's total in every lane. */
template <int R>
__device__ __forceinline__ int scan_warp_items(int4 (&v)[R])
{
    int running = 0;
#pragma unroll
    for (int k = 0; k < R; k++) {
        v[k].y += v[k].x;
        v[k].z += v[k].y;
        v[k].w += v[k].z;
        int inclusive = warp_inclusive_scan(v[k].w);
        int before = running + inclusive - v[k].w;
        v[k].x += before;
        v[k].y += before;
        v[k].z += before;
        v[k].w += before;
        running += __shfl_sync(FULL_MASK, inclusive, 31);
    }
    return running;
}

template <int R>
__device__ __forceinline__ void add_to_items(int4 (&v)[R], int x)
{
#pragma unroll
    for (int k = 0; k < R; k++) {
        v[k].x += x;
        v[k].y += x;
        v[k].z += x;
        v[k].w += x;
    }
}

/* Every warp passes its total; returns the sum of the totals of the warps
 * before it, and the tile's total in *tile_total. Contains barriers: the
 * whole block must call it. */
__device__ __forceinline__ int tile_warp_prefix(int warp_total, int *tile_total)
{
    __shared__ int warp_prefix[TILE_WARPS];
    __shared__ int total;
    const unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0)
        warp_prefix[warp] = warp_total;
    __syncthreads();
    if (warp == 0) {
        int t = lane < TILE_WARPS ? warp_prefix[lane] : 0;
        int inclusive = warp_inclusive_scan(t);
        if (lane < TILE_WARPS)
            warp_prefix[lane] = inclusive - t;
        if (lane == TILE_WARPS - 1)
            total = inclusive;
    }
    __syncthreads();
    int prefix = warp_prefix[warp];
    *tile_total = total;
    __syncthreads(); /* the shared values are read before the next call writes them */
    return prefix;
}

/* ------------------------------------------------------------------------ */
/* Stage 4: block scan of each segment of SHUFFLE_SEGMENT (1024).             */
/* A block of 8 warps owns one segment at a time, one int4 per lane: each     */
/* warp scans its 128 elements, lane 0 puts the warp's total in shared        */
/* memory, warp 0 scans the 8 totals, and each warp adds the totals of the    */
/* warps before it. The blocks walk the segments with a grid-sized stride.    */
/* ------------------------------------------------------------------------ */

static_assert(TILE_WARPS * 128 == SHUFFLE_SEGMENT, "a block's 8 warps of 128 cover one segment");

__global__ void __launch_bounds__(TILE_THREADS)
    block_scan_kernel(const int *__restrict__ in, size_t n, int *__restrict__ out)
{
    const unsigned warp = threadIdx.x >> 5;
    for (size_t seg = blockIdx.x; seg * SHUFFLE_SEGMENT < n; seg += gridDim.x) {
        size_t warp_base = seg * SHUFFLE_SEGMENT + (size_t)warp * 128;
        int4 v[1];
        load_warp_items(in, n, warp_base, v);
        int total;
        add_to_items(v, tile_warp_prefix(scan_warp_items(v), &total));
        if (warp_base < n)
            store_warp_items(out, n, warp_base, v);
    }
}

extern "C" lab_status scan_block(const int *d_in, size_t n, int *d_out, void *d_work,
                                 cudaStream_t stream)
{
    (void)d_work;
    static int grid_size;
    if (grid_size == 0 && (grid_size = grid_for(block_scan_kernel, TILE_THREADS)) == 0)
        return LAB_ERROR;
    size_t segments = (n + SHUFFLE_SEGMENT - 1) / SHUFFLE_SEGMENT;
    unsigned blocks = (unsigned)(segments < (size_t)grid_size ? segments : grid_size);
    block_scan_kernel<<<blocks, TILE_THREADS, 0, stream>>>(d_in, n, d_out);
    return LAB_OK;
}

/* ------------------------------------------------------------------------ */
/* Stage 5: device scan in passes.                                            */
/* 1. each block scans its tile of 8192 and writes the tile's total;          */
/* 2. the tile totals are scanned the same way (recursively: 2^28 elements    */
/*    make 32768 totals, then 4, then one tile);                              */
/* 3. every tile but the first adds the scanned total of the tiles before it. */
/* Simple and correct; the data go through memory twice (read and write in    */
/* pass 1, again in pass 3), so it can reach about half the bandwidth bound. */
/* ------------------------------------------------------------------------ */

__global__ void __launch_bounds__(TILE_THREADS)
    tile_scan_kernel(const int *__restrict__ in, size_t n, int *__restrict__ out,
                     int *__restrict__ tile_totals)
{
    const unsigned warp = threadIdx.x >> 5;
    size_t warp_base = (size_t)blockIdx.x * TILE_ITEMS + (size_t)warp * WARP_ITEMS;
    int4 v[ROUNDS];
    load_warp_items(in, n, warp_base, v);
    int total;
    add_to_items(v, tile_warp_prefix(scan_warp_items(v), &total));
    if (warp_base < n)
        store_warp_items(out, n, warp_base, v);
    if (tile_totals && threadIdx.x == 0)
        tile_totals[blockIdx.x] = total;
}

__global__ void __launch_bounds__(TILE_THREADS)
    add_tile_prefix_kernel(int *__restrict__ out, size_t n, const int *__restrict__ scanned_totals)
{
    if (blockIdx.x == 0)
        return; /* the first tile has nothing before it */
    const unsigned warp = threadIdx.x >> 5;
    size_t warp_base = (size_t)blockIdx.x * TILE_ITEMS + (size_t)warp * WARP_ITEMS;
    if (warp_base >= n)
        return;
    int4 v[ROUNDS];
    load_warp_items(out, n, warp_base, v);
    add_to_items(v, scanned_totals[blockIdx.x - 1]);
    store_warp_items(out, n, warp_base, v);
}

static void multipass(const int *d_in, size_t n, int *d_out, int *d_work, cudaStream_t stream)
{
    size_t tiles = (n + TILE_ITEMS - 1) / TILE_ITEMS;
    if (tiles == 1) {
        tile_scan_kernel<<<1, TILE_THREADS, 0, stream>>>(d_in, n, d_out, nullptr);
        return;
    }
    int *totals = d_work;
    tile_scan_kernel<<<(unsigned)tiles, TILE_THREADS, 0, stream>>>(d_in, n, d_out, totals);
    /* In place: a tile reads all its elements before it writes any. The next
     * level's totals start 256-byte aligned, for the int4 accesses. */
    multipass(totals, tiles, totals, d_work + ((tiles + 63) & ~(size_t)63), stream);
    add_tile_prefix_kernel<<<(unsigned)tiles, TILE_THREADS, 0, stream>>>(d_out, n, totals);
}

extern "C" lab_status scan_multipass(const int *d_in, size_t n, int *d_out, void *d_work,
                                     cudaStream_t stream)
{
    multipass(d_in, n, d_out, (int *)d_work, stream);
    return LAB_OK;
}

/* ------------------------------------------------------------------------ */
/* Stage 6: single-pass scan with decoupled look-back.                        */
/* Each tile is read and written once. A block takes the next tile number     */
/* from a counter (so tiles start in order), scans its tile, and publishes    */
/* its status in one 64-bit word: flag A with the tile's total ("aggregate"), */
/* then, once it knows what comes before it, flag P with the inclusive        */
/* prefix. To learn its prefix, warp 0 looks back at the 32 tiles before it   */
/* at once: it waits while any of them has published nothing (flag X), adds   */
/* the values up to and including the nearest P, and stops there; if none of  */
/* the 32 has P yet, it adds all 32 aggregates and looks further back. The    */
/* flags and the counter live in d_work and are zeroed first.                 */
/* ------------------------------------------------------------------------ */

enum : unsigned long long { FLAG_X = 0, FLAG_A = 1, FLAG_P = 2 };

__device__ __forceinline__ unsigned long long pack_status(unsigned long long flag, int value)
{
    return (flag << 32) | (unsigned)value;
}

/* Run by all of warp 0: the sum of every tile before `tile`. */
__device__ int look_back(volatile unsigned long long *status, long long tile)
{
    const int lane = threadIdx.x & 31;
    int prefix = 0;
    for (long long window = tile - 1;; window -= 32) {
        long long pred = window - lane; /* lane 0 looks at the nearest tile */
        unsigned long long s;
        do {
            s = pred >= 0 ? status[pred] : pack_status(FLAG_P, 0);
        } while (__any_sync(FULL_MASK, (s >> 32) == FLAG_X));
        unsigned p_lanes = __ballot_sync(FULL_MASK, (s >> 32) == FLAG_P);
        int stop = p_lanes ? __ffs(p_lanes) - 1 : 31; /* the nearest P, or the whole window */
        prefix += warp_sum_int(lane <= stop ? (int)(unsigned)s : 0);
        if (p_lanes)
            return prefix;
    }
}

/* Where the tiles publish their status, and the counter that hands out tile numbers. */
struct tile_chain {
    unsigned long long *status;
    unsigned *counter;
};

/* Takes the next tile, in order of start (called by the whole block). */
__device__ __forceinline__ long long next_tile(unsigned *counter)
{
    __shared__ long long tile;
    if (threadIdx.x == 0)
        tile = atomicAdd(counter, 1u);
    __syncthreads();
    long long t = tile;
    __syncthreads();
    return t;
}

/* Publishes this tile's total, looks back, publishes the inclusive prefix and
 * returns the exclusive prefix to the whole block. */
__device__ __forceinline__ int chain_prefix(tile_chain chain, long long tile, int tile_total)
{
    __shared__ int prefix;
    volatile unsigned long long *status = chain.status;
    if (threadIdx.x < 32) {
        int before = 0;
        if (tile == 0) {
            if (threadIdx.x == 0)
                status[0] = pack_status(FLAG_P, tile_total);
        } else {
            if (threadIdx.x == 0)
                status[tile] = pack_status(FLAG_A, tile_total);
            before = look_back(status, tile);
            if (threadIdx.x == 0)
                status[tile] = pack_status(FLAG_P, before + tile_total);
        }
        if (threadIdx.x == 0)
            prefix = before;
    }
    __syncthreads();
    int p = prefix;
    return p;
}

template <int R>
__global__ void __launch_bounds__(TILE_THREADS)
    lookback_scan_kernel(const int *__restrict__ in, size_t n, int *__restrict__ out, tile_chain chain)
{
    long long tile = next_tile(chain.counter);
    const unsigned warp = threadIdx.x >> 5;
    size_t warp_base = (size_t)tile * (TILE_WARPS * 128 * R) + (size_t)warp * (128 * R);
    int4 v[R];
    load_warp_items(in, n, warp_base, v);
    int tile_total;
    int in_tile = tile_warp_prefix(scan_warp_items(v), &tile_total);
    add_to_items(v, in_tile + chain_prefix(chain, tile, tile_total));
    if (warp_base < n)
        store_warp_items(out, n, warp_base, v);
}

/* The flags and the tile counter, at the start of d_work, zeroed on the stream. */
static tile_chain chain_in(void *d_work, size_t tiles, cudaStream_t stream, cudaError_t *err)
{
    tile_chain c;
    c.status = (unsigned long long *)d_work;
    c.counter = (unsigned *)(c.status + tiles);
    *err = cudaMemsetAsync(d_work, 0, tiles * sizeof(unsigned long long) + sizeof(unsigned),
                           stream);
    return c;
}

extern "C" lab_status scan_lookback(const int *d_in, size_t n, int *d_out, void *d_work,
                                    cudaStream_t stream)
{
    size_t tiles = (n + TILE_ITEMS - 1) / TILE_ITEMS;
    cudaError_t err;
    tile_chain chain = chain_in(d_work, tiles, stream, &err);
    if (err != cudaSuccess)
        return LAB_ERROR;
    lookback_scan_kernel<ROUNDS><<<(unsigned)tiles, TILE_THREADS, 0, stream>>>(d_in, n, d_out, chain);
    return LAB_OK;
}

/* ------------------------------------------------------------------------ */
/* Stage 7: stream compaction.                                                */
/* The single-pass scan of stage 6, but of the flags x > 0, never stored:     */
/* in each round a warp asks __ballot_sync(x > 0) once per slot of its int4s, */
/* and a lane's place among the kept elements of the round is the number of   */
/* kept elements of the lanes below it (__popc of the ballot masked to those  */
/* lanes) plus its own earlier slots. The tiles chain their counts by         */
/* look-back; each kept element is written to its place, and the last tile    */
/* writes the count.                                                          */
/* ------------------------------------------------------------------------ */

template <int R>
__global__ void __launch_bounds__(TILE_THREADS)
    compact_kernel(const int *__restrict__ in, size_t n, int *__restrict__ out,
                   int *__restrict__ count, tile_chain chain, long long tiles)
{
    long long tile = next_tile(chain.counter);
    const unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const unsigned below = (1u << lane) - 1; /* the lanes below this one */
    size_t warp_base = (size_t)tile * (TILE_WARPS * 128 * R) + (size_t)warp * (128 * R);
    int4 v[R];
    load_warp_items(in, n, warp_base, v); /* zeros past n: never kept */
    int place[R][4], kept = 0;            /* each element's place within the warp's kept ones */
#pragma unroll
    for (int k = 0; k < R; k++) {
        int x[4] = {v[k].x, v[k].y, v[k].z, v[k].w};
        unsigned ballot[4];
        int round = 0, lanes_below = 0;
#pragma unroll
        for (int j = 0; j < 4; j++) {
            ballot[j] = __ballot_sync(FULL_MASK, x[j] > 0);
            round += __popc(ballot[j]);
            lanes_below += __popc(ballot[j] & below);
        }
        int mine = kept + lanes_below;
#pragma unroll
        for (int j = 0; j < 4; j++) {
            place[k][j] = x[j] > 0 ? mine : -1;
            mine += x[j] > 0;
        }
        kept += round;
    }
    int tile_total;
    int before = tile_warp_prefix(kept, &tile_total);
    before += chain_prefix(chain, tile, tile_total);
#pragma unroll
    for (int k = 0; k < R; k++) {
        int x[4] = {v[k].x, v[k].y, v[k].z, v[k].w};
#pragma unroll
        for (int j = 0; j < 4; j++)
            if (place[k][j] >= 0)
                out[before + place[k][j]] = x[j];
    }
    if (tile == tiles - 1 && threadIdx.x == 0)
        count[0] = before + tile_total; /* thread 0: before is the tiles' prefix alone */
}

enum { COMPACT_ROUNDS = 12, COMPACT_TILE = TILE_WARPS * 128 * COMPACT_ROUNDS };

extern "C" lab_status compact_positive(const int *d_in, size_t n, int *d_out, int *d_count,
                                       void *d_work, cudaStream_t stream)
{
    size_t tiles = (n + COMPACT_TILE - 1) / COMPACT_TILE;
    cudaError_t err;
    tile_chain chain = chain_in(d_work, tiles, stream, &err);
    if (err != cudaSuccess)
        return LAB_ERROR;
    compact_kernel<COMPACT_ROUNDS><<<(unsigned)tiles, TILE_THREADS, 0, stream>>>(
        d_in, n, d_out, d_count, chain, (long long)tiles);
    return LAB_OK;
}
