/* conv.h: the contract between lab 6 and the grader. Read it; do not edit it.
 *
 * Every stage computes a forward 2D convolution in float32 (cross-correlation,
 * as deep-learning libraries define it), with zero padding:
 *
 *     out[n][k][p][q] = sum over c, r, s of
 *         in[n][c][p * stride - pad + r][q * stride - pad + s] * filter[k][c][r][s]
 *
 * input N x C x H x W (NCHW), filter K x C x R x S, output N x K x P x Q with
 * P = (H + 2 pad - R) / stride + 1 and Q = (W + 2 pad - S) / stride + 1; an
 * input position outside the image counts as 0. The grader owns the buffers
 * (device memory, 256-byte aligned) and the stream; d_work is scratch space of
 * conv_work_bytes(layer) bytes (for im2col and layout changes), garbage when
 * a stage is called. A stage launches its kernels on the stream and returns
 * LAB_OK, without allocating, synchronising, timing, printing, or calling
 * cuDNN or cuBLAS. A stage not written yet returns LAB_TODO. */
#ifndef CUDA_LABS_CONV_H
#define CUDA_LABS_CONV_H

#include <stddef.h>
#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef CUDA_LABS_LAB_STATUS
#define CUDA_LABS_LAB_STATUS
typedef enum lab_status {
    LAB_OK = 0,   /* kernels launched */
    LAB_TODO = 1, /* this stage is not written yet */
    LAB_ERROR = 2 /* the stage found a problem it could not handle */
} lab_status;
#endif

typedef struct conv_shape {
    int N, C, H, W; /* input */
    int K, R, S;    /* filter */
    int stride, pad;
} conv_shape;

static inline int conv_p(conv_shape l)
{
    return (l.H + 2 * l.pad - l.R) / l.stride + 1;
}

static inline int conv_q(conv_shape l)
{
    return (l.W + 2 * l.pad - l.S) / l.stride + 1;
}

/* Scratch bytes in d_work: room for the im2col matrix (C R S x N P Q floats),
 * an NHWC copy of the input and a reordered copy of the filter, plus 1 MiB. */
static inline size_t conv_work_bytes(conv_shape l)
{
    size_t im2col = (size_t)l.C * l.R * l.S * l.N * conv_p(l) * conv_q(l);
    size_t nhwc = (size_t)l.N * l.C * l.H * l.W;
    size_t filter = (size_t)l.K * l.C * l.R * l.S;
    return 4 * (im2col + nhwc + filter) + ((size_t)1 << 20);
}

typedef lab_status (*conv_fn)(conv_shape layer, const float *d_in, const float *d_filter,
                              float *d_out, void *d_work, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
