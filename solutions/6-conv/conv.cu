/* Lab 6, convolution: the reference solution.
 *
 * Forward convolution, float32, NCHW input, KCRS filter, NCHW output (see
 * conv.h). Seen as a matrix product, each image n is
 *
 *     out_n [K x PQ] = filter [K x CRS] . X_n [CRS x PQ]
 *
 * where column (p, q) of X_n holds the input window under output (p, q):
 * row (c, r, s) is in[n][c][p*stride - pad + r][q*stride - pad + s], or 0 in
 * the padding. Putting the images side by side gives one GEMM with M = K,
 * N = N P Q and a depth of C R S. The stages: direct (0, 1), the matrix X
 * built in memory (im2col, 2), the same GEMM gathering X on the fly (3), and
 * the input in NHWC so that the gathers are contiguous, with split-K for
 * layers too small to fill the GPU and a shared-memory epilogue (4).
 */
#include "conv.h"

static unsigned blocks_for(long long n, int per_block)
{
    return (unsigned)((n + per_block - 1) / per_block);
}

/* ------------------------------------------------------------------------ */
/* Given: stage 0, direct convolution, one thread per output.               */
/* Consecutive threads take consecutive q (the output's innermost index), so */
/* the stores are coalesced and a warp's input reads are `stride` apart; the  */
/* lanes that share k (a whole warp, unless it straddles two output planes) */
/* read the same filter value (a broadcast). Every input value is read from */
/* global memory (or cache) about K R S / stride^2 times.                   */
/* ------------------------------------------------------------------------ */

__global__ void direct_kernel(conv_shape l, int P, int Q, const float *__restrict__ x,
                              const float *__restrict__ w, float *__restrict__ y)
{
    size_t idx = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t total = (size_t)l.N * l.K * P * Q;
    if (idx >= total)
        return;
    int q = (int)(idx % Q), p = (int)(idx / Q % P), k = (int)(idx / ((size_t)P * Q) % l.K);
    int n = (int)(idx / ((size_t)P * Q * l.K));
    float acc = 0.0f;
    for (int c = 0; c < l.C; c++)
        for (int r = 0; r < l.R; r++) {
            int ih = p * l.stride - l.pad + r;
            if (ih < 0 || ih >= l.H)
                continue;
            for (int s = 0; s < l.S; s++) {
                int iw = q * l.stride - l.pad + s;
                if (iw >= 0 && iw < l.W)
                    acc += x[(((size_t)n * l.C + c) * l.H + ih) * l.W + iw] *
                           w[(((size_t)k * l.C + c) * l.R + r) * l.S + s];
            }
        }
    y[idx] = acc;
}

extern "C" lab_status conv_direct(conv_shape l, const float *d_in, const float *d_filter,
                                  float *d_out, void *d_work, cudaStream_t stream)
{
    (void)d_work;
    int P = conv_p(l), Q = conv_q(l);
    size_t total = (size_t)l.N * l.K * P * Q;
    direct_kernel<<<blocks_for((long long)total, 256), 256, 0, stream>>>(l, P, Q, d_in, d_filter,
                                                                         d_out);
    return LAB_OK;
}

/* ------------------------------------------------------------------------ */
/* Stage 1: direct, tiled. A block of 16 x 16 threads computes a 16 x 16 tile */
/* of outputs (p, q) of one image for KB = 8 output channels. For each input  */
/* channel c it stages the input patch under the tile (with its halo) and the */
/* 8 filters' R x S weights of c in shared memory, then each thread makes its */
/* 8 outputs from there: every input value is loaded once per block instead */
/* of once per output that uses it.                                         */
/* ------------------------------------------------------------------------ */

enum { TILE1 = 16, KB1 = 8 };

