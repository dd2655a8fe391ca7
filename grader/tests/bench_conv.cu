/* bench_conv.cu: lab 6's reference solution on every graded layer, each stage
 * checked against the CPU reference and timed, next to cuDNN's fastest
 * float32 algorithm (tensor-op math off) when cuDNN is installed, in one
 * process. Effective TFLOP/s count 2 N K P Q C R S per call.
 * Four candidates for the reference are timed after the five stages:
 * stepping instead of dividing in the gathers (3', 4') and lab 4's
 * warp-tile layout with 16-deep tiles (3''), measured on the H200; and the
 * tile's width chosen from how the blocks fill the GPU (3''', not yet).
 * make bench (GPU needed); build/bench_conv [reps] [first layer] [last layer]. */
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#ifdef HAVE_CUDNN
#include <cudnn.h>
#endif

extern "C" {
#include "../../common/rng.h"
#include "../labs/conv_lab.h"
#include "../verdict.h"
}
#include "../../solutions/6-conv/conv.cu"

/* ---- Candidates for the reference, timed next to it ----------------------
 * The sources of stages 3 and 4 divide to find (c, r, s) on every fetch.
 * These keep the next row's (c, r, s) in the column object (which lives in
 * registers) and step it by BK, dividing only when a fetch is not the one
 * expected (the first of a block or of a split). Same kernel, same tiles. */

struct nchw_stepping_source : nchw_source {
    struct column {
        const float *img;
        int ih0, iw0;
        mutable int next, c, r, s; /* the expected row and its (c, r, s) */
    };
    __device__ column at(int j) const
    {
        nchw_source::column b = nchw_source::at(j);
        return {b.img, b.ih0, b.iw0, -1, 0, 0, 0};
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
            if (++s == l.S) {
                s = 0;
                if (++r == l.R) {
                    r = 0;
                    c++;
                }
            }
        }
        for (int i = 4; i < BK; i++) /* on to row + BK, where this thread's next fetch starts */
            if (++s == l.S) {
                s = 0;
                if (++r == l.R) {
                    r = 0;
                    c++;
                }
            }
        col.next = row + BK, col.c = c, col.r = r, col.s = s;
    }
};

struct nhwc_stepping_source : nhwc_source {
    struct column {
        const float *img;
        int ih0, iw0;
        mutable int next, r, s, c;
    };
    __device__ column at(int j) const
    {
        nhwc_source::column b = nhwc_source::at(j);
        return {b.img, b.ih0, b.iw0, -1, 0, 0, 0};
    }
    __device__ void rows(const column &col, int row, int end, float v[4]) const
    {
        if (row != col.next) {
            int rs = row / l.C;
            col.c = row % l.C, col.r = rs / l.S, col.s = rs % l.S;
        }
        int r = col.r, s = col.s, c = col.c, ih = col.ih0 + r, iw = col.iw0 + s;
        bool in = col.img && ih >= 0 && ih < l.H && iw >= 0 && iw < l.W;
        if ((l.C & 3) == 0 && row + 3 < end) {
            float4 f = in ? *reinterpret_cast<const float4 *>(col.img + ((size_t)ih * l.W + iw) * l.C + c)
                          : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
            v[0] = f.x, v[1] = f.y, v[2] = f.z, v[3] = f.w;
        } else {
            nhwc_source::column b = {col.img, col.ih0, col.iw0};
            nhwc_source::rows(b, row, end, v);
        }
        c += BK; /* on to row + BK */
        while (c >= l.C) {
            c -= l.C;
            if (++s == l.S) {
                s = 0;
                r++;
            }
        }
        col.next = row + BK, col.c = c, col.r = r, col.s = s;
    }
};

