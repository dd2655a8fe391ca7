/* Lab 1, transpose: the reference solution.
 *
 * out = in^T, where in is rows x cols and out is cols x rows, both row-major.
 * A transpose does no arithmetic: it moves 2 * rows * cols * 4 bytes (each
 * element read once, written once), so its speed limit is the memory system's,
 * the same as a copy's. Each stage below fixes one thing that keeps the stage
 * before it from that limit. Read them in order; handouts/1-transpose.md
 * explains each step and gives the speeds measured on an H200.
 */
#include <stdint.h>

#include "transpose.h"

/* ------------------------------------------------------------------------ */
/* Given: the yardstick. A plain copy moves the same bytes as a transpose.  */
/* ------------------------------------------------------------------------ */

__global__ void copy_kernel(const float *__restrict__ in, float *__restrict__ out, size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t n4 = n / 4;
    if (i < n4)
        reinterpret_cast<float4 *>(out)[i] = reinterpret_cast<const float4 *>(in)[i];
    if (i < n % 4) /* the last n % 4 elements, one thread each */
        out[n4 * 4 + i] = in[n4 * 4 + i];
}

extern "C" lab_status transpose_copy(const float *d_in, float *d_out, int rows, int cols,
                                     cudaStream_t stream)
{
    size_t n = (size_t)rows * cols;
    size_t threads = n / 4 > 0 ? n / 4 : 1;
    unsigned blocks = (unsigned)((threads + 255) / 256);
    copy_kernel<<<blocks, 256, 0, stream>>>(d_in, d_out, n);
    return LAB_OK;
}

/* ------------------------------------------------------------------------ */
/* Stage 1: naive, reads coalesced.                                          */
/* Consecutive threads (threadIdx.x) take consecutive columns c of one row:  */
/* their reads in[r * cols + c] are neighbours (one 128-byte line per warp), */
/* but their writes out[c * rows + r] are rows * 4 bytes apart, so every     */
/* thread of a warp writes its own 32-byte sector: 8x the bytes we need.     */
/* ------------------------------------------------------------------------ */

__global__ void naive_read_kernel(const float *__restrict__ in, float *__restrict__ out,
                                  int rows, int cols)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r < rows && c < cols)
        out[(size_t)c * rows + r] = in[(size_t)r * cols + c];
}

extern "C" lab_status transpose_naive_read(const float *d_in, float *d_out, int rows, int cols,
                                           cudaStream_t stream)
{
    dim3 block(32, 8);
    dim3 grid((cols + block.x - 1) / block.x, (rows + block.y - 1) / block.y);
    naive_read_kernel<<<grid, block, 0, stream>>>(d_in, d_out, rows, cols);
    return LAB_OK;
}

/* ------------------------------------------------------------------------ */
/* Stage 2: naive, writes coalesced.                                         */
/* Swap the roles: consecutive threads take consecutive rows r, so the       */
/* writes out[c * rows + r] are neighbours and the reads are strided. On     */
/* Volta and later this is usually the faster of the two: a strided read     */
/* brings a whole sector into L1/L2, and the neighbouring threads of the     */
/* next columns find their elements there, whereas a partial write is never  */
/* merged that way (see the handout).                                        */
/* ------------------------------------------------------------------------ */

__global__ void naive_write_kernel(const float *__restrict__ in, float *__restrict__ out,
                                   int rows, int cols)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    int c = blockIdx.y * blockDim.y + threadIdx.y;
    if (r < rows && c < cols)
        out[(size_t)c * rows + r] = in[(size_t)r * cols + c];
}

extern "C" lab_status transpose_naive_write(const float *d_in, float *d_out, int rows, int cols,
                                            cudaStream_t stream)
{
    dim3 block(32, 8);
    dim3 grid((rows + block.x - 1) / block.x, (cols + block.y - 1) / block.y);
    naive_write_kernel<<<grid, block, 0, stream>>>(d_in, d_out, rows, cols);
    return LAB_OK;
}

/* ------------------------------------------------------------------------ */
/* Stages 3 and 4: a 32 x 32 tile through shared memory.                    */
/* A block reads a 32 x 32 tile with coalesced row reads, keeps it in        */
/* shared memory, and writes it back transposed with coalesced row writes:   */
/* the transpose itself happens in shared memory, where strided access is    */
/* cheap. 32 x 8 threads, each moving 4 elements (rows j, j+8, j+16, j+24).  */
/*                                                                           */
/* Stage 3 (PAD = 0): in the write loop a warp reads one tile column,        */
/* tile[0..31][j]. Rows are 32 floats = 128 bytes apart, so all 32 words sit */
/* in the same one of the 32 four-byte banks: a 32-way bank conflict, the    */
/* read is replayed 32 times.                                                */
/* Stage 4 (PAD = 1): one spare float per row makes the row stride 33 words, */
/* so element [i][j] sits in bank (33 i + j) mod 32 = (i + j) mod 32: a      */
/* column now touches all 32 banks once. One line changes; see the handout's */
/* bank figure.                                                              */
/* ------------------------------------------------------------------------ */