__global__ void __launch_bounds__(TILE1 *TILE1)
    direct_tiled_kernel(conv_shape l, int P, int Q, const float *__restrict__ x,
                        const float *__restrict__ w, float *__restrict__ y)
{
    extern __shared__ float patch[]; /* [PH][PW] input, then [KB1][R][S] weights */
    const int PH = (TILE1 - 1) * l.stride + l.R, PW = (TILE1 - 1) * l.stride + l.S;
    float *wts = patch + PH * PW;
    const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * TILE1 + tx;
    const int k_groups = (l.K + KB1 - 1) / KB1;
    const int n = blockIdx.z / k_groups, k0 = (blockIdx.z % k_groups) * KB1;
    const int p0 = blockIdx.y * TILE1, q0 = blockIdx.x * TILE1;
    const int ih0 = p0 * l.stride - l.pad, iw0 = q0 * l.stride - l.pad;
    const int RS = l.R * l.S;
    float acc[KB1] = {0.0f};
    for (int c = 0; c < l.C; c++) {
        const float *img = x + ((size_t)n * l.C + c) * l.H * l.W;
        for (int e = tid; e < PH * PW; e += TILE1 * TILE1) {
            int ih = ih0 + e / PW, iw = iw0 + e % PW;
            patch[e] = ih >= 0 && ih < l.H && iw >= 0 && iw < l.W ? img[(size_t)ih * l.W + iw] : 0.0f;
        }
        for (int e = tid; e < KB1 * RS; e += TILE1 * TILE1) {
            int kb = e / RS, k = k0 + kb;
            wts[e] = k < l.K ? w[((size_t)k * l.C + c) * RS + e % RS] : 0.0f;
        }
        __syncthreads();
        for (int r = 0; r < l.R; r++)
            for (int s = 0; s < l.S; s++) {
                float v = patch[(ty * l.stride + r) * PW + tx * l.stride + s];
#pragma unroll
                for (int kb = 0; kb < KB1; kb++)
                    acc[kb] += v * wts[kb * RS + r * l.S + s];
            }
        __syncthreads();
    }
    int p = p0 + ty, q = q0 + tx;
    if (p >= P || q >= Q)
        return;
#pragma unroll
    for (int kb = 0; kb < KB1; kb++)
        if (k0 + kb < l.K)
            y[(((size_t)n * l.K + k0 + kb) * P + p) * Q + q] = acc[kb];
}

extern "C" lab_status conv_direct_tiled(conv_shape l, const float *d_in, const float *d_filter,
                                        float *d_out, void *d_work, cudaStream_t stream)
{
    (void)d_work;
    int P = conv_p(l), Q = conv_q(l);
    int PH = (TILE1 - 1) * l.stride + l.R, PW = (TILE1 - 1) * l.stride + l.S;
    size_t smem = (size_t)(PH * PW + KB1 * l.R * l.S) * sizeof(float);
    if (smem > 48 * 1024) /* a filter too large for this design */
        return LAB_ERROR;
    dim3 block(TILE1, TILE1);
    dim3 grid(blocks_for(Q, TILE1), blocks_for(P, TILE1), l.N * blocks_for(l.K, KB1));
    direct_tiled_kernel<<<grid, block, smem, stream>>>(l, P, Q, d_in, d_filter, d_out);
    return LAB_OK;
}

/* ------------------------------------------------------------------------ */
/* Stages 2 to 4 share one GEMM kernel, lab 4's stage 6 design: a block of  */
/* 256 threads computes 128 x BNW of the output matrix (rows: output        */
/* channels k; columns: j = (n, p, q)), each thread 8 x BNW/16 from         */
/* registers, the tiles 8 deep along C R S and double-buffered through      */
/* registers. The A operand is the filter, [K][C R S] row-major (KCRS       */
/* already is). What changes between the stages is where the B operand, X, */
/* comes from: a "source" object that, for one column j, returns rows of X. */
/* The tile's width BNW is 128 or 96, chosen per layer (tile_width below).  */
/* ------------------------------------------------------------------------ */

enum { BM = 128, BN = 128 /* the wider of the two widths */, BK = 8, TM = 8, THREADS = 256 };

/* Stage 2: X is a matrix in memory, [C R S][N P Q] row-major. */
struct matrix_source {
    const float *X;
    int ncol;
    static constexpr bool along_rows = false; /* lanes take neighbouring columns */
    struct column {
        const float *p;
    };
    __device__ column at(int j) const { return {j < ncol ? X + j : nullptr}; }
    __device__ void rows(const column &col, int row, int end, float v[4]) const
    {
#pragma unroll
        for (int i = 0; i < 4; i++)
            v[i] = col.p && row + i < end ? col.p[(size_t)(row + i) * ncol] : 0.0f;
    }
};