extern "C" lab_status implicit_stepping(conv_shape l, const float *d_in, const float *d_filter,
                                        float *d_out, void *d_work, cudaStream_t stream)
{
    (void)d_work;
    int P = conv_p(l), Q = conv_q(l);
    nchw_stepping_source src;
    static_cast<nchw_source &>(src) = nchw_source{d_in, l, P, Q, l.N * P * Q};
    launch_gemm<nchw_stepping_source, false, false>(l, 1, l.C * l.R * l.S, d_filter, src, d_out,
                                                    stream);
    return LAB_OK;
}

/* Stage 4 with the stepping source; everything else as in the reference. */
extern "C" lab_status nhwc_stepping(conv_shape l, const float *d_in, const float *d_filter,
                                    float *d_out, void *d_work, cudaStream_t stream)
{
    return run_nhwc<nhwc_stepping_source>(l, d_in, d_filter, d_out, d_work, stream);
}

/* A third candidate: lab 4's stage-7 layout for the same GEMM. Tiles 16 deep;
 * each of the 8 warps owns 64 x 32 of the block's 128 x 128, its lanes 8 x 4,
 * each lane 2 x 2 blocks of 4 x 4; the sources of stages 3 and 4 unchanged
 * (two fetches of 4 rows per tile). Results stored directly. */
enum { BK16 = 16, WM16 = 64, WN16 = 32 };

template <class Source, bool ATOMIC>
__global__ void __launch_bounds__(THREADS, 2)
    warp_gemm_kernel(int M, int ncol, int depth, int per_split, int PQ,
                     const float *__restrict__ A, Source src, float *__restrict__ out)
{
    __shared__ __align__(16) float As[2][BK16][BM]; /* A's tile transposed */
    __shared__ __align__(16) float Bs[2][BK16][BN];
    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    const int k_begin = blockIdx.z * per_split, k_end = min(depth, k_begin + per_split);
    const int wrow = (warp / (BN / WN16)) * WM16, wcol = (warp % (BN / WN16)) * WN16;
    const int lrow = (lane / 4) * 4, lcol = (lane % 4) * 4;
    const int a_r = tid / 2, a_c = (tid % 2) * 8; /* 8 depths of A's row a_r */
    const int b_c = Source::along_rows ? tid / 2 : tid % BN;
    const int b_r = Source::along_rows ? (tid % 2) * 8 : (tid / BN) * 8; /* 8 rows of X */
    const float *a_row = row0 + a_r < M ? A + (size_t)(row0 + a_r) * depth : nullptr;
    const typename Source::column col = src.at(col0 + b_c);
    float a_reg[8], b_reg[8];
    auto fetch = [&](int k0) {
#pragma unroll
        for (int i = 0; i < 8; i++)
            a_reg[i] = a_row && k0 + a_c + i < k_end ? a_row[k0 + a_c + i] : 0.0f;
        src.rows(col, k0 + b_r, k_end, b_reg);
        src.rows(col, k0 + b_r + 4, k_end, b_reg + 4);
    };
    auto stash = [&](int buf) {
#pragma unroll
        for (int i = 0; i < 8; i++) {
            As[buf][a_c + i][a_r] = a_reg[i];
            Bs[buf][b_r + i][b_c] = b_reg[i];
        }
    };
    float acc[8][8] = {{0.0f}};
    fetch(k_begin);
    stash(0);
    __syncthreads();
    int buf = 0;
    for (int k0 = k_begin; k0 < k_end; k0 += BK16) {
        const bool more = k0 + BK16 < k_end;
        if (more)
            fetch(k0 + BK16);
#pragma unroll
        for (int kk = 0; kk < BK16; kk++) {
            float a[8], b[8];
#pragma unroll
            for (int h = 0; h < 2; h++) {
                float4 va = *reinterpret_cast<const float4 *>(&As[buf][kk][wrow + h * 32 + lrow]);
                float4 vb = *reinterpret_cast<const float4 *>(&Bs[buf][kk][wcol + h * 16 + lcol]);
                a[4 * h] = va.x, a[4 * h + 1] = va.y, a[4 * h + 2] = va.z, a[4 * h + 3] = va.w;
                b[4 * h] = vb.x, b[4 * h + 1] = vb.y, b[4 * h + 2] = vb.z, b[4 * h + 3] = vb.w;
            }
#pragma unroll
            for (int m = 0; m < 8; m++)
#pragma unroll
                for (int n = 0; n < 8; n++)
                    acc[m][n] += a[m] * b[n];
        }
        if (more) {
            stash(buf ^ 1);
            buf ^= 1;
        }
        __syncthreads();
    }
#pragma unroll
    for (int m = 0; m < 8; m++) {
        int k = row0 + wrow + (m / 4) * 32 + lrow + m % 4;
        if (k >= M)
            continue;
#pragma unroll
        for (int n = 0; n < 8; n++) {
            int j = col0 + wcol + (n / 4) * 16 + lcol + n % 4;
            if (j >= ncol)
                continue;
            size_t o = out_index(k, j, M, PQ);
            if (ATOMIC)
                atomicAdd(&out[o], acc[m][n]);
            else
                out[o] = acc[m][n];
        }
    }
}