constexpr int TILE = 32;       /* tile edge, one warp wide */
constexpr int TILE_ROWS = 8;   /* threads per tile column: each moves TILE / TILE_ROWS elements */

template <int PAD>
__global__ void tile_kernel(const float *__restrict__ in, float *__restrict__ out, int rows,
                            int cols)
{
    __shared__ float tile[TILE][TILE + PAD];

    int r0 = blockIdx.y * TILE; /* the tile's first input row */
    int c0 = blockIdx.x * TILE; /* the tile's first input column */

    /* Read: thread x takes input column c0 + x, so a warp reads 128 contiguous bytes. */
    int c = c0 + threadIdx.x;
    for (int j = threadIdx.y; j < TILE; j += TILE_ROWS) {
        int r = r0 + j;
        if (r < rows && c < cols)
            tile[j][threadIdx.x] = in[(size_t)r * cols + c];
    }
    __syncthreads(); /* the whole tile must be in shared memory before anyone reads it */

    /* Write: output row c0 + j is input column c0 + j; thread x writes output
     * column r0 + x (input row r0 + x), again 128 contiguous bytes per warp. */
    int r = r0 + threadIdx.x;
    for (int j = threadIdx.y; j < TILE; j += TILE_ROWS) {
        int oc = c0 + j;
        if (oc < cols && r < rows)
            out[(size_t)oc * rows + r] = tile[threadIdx.x][j];
    }
}

static lab_status launch_tile(int pad, const float *d_in, float *d_out, int rows, int cols,
                              cudaStream_t stream)
{
    dim3 block(TILE, TILE_ROWS);
    dim3 grid((cols + TILE - 1) / TILE, (rows + TILE - 1) / TILE);
    if (pad)
        tile_kernel<1><<<grid, block, 0, stream>>>(d_in, d_out, rows, cols);
    else
        tile_kernel<0><<<grid, block, 0, stream>>>(d_in, d_out, rows, cols);
    return LAB_OK;
}

extern "C" lab_status transpose_tiled(const float *d_in, float *d_out, int rows, int cols,
                                      cudaStream_t stream)
{
    return launch_tile(0, d_in, d_out, rows, cols, stream);
}

extern "C" lab_status transpose_padded(const float *d_in, float *d_out, int rows, int cols,
                                       cudaStream_t stream)
{
    return launch_tile(1, d_in, d_out, rows, cols, stream);
}

/* ------------------------------------------------------------------------ */
/* Stage 5: several elements per thread, 16-byte accesses.                   */
/*                                                                           */
/* Stage 4 moves one 4-byte word per load and per store, and a block holds   */
/* only 4 KB of the matrix: too few bytes in flight per SM to keep HBM busy. */
/* Two changes fix that:                                                     */
/*  1. Each thread moves a 4 x 4 block of the matrix with four float4         */
/*     (16-byte) loads and four float4 stores: four times the bytes per       */
/*     instruction, and all four loads are in flight before the first use.   */
/*  2. The 4 x 4 block is transposed in registers (w_j takes element j of    */
/*     each of the 4 rows), so shared memory only reorders whole float4s,    */
/*     in a bigger 64 x 64 tile (16 KB per block).                           */
/* A float4 tile cannot be padded by one float (it would break 16-byte       */
/* alignment), so it is swizzled instead: float4 slot q of tile row c is     */
/* stored at slot q ^ ((c / 4) mod QR). Eight threads that store the same q  */
/* into rows 4, 8, 12, ... apart then hit eight different 16-byte bank       */
/* groups, and eight threads reading consecutive slots of one row do too.    */
/* (We also tried a grid sized to the GPU with each block prefetching its    */
/* next tile, and streaming stores: on the H200 both were slightly slower    */
/* than this plain one-tile-per-block version; the handout has the table.)  */
/* Rows and columns must be multiples of 4 for whole float4s; other shapes   */
/* take stage 4's path, which is correct for any shape.                      */
/* ------------------------------------------------------------------------ */