/* Stage 3: X gathered from the NCHW input; row = (c, r, s). Finding (c, r,
 * s) from a row takes three integer divisions, which cost more than the 4
 * loads they serve. But a thread fetches its rows in order, BK apart: it
 * keeps the next row's (c, r, s) in its column (registers) and steps it,
 * dividing only when a fetch is not the one expected (the first one). */
struct nchw_source {
    const float *x;
    conv_shape l;
    int P, Q, ncol;
    static constexpr bool along_rows = false;
    struct column {
        const float *img;           /* this image, channel 0 */
        int ih0, iw0;               /* the window's top-left corner */
        mutable int next, c, r, s;  /* the row expected next, and its (c, r, s) */
    };
    __device__ column at(int j) const
    {
        if (j >= ncol)
            return {nullptr, 0, 0, -1, 0, 0, 0};
        int n = j / (P * Q), pq = j % (P * Q);
        return {x + (size_t)n * l.C * l.H * l.W, (pq / Q) * l.stride - l.pad,
                (pq % Q) * l.stride - l.pad, -1, 0, 0, 0};
    }
    /* One step to the next row: s, carrying into r and c. */
    __device__ void step(int &c, int &r, int &s) const
    {
        if (++s == l.S) {
            s = 0;
            if (++r == l.R) {
                r = 0;
                c++;
            }
        }
    }
    __device__ void rows(const column &col, int row, int end, float v[4]) const
    {
        if (row != col.next) {
            int rs = row % (l.R * l.S);
            col.c = row / (l.R * l.S), col.r = rs / l.S, col.s = rs % l.S;
        }
        int c = col.c, r = col.r, s = col.s;
#pragma unroll
        for (int i = 0; i < 4; i++) {
            int ih = col.ih0 + r, iw = col.iw0 + s;
            v[i] = col.img && row + i < end && ih >= 0 && ih < l.H && iw >= 0 && iw < l.W
                       ? col.img[((size_t)c * l.H + ih) * l.W + iw]
                       : 0.0f;
            step(c, r, s);
        }
#pragma unroll
        for (int i = 4; i < BK; i++) /* on to row + BK, this thread's next fetch */
            step(c, r, s);
        col.next = row + BK, col.c = c, col.r = r, col.s = s;
    }
};

/* Stage 4: X gathered from an NHWC copy of the input; row = (r, s, c), so
 * neighbouring rows are neighbouring channels, contiguous in memory. Lanes
 * take neighbouring rows (along_rows), and when C is a multiple of 4 each
 * thread's 4 rows are one 16-byte load. */
struct nhwc_source {
    const float *x; /* N x H x W x C */
    conv_shape l;
    int P, Q, ncol;
    static constexpr bool along_rows = true;
    struct column {
        const float *img;
        int ih0, iw0;
    };
    __device__ column at(int j) const
    {
        if (j >= ncol)
            return {nullptr, 0, 0};
        int n = j / (P * Q), pq = j % (P * Q);
        return {x + (size_t)n * l.H * l.W * l.C, (pq / Q) * l.stride - l.pad,
                (pq % Q) * l.stride - l.pad};
    }
    __device__ void rows(const column &col, int row, int end, float v[4]) const
    {
        int rs = row / l.C, c = row % l.C, r = rs / l.S, s = rs % l.S;
        if ((l.C & 3) == 0 && row + 3 < end) { /* 4 channels of one pixel */
            int ih = col.ih0 + r, iw = col.iw0 + s;
            float4 f = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
            if (col.img && ih >= 0 && ih < l.H && iw >= 0 && iw < l.W)
                f = *reinterpret_cast<const float4 *>(col.img + ((size_t)ih * l.W + iw) * l.C + c);
            v[0] = f.x, v[1] = f.y, v[2] = f.z, v[3] = f.w;
            return;
        }
#pragma unroll
        for (int i = 0; i < 4; i++) {
            int ih = col.ih0 + r, iw = col.iw0 + s;
            v[i] = col.img && row + i < end && ih >= 0 && ih < l.H && iw >= 0 && iw < l.W
                       ? col.img[((size_t)ih * l.W + iw) * l.C + c]
                       : 0.0f;
            if (++c == l.C) {
                c = 0;
                if (++s == l.S) {
                    s = 0;
                    r++;
                }
            }
        }
    }
};