extern "C" lab_status implicit_warp(conv_shape l, const float *d_in, const float *d_filter,
                                    float *d_out, void *d_work, cudaStream_t stream)
{
    (void)d_work;
    int P = conv_p(l), Q = conv_q(l), ncol = l.N * P * Q;
    dim3 grid(blocks_for(ncol, BN), blocks_for(l.K, BM), 1);
    warp_gemm_kernel<nchw_source, false><<<grid, THREADS, 0, stream>>>(
        l.K, ncol, l.C * l.R * l.S, l.C * l.R * l.S, P * Q, d_filter,
        nchw_source{d_in, l, P, Q, ncol}, d_out);
    return LAB_OK;
}

/* A fourth candidate: the reference's kernel with the tile's width (its
 * columns, j = (n, p, q)) chosen per layer from how the blocks fill the GPU.
 * With 2 blocks per SM there are 2 x SMs slots; a launch takes as many waves
 * as it fills, and a wave lasts as long as one block, which grows with the
 * tile's width. The 3 x 3, C = K = 128 layer makes 196 blocks of 128 x 128:
 * one wave of 264 slots, a quarter of them idle. Tiles 96 wide make 262
 * blocks, 25% shorter, that fill the wave. Each thread then owns 8 x 6
 * outputs (read from shared memory as float2), and 192 of the 256 threads
 * load the X tile. */
