/* Lab 6, convolution: your work. Each stage below has a spec comment and
 * TODOs; write them in order and grade with `make lab6 && ./grade` (or one
 * stage: ./grade --stage 2). Stage 0 is given, complete: read it first.
 *
 * Forward convolution, float32, NCHW input, KCRS filter, NCHW output (see
 * conv.h). Seen as a matrix product, each image n is
 *
 *     out_n [K x PQ] = filter [K x CRS] . X_n [CRS x PQ]
 *
 * where column (p, q) of X_n holds the input window under output (p, q):
 * row (c, r, s) is in[n][c][p*stride - pad + r][q*stride - pad + s], or 0 in
 * the padding. Putting the images side by side gives one GEMM with M = K,
 * N = N P Q and a depth of C R S (handouts/6-conv.md). Every stage must
 * handle every layer of the table in the handout: odd sizes, stride 2, 1 x 1
 * and 7 x 7 filters, K = 4.
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
/* Stage 1: direct, tiled. A block computes a tile of outputs (p, q) of one */
/* image for a few output channels (16 x 16 outputs, 8 channels is a good   */
/* start). For each input channel c it stages in shared memory the input    */
/* patch under the tile, with its halo ((T - 1) stride + R rows), and those */
/* channels' R x S weights of c; after __syncthreads() every thread makes its */
/* outputs from shared memory. The patch size depends on the layer: use     */
/* dynamic shared memory (the third launch parameter).                      */
/* Expect: 2.5x over stage 0.                                               */
/* ------------------------------------------------------------------------ */
/* TODO(lab6.s1): your kernel(s). */

extern "C" lab_status conv_direct_tiled(conv_shape l, const float *d_in, const float *d_filter,
                                float *d_out, void *d_work, cudaStream_t stream)
{
    /* TODO(lab6.s1): launch your kernels on `stream` and return LAB_OK. */
    (void)l, (void)d_in, (void)d_filter, (void)d_out, (void)d_work, (void)stream;
    return LAB_TODO;
}

/* ------------------------------------------------------------------------ */
/* Stage 2: im2col, then a GEMM. Write X, the (C R S) x (N P Q) matrix of   */
/* input windows, into d_work (one thread per element, neighbouring threads */
/* on neighbouring columns), then multiply the filter (K x C R S, row-major: */
/* KCRS already is) by it with a tiled GEMM (your lab 4 stage 5 or 6). Column */
/* j = (n, p, q) of the product goes to out[n][k][p][q], not to row-major   */
/* position k (N P Q) + j. d_work holds conv_work_bytes(l) bytes.           */
/* Expect: 1.5x over stage 1.                                               */
/* ------------------------------------------------------------------------ */
/* TODO(lab6.s2): your kernel(s). */

extern "C" lab_status conv_im2col_gemm(conv_shape l, const float *d_in, const float *d_filter,
                                float *d_out, void *d_work, cudaStream_t stream)
{
    /* TODO(lab6.s2): launch your kernels on `stream` and return LAB_OK. */
    (void)l, (void)d_in, (void)d_filter, (void)d_out, (void)d_work, (void)stream;
    return LAB_TODO;
}

/* ------------------------------------------------------------------------ */
/* Stage 3: implicit GEMM. The GEMM of stage 2 without the im2col pass: when */
/* a thread loads its part of X's tile, it computes which (c, r, s) the row */
/* and which (n, p, q) the column are, and reads the input (or 0 in the     */
/* padding). Work out a column's (n, p, q) once, and a row's (c, r, s) once */
/* per tile, stepping it for the next rows instead of dividing again.       */
/* Expect: 1.25x over stage 2.                                              */
/* ------------------------------------------------------------------------ */
/* TODO(lab6.s3): your kernel(s). */

extern "C" lab_status conv_implicit_gemm(conv_shape l, const float *d_in, const float *d_filter,
                                float *d_out, void *d_work, cudaStream_t stream)
{
    /* TODO(lab6.s3): launch your kernels on `stream` and return LAB_OK. */
    (void)l, (void)d_in, (void)d_filter, (void)d_out, (void)d_work, (void)stream;
    return LAB_TODO;
}

/* ------------------------------------------------------------------------ */
/* Stage 4: NHWC and split-K. Transpose the input to N x H x W x C into     */
/* d_work (lab 1's tiled transpose, per image) and the filter to K x R x S x */
/* C, and order the GEMM's depth (r, s, c): a thread's consecutive rows are */
/* then consecutive channels of one pixel, one 16-byte load when C is a     */
/* multiple of 4. For layers whose output gives fewer blocks than there    */
/* are SMs, split the depth over gridDim.z and atomicAdd the partial sums   */
/* into the output, zeroed first with cudaMemsetAsync. Store the results    */
/* through shared memory so that each warp writes neighbouring outputs.     */
/* Stage 4 is timed on the deep, small layer (C = 2048, 7 x 7, K = 512),    */
/* whose output makes only four 128 x 128 tiles for the whole GPU.          */
/* Expect: 12% of the ceiling there (cuBLAS at that layer's GEMM shape),    */
/* which takes a split of the depth; the reference reaches 28% to 29%.      */
/* ------------------------------------------------------------------------ */
/* TODO(lab6.s4): your kernel(s). */

extern "C" lab_status conv_nhwc(conv_shape l, const float *d_in, const float *d_filter,
                                float *d_out, void *d_work, cudaStream_t stream)
{
    /* TODO(lab6.s4): launch your kernels on `stream` and return LAB_OK. */
    (void)l, (void)d_in, (void)d_filter, (void)d_out, (void)d_work, (void)stream;
    return LAB_TODO;
}