/* The epilogue tile of stage 4: 32 rows of the block's 128 at a time. */
enum { EPI_ROWS = 32, SMEM_FLOATS = EPI_ROWS * (BN + 4) /* >= 2 x 2 x BK x 128 */ };

/* out[n][k][p][q] for row k and column j = (n, p q) of the output matrix. */
__device__ __forceinline__ size_t out_index(int k, int j, int K, int PQ)
{
    int n = j / PQ;
    return ((size_t)n * K + k) * PQ + (j - n * PQ);
}

/* M = K output channels, ncol = N P Q, depth = C R S; A = filter [M][depth].
 * The block's tile is BM x BNW; 16 x 16 threads, each TM x TNW outputs.
 * Block z covers depth [z * per_split, (z + 1) * per_split) and, when
 * ATOMIC, adds its partial sums to out (zeroed beforehand). SMEM_EPILOGUE:
 * the results go through shared memory so that a warp stores 32 neighbouring
 * outputs at a time. */
template <class Source, int BNW, bool SMEM_EPILOGUE, bool ATOMIC>
__global__ void __launch_bounds__(THREADS, 2)
    conv_gemm_kernel(int M, int ncol, int depth, int per_split, int PQ,
                     const float *__restrict__ A, Source src, float *__restrict__ out)
{
    constexpr int TNW = BNW / (THREADS / (BM / TM)); /* 8 for 128 wide, 6 for 96 */
    constexpr int EPI_LD = BNW + 4;
    static_assert(TNW % 2 == 0 && BM / TM * (BNW / TNW) == THREADS, "one 8 x TNW block per thread");
    __shared__ __align__(16) float smem[SMEM_FLOATS];
    float *As = smem;                /* [2][BK][BM], A's tile transposed */
    float *Bs = smem + 2 * BK * BM;  /* [2][BK][BNW] */
    const int tid = threadIdx.x;
    const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BNW;
    const int k_begin = blockIdx.z * per_split, k_end = min(depth, k_begin + per_split);
    const int trow = tid / (BNW / TNW), tcol = tid % (BNW / TNW);
    /* What this thread loads: 4 neighbouring depths of A's row a_r, and 4
     * rows of X's column b_c. X's tile is BK x BNW: with BNW = 96 the first
     * 192 threads load it. */
    const int a_r = tid / 2, a_c = (tid % 2) * 4;
    const bool b_on = tid < BK * BNW / 4;
    const int b_c = Source::along_rows ? tid / 2 : tid % BNW;
    const int b_r = Source::along_rows ? (tid % 2) * 4 : (tid / BNW) * 4;
    const float *a_row = row0 + a_r < M ? A + (size_t)(row0 + a_r) * depth : nullptr;
    const typename Source::column col = src.at(b_on ? col0 + b_c : ncol);
    float a_reg[4], b_reg[4];
    auto fetch = [&](int k0) {
#pragma unroll
        for (int i = 0; i < 4; i++)
            a_reg[i] = a_row && k0 + a_c + i < k_end ? a_row[k0 + a_c + i] : 0.0f;
        if (b_on)
            src.rows(col, k0 + b_r, k_end, b_reg);
    };
    auto stash = [&](int buf) {
#pragma unroll
        for (int i = 0; i < 4; i++) {
            As[(buf * BK + a_c + i) * BM + a_r] = a_reg[i];
            if (b_on)
                Bs[(buf * BK + b_r + i) * BNW + b_c] = b_reg[i];
        }
    };
    float acc[TM][TNW] = {{0.0f}};
    fetch(k_begin);
    stash(0);
    __syncthreads();
    int buf = 0;
    for (int k0 = k_begin; k0 < k_end; k0 += BK) {
        const bool more = k0 + BK < k_end;
        if (more) /* the next tiles' loads are in flight during the math */
            fetch(k0 + BK);
#pragma unroll
        for (int kk = 0; kk < BK; kk++) {
            const float *ap = &As[(buf * BK + kk) * BM + trow * TM];
            const float *bp = &Bs[(buf * BK + kk) * BNW + tcol * TNW];
            float4 a0 = *reinterpret_cast<const float4 *>(ap), a1 = *reinterpret_cast<const float4 *>(ap + 4);
            float a[TM] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
            float b[TNW];
#pragma unroll
            for (int n = 0; n < TNW; n += 2) { /* 8-byte loads: 6 floats start 8-byte aligned */
                float2 v = *reinterpret_cast<const float2 *>(bp + n);
                b[n] = v.x, b[n + 1] = v.y;
            }
#pragma unroll
            for (int m = 0; m < TM; m++)
#pragma unroll
                for (int n = 0; n < TNW; n++)
                    acc[m][n] += a[m] * b[n];
        }
        if (more) {
            stash(buf ^ 1);
            buf ^= 1;
        }
        __syncthreads();
    }
    if constexpr (!SMEM_EPILOGUE) { /* each thread stores its 8 x TNW directly */
#pragma unroll
        for (int n = 0; n < TNW; n++) {
            int j = col0 + tcol * TNW + n;
            if (j >= ncol)
                continue;
#pragma unroll
            for (int m = 0; m < TM; m++) {
                int k = row0 + trow * TM + m;
                if (k < M) {
                    size_t o = out_index(k, j, M, PQ);
                    if (ATOMIC)
                        atomicAdd(&out[o], acc[m][n]);
                    else
                        out[o] = acc[m][n];
                }
            }
        }
    } else {
        /* Through shared memory, 32 rows at a time: the 4 rows of threads that own
         * them write their values, then all 256 threads store the 32 x BNW tile with
         * neighbouring threads on neighbouring columns. The last barrier of the
         * main loop makes the tiles' space free. */
        for (int part = 0; part < BM / EPI_ROWS; part++) {
            if (trow * TM / EPI_ROWS == part) {
                float *row = &smem[(trow * TM - part * EPI_ROWS) * EPI_LD + tcol * TNW];
#pragma unroll
                for (int m = 0; m < TM; m++)
#pragma unroll
                    for (int n = 0; n < TNW; n += 2)
                        *reinterpret_cast<float2 *>(&row[m * EPI_LD + n]) =
                            make_float2(acc[m][n], acc[m][n + 1]);
            }
            __syncthreads();
            for (int e = tid; e < EPI_ROWS * BNW; e += THREADS) {
                int r = e / BNW, j = col0 + e % BNW, k = row0 + part * EPI_ROWS + r;
                if (k < M && j < ncol) {
                    size_t o = out_index(k, j, M, PQ);
                    if (ATOMIC)
                        atomicAdd(&out[o], smem[r * EPI_LD + e % BNW]);
                    else
                        out[o] = smem[r * EPI_LD + e % BNW];
                }
            }
            __syncthreads();
        }
    }
}