template <int TR, int TC, int THREADS>
__global__ void __launch_bounds__(THREADS)
    vec_kernel(const float4 *__restrict__ in, float4 *__restrict__ out, int rows, int cols)
{
    constexpr int QR = TR / 4;                 /* float4 slots per tile row in shared memory */
    constexpr int QC = TC / 4;                 /* float4 per input tile row */
    constexpr int BLOCKS4 = QR * QC / THREADS; /* 4 x 4 blocks per thread */
    constexpr int STORES = TC * QR / THREADS;  /* float4 stores per thread */
    static_assert(QR >= 8 && (QR & (QR - 1)) == 0, "the swizzle needs QR = 8, 16, 32, ...");
    static_assert(BLOCKS4 * THREADS == QR * QC && STORES * THREADS == TC * QR, "uneven split");

    /* tile[c][q]: input column c0 + c (= output row), input rows r0 + 4q .. 4q + 3. */
    __shared__ float4 tile[TC][QR];

    const int rows4 = rows / 4, cols4 = cols / 4;
    const int r0 = blockIdx.y * TR, c0 = blockIdx.x * TC;

    /* 1. Load this thread's 4 x 4 blocks: v[b][i] holds 4 elements of row i.
     *    qx varies fastest across threads, so a warp reads whole 256-byte rows.
     *    Elements outside the matrix read as 0; they are never written back. */
    float4 v[BLOCKS4][4];
#pragma unroll
    for (int b = 0; b < BLOCKS4; b++) {
        int u = threadIdx.x + b * THREADS;
        int qx = u % QC, qy = u / QC;
#pragma unroll
        for (int i = 0; i < 4; i++) {
            int r = r0 + 4 * qy + i, cq = c0 / 4 + qx;
            v[b][i] = (r < rows && cq < cols4) ? in[(size_t)r * cols4 + cq]
                                               : make_float4(0.f, 0.f, 0.f, 0.f);
        }
    }

    /* 2. Transpose each 4 x 4 block in registers and store its 4 columns, as
     *    float4s, into the swizzled tile. Rows 4qx .. 4qx + 3 share (c / 4) = qx. */
#pragma unroll
    for (int b = 0; b < BLOCKS4; b++) {
        int u = threadIdx.x + b * THREADS;
        int qx = u % QC, qy = u / QC;
        int slot = qy ^ (qx & (QR - 1));
        tile[4 * qx + 0][slot] = make_float4(v[b][0].x, v[b][1].x, v[b][2].x, v[b][3].x);
        tile[4 * qx + 1][slot] = make_float4(v[b][0].y, v[b][1].y, v[b][2].y, v[b][3].y);
        tile[4 * qx + 2][slot] = make_float4(v[b][0].z, v[b][1].z, v[b][2].z, v[b][3].z);
        tile[4 * qx + 3][slot] = make_float4(v[b][0].w, v[b][1].w, v[b][2].w, v[b][3].w);
    }
    __syncthreads();

    /* 3. Write whole output rows with float4 stores: consecutive threads take
     *    consecutive slots q of one tile row c, undoing the swizzle on the way. */
#pragma unroll
    for (int s = 0; s < STORES; s++) {
        int u = threadIdx.x + s * THREADS;
        int q = u % QR, c = u / QR;
        if (c0 + c < cols && r0 / 4 + q < rows4)
            out[(size_t)(c0 + c) * rows4 + r0 / 4 + q] = tile[c][q ^ ((c >> 2) & (QR - 1))];
    }
}

/* The configuration the handout measured: 64 x 64 tiles, 256 threads, each
 * thread one 4 x 4 block. */
constexpr int VEC_TR = 64, VEC_TC = 64, VEC_THREADS = 256;

template <int TR, int TC, int THREADS>
static lab_status launch_vec(const float *d_in, float *d_out, int rows, int cols,
                             cudaStream_t stream)
{
    if (rows % 4 != 0 || cols % 4 != 0 || ((uintptr_t)d_in | (uintptr_t)d_out) % 16 != 0)
        return transpose_padded(d_in, d_out, rows, cols, stream); /* not float4-shaped */
    dim3 grid((cols + TC - 1) / TC, (rows + TR - 1) / TR);
    vec_kernel<TR, TC, THREADS><<<grid, THREADS, 0, stream>>>(
        reinterpret_cast<const float4 *>(d_in), reinterpret_cast<float4 *>(d_out), rows, cols);
    return LAB_OK;
}

extern "C" lab_status transpose_vectorized(const float *d_in, float *d_out, int rows, int cols,
                                           cudaStream_t stream)
{
    return launch_vec<VEC_TR, VEC_TC, VEC_THREADS>(d_in, d_out, rows, cols, stream);
}