template <class Source, int BNW, int TNW>
__global__ void __launch_bounds__(THREADS, 2)
    wide_gemm_kernel(int M, int ncol, int depth, int PQ, const float *__restrict__ A, Source src,
                     float *__restrict__ out)
{
    static_assert(BNW / TNW * (BM / TM) == THREADS && TNW % 2 == 0, "one 8 x TNW block per thread");
    __shared__ __align__(16) float As[2][BK][BM]; /* A's tile transposed */
    __shared__ __align__(16) float Bs[2][BK][BNW];
    const int tid = threadIdx.x;
    const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BNW;
    const int trow = tid / (BNW / TNW), tcol = tid % (BNW / TNW);
    const int a_r = tid / 2, a_c = (tid % 2) * 4;
    const bool b_on = tid < BK * BNW / 4; /* the threads that load X */
    const int b_c = Source::along_rows ? tid / 2 : tid % BNW;
    const int b_r = Source::along_rows ? (tid % 2) * 4 : (tid / BNW) * 4;
    const float *a_row = row0 + a_r < M ? A + (size_t)(row0 + a_r) * depth : nullptr;
    const typename Source::column col = src.at(b_on ? col0 + b_c : ncol);
    float a_reg[4], b_reg[4];
    auto fetch = [&](int k0) {
#pragma unroll
        for (int i = 0; i < 4; i++)
            a_reg[i] = a_row && k0 + a_c + i < depth ? a_row[k0 + a_c + i] : 0.0f;
        if (b_on)
            src.rows(col, k0 + b_r, depth, b_reg);
    };
    auto stash = [&](int buf) {
#pragma unroll
        for (int i = 0; i < 4; i++) {
            As[buf][a_c + i][a_r] = a_reg[i];
            if (b_on)
                Bs[buf][b_r + i][b_c] = b_reg[i];
        }
    };
    float acc[TM][TNW] = {{0.0f}};
    fetch(0);
    stash(0);
    __syncthreads();
    int buf = 0;
    for (int k0 = 0; k0 < depth; k0 += BK) {
        const bool more = k0 + BK < depth;
        if (more)
            fetch(k0 + BK);
#pragma unroll
        for (int kk = 0; kk < BK; kk++) {
            float4 a0 = *reinterpret_cast<const float4 *>(&As[buf][kk][trow * TM]);
            float4 a1 = *reinterpret_cast<const float4 *>(&As[buf][kk][trow * TM + 4]);
            float a[TM] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
            float b[TNW];
#pragma unroll
            for (int n = 0; n < TNW; n += 2) {
                float2 v = *reinterpret_cast<const float2 *>(&Bs[buf][kk][tcol * TNW + n]);
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
#pragma unroll
    for (int n = 0; n < TNW; n++) {
        int j = col0 + tcol * TNW + n;
        if (j >= ncol)
            continue;
#pragma unroll
        for (int m = 0; m < TM; m++) {
            int k = row0 + trow * TM + m;
            if (k < M)
                out[out_index(k, j, M, PQ)] = acc[m][n];
        }
    }
}

/* The width whose launch takes the least time, counted as waves x width. */
static int tile_width_by_waves(int blocks_down, int ncol)
{
    static int sms;
    if (sms == 0) {
        int device = 0;
        if (cudaGetDevice(&device) != cudaSuccess ||
            cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess)
            sms = 16;
    }
    long long slots = 2LL * sms, best = -1;
    int width = BN;
    for (int w : {128, 96}) {
        long long blocks = (long long)blocks_for(ncol, w) * blocks_down;
        long long cost = (blocks + slots - 1) / slots * w;
        if (best < 0 || cost < best)
            best = cost, width = w;
    }
    return width;
}

extern "C" lab_status implicit_waves(conv_shape l, const float *d_in, const float *d_filter,
                                     float *d_out, void *d_work, cudaStream_t stream)
{
    (void)d_work;
    int P = conv_p(l), Q = conv_q(l), ncol = l.N * P * Q, depth = l.C * l.R * l.S;
    nchw_stepping_source src;
    static_cast<nchw_source &>(src) = nchw_source{d_in, l, P, Q, ncol};
    int down = blocks_for(l.K, BM);
    if (tile_width_by_waves(down, ncol) == 96)
        wide_gemm_kernel<nchw_stepping_source, 96, 6>
            <<<dim3(blocks_for(ncol, 96), down), THREADS, 0, stream>>>(l.K, ncol, depth, P * Q,
                                                                      d_filter, src, d_out);
    else
        wide_gemm_kernel<nchw_stepping_source, 128, 8>
            <<<dim3(blocks_for(ncol, 128), down), THREADS, 0, stream>>>(l.K, ncol, depth, P * Q,
                                                                       d_filter, src, d_out);
    return LAB_OK;
}

static const struct {
    const char *name;
    conv_fn fn;
} stages[] = {
    {"0 direct (given)", conv_direct},  {"1 direct, tiled", conv_direct_tiled},
    {"2 im2col + GEMM", conv_im2col_gemm}, {"3 implicit GEMM", conv_implicit_gemm},
    {"4 NHWC, split-K", conv_nhwc},
    {"3' implicit GEMM, stepping (candidate)", implicit_stepping},
    {"4' NHWC, stepping (candidate)", nhwc_stepping},
    {"3'' implicit GEMM, warp tiles (candidate)", implicit_warp},
    {"3''' implicit GEMM, tile width by waves (candidate)", implicit_waves},
};

#include "bench_timing.cuh"

#ifdef HAVE_CUDNN
static const char *const algo_names[] = {"implicit GEMM", "implicit precomputed GEMM", "GEMM",
                                         "direct", "FFT", "FFT tiling", "Winograd",
                                         "Winograd non-fused"};

/* The GEMM family: what the lab's stages 2 to 4 are. */
static bool gemm_family(cudnnConvolutionFwdAlgo_t a)
{
    return a == CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM ||
           a == CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM ||
           a == CUDNN_CONVOLUTION_FWD_ALGO_GEMM;
}

/* cuDNN's fastest FMA-math algorithm for this layer (of the GEMM family
 * only, when gemm_only); its time in ms or -1, and its name in *name. */
static float cudnn_ms(cudnnHandle_t h, conv_shape l, const float *x, const float *w, float *y,
                      int reps, bool gemm_only, const char **name)
{
    int P = conv_p(l), Q = conv_q(l);
    cudnnTensorDescriptor_t xd, yd;
    cudnnFilterDescriptor_t wd;
    cudnnConvolutionDescriptor_t cd;
    cudnnCreateTensorDescriptor(&xd);
    cudnnCreateTensorDescriptor(&yd);
    cudnnCreateFilterDescriptor(&wd);
    cudnnCreateConvolutionDescriptor(&cd);
    cudnnSetTensor4dDescriptor(xd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, l.N, l.C, l.H, l.W);
    cudnnSetTensor4dDescriptor(yd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, l.N, l.K, P, Q);
    cudnnSetFilter4dDescriptor(wd, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, l.K, l.C, l.R, l.S);
    cudnnSetConvolution2dDescriptor(cd, l.pad, l.pad, l.stride, l.stride, 1, 1,
                                    CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT);
    cudnnSetConvolutionMathType(cd, CUDNN_FMA_MATH);
    cudnnConvolutionFwdAlgoPerf_t perf[16];
    int found = 0;
    float ms = -1;
    if (cudnnFindConvolutionForwardAlgorithm(h, xd, wd, cd, yd, 16, &found, perf) ==
        CUDNN_STATUS_SUCCESS) {
        for (int i = 0; i < found; i++) {
            if (perf[i].status != CUDNN_STATUS_SUCCESS || perf[i].mathType != CUDNN_FMA_MATH ||
                (gemm_only && !gemm_family(perf[i].algo)))
                continue;
            void *ws = nullptr;
            if (perf[i].memory && cudaMalloc(&ws, perf[i].memory) != cudaSuccess)
                continue;
            float one = 1, zero = 0;
            cudnnConvolutionFwdAlgo_t algo = perf[i].algo;
            *name = (int)algo >= 0 && (int)algo < 8 ? algo_names[algo] : "another";
            size_t wsb = perf[i].memory;
            ms = time_ms([&] { cudnnConvolutionForward(h, &one, xd, x, wd, w, cd, algo, ws, wsb, &zero, yd, y); }, reps);
            cudaFree(ws);
            break;
        }
    }
    cudnnDestroyTensorDescriptor(xd);
    cudnnDestroyTensorDescriptor(yd);
    cudnnDestroyFilterDescriptor(wd);
    cudnnDestroyConvolutionDescriptor(cd);
    return ms;
}
#endif

int main(int argc, char **argv)
{
    int reps = argc > 1 ? atoi(argv[1]) : 10;
    int first = argc > 2 ? atoi(argv[2]) : 0, last = argc > 3 ? atoi(argv[3]) : conv_n_layers - 1;
    uint64_t seed = 0x5eed6;
    printf("seed 0x%llx, %d timed calls per figure\n", (unsigned long long)seed, reps);
#ifdef HAVE_CUDNN
    cudnnHandle_t h;
    cudnnCreate(&h);
#endif
    int failures = 0;
    for (int li = first; li <= last && li < conv_n_layers; li++) {
        const conv_layer cl = conv_layers[li].l;
        conv_shape l = {cl.N, cl.C, cl.H, cl.W, cl.K, cl.R, cl.S, cl.stride, cl.pad};
        size_t nx = (size_t)l.N * l.C * l.H * l.W, nw = (size_t)l.K * l.C * l.R * l.S;
        size_t ny = conv_out_elems(&cl);
        std::vector<float> hx(nx), hw(nw), got(ny);
        std::vector<double> exact(ny), scale(ny);
        rng r;
        rng_seed(&r, seed + li);
        rng_fill_uniform(&r, hx.data(), nx, -1.0f, 1.0f);
        rng_fill_uniform(&r, hw.data(), nw, -1.0f, 1.0f);
        conv_problem prob = {cl, hx.data(), hw.data()};
        if (conv_reference(&prob, exact.data(), scale.data()) != 0) {
            printf("out of host memory\n");
            return 1;
        }
        float *x, *w, *y;
        void *work;
        cudaMalloc(&x, nx * 4);
        cudaMalloc(&w, nw * 4);
        cudaMalloc(&y, ny * 4);
        cudaMalloc(&work, conv_work_bytes(l));
        cudaMemcpy(x, hx.data(), nx * 4, cudaMemcpyHostToDevice);
        cudaMemcpy(w, hw.data(), nw * 4, cudaMemcpyHostToDevice);
        double tflop = 2.0 * ny * l.C * l.R * l.S / 1e12;
        printf("\n%s (N %d, C %d, %dx%d, K %d, %dx%d, stride %d, pad %d): %.1f GFLOP\n",
               conv_layers[li].name, l.N, l.C, l.H, l.W, l.K, l.R, l.S, l.stride, l.pad,
               tflop * 1e3);
        double ceiling = 0;
#ifdef HAVE_CUDNN
        const char *best = "", *best_gemm = "";
        float cm = cudnn_ms(h, l, x, w, y, reps, false, &best);
        float cg = cudnn_ms(h, l, x, w, y, reps, true, &best_gemm);
        if (cm > 0) {
            ceiling = tflop / (cm * 1e-3);
            printf("  %-52s %8.3f ms  %6.2f TFLOP/s  (%s)\n", "cuDNN FP32, fastest algorithm", cm,
                   ceiling, best);
        }
        if (cg > 0)
            printf("  %-52s %8.3f ms  %6.2f TFLOP/s  (%s)\n", "cuDNN FP32, fastest GEMM algorithm",
                   cg, tflop / (cg * 1e-3), best_gemm);
#endif
        for (auto &st : stages) {
            cudaMemset(y, 0xff, ny * 4);
            lab_status ls = st.fn(l, x, w, y, work, 0);
            cudaError_t err = cudaDeviceSynchronize();
            if (ls != LAB_OK || err != cudaSuccess) {
                printf("  %-52s status %d, %s\n", st.name, (int)ls, cudaGetErrorString(err));
                failures++;
                if (err != cudaSuccess)
                    return 1;
                continue;
            }
            cudaMemcpy(got.data(), y, ny * 4, cudaMemcpyDeviceToHost);
            char msg[512] = "";
            int v = conv_judge(&prob, exact.data(), scale.data(), got.data(), msg, sizeof msg);
            float ms = time_ms([&] { st.fn(l, x, w, y, work, 0); }, reps);
            double tf = tflop / (ms * 1e-3);
            printf("  %-52s %8.3f ms  %6.2f TFLOP/s", st.name, ms, tf);
            if (ceiling > 0)
                printf("  %5.1f%% of cuDNN", 100 * tf / ceiling);
            printf("  %s\n", v == V_PASS ? "correct" : msg);
            failures += v != V_PASS;
        }
        cudaFree(x);
        cudaFree(w);
        cudaFree(y);
        cudaFree(work);
    }
    cudaError_t e = cudaDeviceSynchronize();
    printf("\n%s, %d failures\n", cudaGetErrorString(e), failures);
    return e != cudaSuccess || failures;
}