/* ------------------------------------------------------------------------ */
/* Stage 2: im2col, then the GEMM. X is written out in d_work, one thread   */
/* per element, neighbouring threads on neighbouring columns (coalesced     */
/* stores; the reads are `stride` apart). It holds C R S N P Q floats: R S  */
/* times the input for a stride-1 layer, the price of this stage.           */
/* ------------------------------------------------------------------------ */

__global__ void im2col_kernel(conv_shape l, int P, int Q, const float *__restrict__ x,
                              float *__restrict__ X)
{
    size_t ncol = (size_t)l.N * P * Q;
    size_t idx = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= ncol * l.C * l.R * l.S)
        return;
    size_t row = idx / ncol, j = idx % ncol;
    int s = (int)(row % l.S), r = (int)(row / l.S % l.R), c = (int)(row / ((size_t)l.R * l.S));
    int n = (int)(j / ((size_t)P * Q)), pq = (int)(j % ((size_t)P * Q));
    int ih = (pq / Q) * l.stride - l.pad + r, iw = (pq % Q) * l.stride - l.pad + s;
    X[idx] = ih >= 0 && ih < l.H && iw >= 0 && iw < l.W
                 ? x[(((size_t)n * l.C + c) * l.H + ih) * l.W + iw]
                 : 0.0f;
}

/* The SMs of this GPU, read once; 0 if the runtime cannot say. */
static int sm_count()
{
    static int sms;
    if (sms == 0) {
        int device = 0;
        if (cudaGetDevice(&device) != cudaSuccess ||
            cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess)
            sms = 0;
    }
    return sms;
}

/* The tile's width, 128 or 96: the one whose launch ends first. Two blocks
 * fit on an SM, so the GPU runs 2 x SMs blocks at a time (a "wave"), and a
 * block's time grows with its width. The time of a launch is then about
 * waves x width. The timed layer (3 x 3, C = K = 128) makes 196 blocks of
 * 128 x 128: one wave of 264 places, a quarter of them idle. At 96 wide it
 * makes 262 blocks, each a quarter shorter, that fill the wave. */
static int tile_width(int blocks_down, int ncol)
{
    const int sms = sm_count();
    long long places = 2LL * (sms > 0 ? sms : 1), best = -1;
    int width = BN;
    for (int w : {128, 96}) {
        long long blocks = (long long)blocks_for(ncol, w) * blocks_down;
        long long cost = (blocks + places - 1) / places * w;
        if (best < 0 || cost < best)
            best = cost, width = w;
    }
    return width;
}

template <class Source, bool SMEM_EPILOGUE, bool ATOMIC>
static void launch_gemm(conv_shape l, int splits, int per_split, const float *filter,
                        Source src, float *out, cudaStream_t stream)
{
    int ncol = l.N * conv_p(l) * conv_q(l), down = blocks_for(l.K, BM);
    int depth = l.C * l.R * l.S, PQ = conv_p(l) * conv_q(l);
    if (tile_width(down * splits, ncol) == 96)
        conv_gemm_kernel<Source, 96, SMEM_EPILOGUE, ATOMIC>
            <<<dim3(blocks_for(ncol, 96), down, splits), THREADS, 0, stream>>>(
                l.K, ncol, depth, per_split, PQ, filter, src, out);
    else
        conv_gemm_kernel<Source, 128, SMEM_EPILOGUE, ATOMIC>
            <<<dim3(blocks_for(ncol, 128), down, splits), THREADS, 0, stream>>>(
                l.K, ncol, depth, per_split, PQ, filter, src, out);
}

extern "C" lab_status conv_im2col_gemm(conv_shape l, const float *d_in, const float *d_filter,
                                       float *d_out, void *d_work, cudaStream_t stream)
{
    int P = conv_p(l), Q = conv_q(l), depth = l.C * l.R * l.S;
    int ncol = l.N * P * Q;
    float *X = static_cast<float *>(d_work);
    im2col_kernel<<<blocks_for((long long)ncol * depth, 256), 256, 0, stream>>>(l, P, Q, d_in, X);
    launch_gemm<matrix_source, false, false>(l, 1, depth, d_filter, matrix_source{X, ncol}, d_out,
                                             stream);
    return LAB_OK;
}

/* ------------------------------------------------------------------------ */
/* Stage 3: implicit GEMM. The same GEMM, with X's elements gathered from   */
/* the input as the tiles are loaded: no im2col buffer, no extra pass over  */
/* memory. The index arithmetic (which c, r, s a row is) is done once per   */
/* row group and stepped from there.                                        */
/* ------------------------------------------------------------------------ */

extern "C" lab_status conv_implicit_gemm(conv_shape l, const float *d_in, const float *d_filter,
                                         float *d_out, void *d_work, cudaStream_t stream)
{
    (void)d_work;
    int P = conv_p(l), Q = conv_q(l);
    launch_gemm<nchw_source, false, false>(l, 1, l.C * l.R * l.S, d_filter,
                                           nchw_source{d_in, l, P, Q, l.N * P * Q}, d_out, stream);
    return LAB_OK;
}

/* ------------------------------------------------------------------------ */
/* Stage 4: NHWC. The input is transposed to N x H x W x C in d_work (per   */
/* image, [C][HW] -> [HW][C]: lab 1's padded-tile transpose) and the filter */
/* to K x R x S x C, so that the GEMM's depth runs (r, s, c) and a thread's */
/* 4 rows are 4 neighbouring channels: one 16-byte load. Layers whose output  */
/* gives fewer blocks than there are SMs split the depth over gridDim.z and */
/* add their partial sums with atomicAdd into the zeroed output (split-K).  */
/* Results leave through shared memory (the epilogue above).                */
/* ------------------------------------------------------------------------ */

enum { TT = 32, TR = 8 }; /* transpose tile and its rows of threads */

/* out[b][j][i] = in[b][i][j] for a batch of rows x cols matrices. */
__global__ void transpose_batched_kernel(const float *__restrict__ in, float *__restrict__ out,
                                         int rows, int cols)
{
    __shared__ float tile[TT][TT + 1]; /* +1: the column reads hit 32 different banks */
    size_t base = (size_t)blockIdx.z * rows * cols;
    int c = blockIdx.x * TT + threadIdx.x, r0 = blockIdx.y * TT;
    for (int r = threadIdx.y; r < TT; r += TR)
        if (r0 + r < rows && c < cols)
            tile[r][threadIdx.x] = in[base + (size_t)(r0 + r) * cols + c];
    __syncthreads();
    int oc = r0 + threadIdx.x, or0 = blockIdx.x * TT;
    for (int r = threadIdx.y; r < TT; r += TR)
        if (or0 + r < cols && oc < rows)
            out[base + (size_t)(or0 + r) * rows + oc] = tile[threadIdx.x][r];
}

/* Source: how the GEMM gathers X from the NHWC copy (nhwc_source, or a
 * variant with the same fields that make bench compares with it). */
template <class Source>
static lab_status run_nhwc(conv_shape l, const float *d_in, const float *d_filter, float *d_out,
                           void *d_work, cudaStream_t stream)
{
    const int sms = sm_count();
    if (sms == 0)
        return LAB_ERROR;
    int P = conv_p(l), Q = conv_q(l), HW = l.H * l.W, RS = l.R * l.S, depth = l.C * RS;
    float *x_nhwc = static_cast<float *>(d_work);
    /* The filter's copy starts 256-byte aligned after the input's. */
    float *w_krsc = x_nhwc + (((size_t)l.N * l.C * HW + 63) & ~(size_t)63);
    dim3 tb(TT, TR);
    transpose_batched_kernel<<<dim3(blocks_for(HW, TT), blocks_for(l.C, TT), l.N), tb, 0, stream>>>(
        d_in, x_nhwc, l.C, HW);
    /* KCRS is, per k, a C x RS matrix: its transpose is RS x C, i.e. KRSC. */
    transpose_batched_kernel<<<dim3(blocks_for(RS, TT), blocks_for(l.C, TT), l.K), tb, 0, stream>>>(
        d_filter, w_krsc, l.C, RS);

    Source src;
    src.x = x_nhwc, src.l = l, src.P = P, src.Q = Q, src.ncol = l.N * P * Q;
    /* Split only when some SMs would get no block at all (the deep and small
     * layer: 4 blocks). Measured on the H200: a layer with one block per SM
     * ran faster whole than split over two waves with atomics. */
    const int down = blocks_for(l.K, BM);
    long long blocks = (long long)blocks_for(src.ncol, tile_width(down, src.ncol)) * down;
    int splits = 1;
    if (blocks < sms) /* fill two places per SM */
        splits = (int)((2LL * sms + blocks - 1) / blocks);
    int per_split = (depth + splits - 1) / splits;
    per_split = per_split < 8 * BK ? 8 * BK : (per_split + BK - 1) / BK * BK; /* >= 8 tiles each */
    splits = (depth + per_split - 1) / per_split;
    if (splits > 1) {
        if (cudaMemsetAsync(d_out, 0, (size_t)l.N * l.K * P * Q * sizeof(float), stream) != cudaSuccess)
            return LAB_ERROR;
        launch_gemm<Source, true, true>(l, splits, per_split, w_krsc, src, d_out, stream);
    } else {
        launch_gemm<Source, true, false>(l, 1, depth, w_krsc, src, d_out, stream);
    }
    return LAB_OK;
}

extern "C" lab_status conv_nhwc(conv_shape l, const float *d_in, const float *d_filter,
                                float *d_out, void *d_work, cudaStream_t stream)
{
    return run_nhwc<nhwc_source>(l, d_in, d_filter, d_out, d_work, stream);
}
