/* grader/given/conv_given.cu: lab 6's given stages (conv_direct), the course's
 * own copy. The grader calls and times these, built into
 * build/ceilings/lab6-given.so, in place of the submission's, so that a
 * submission cannot slow a given stage to make the next one look fast. The
 * lab's header is included by its path, with no -I, so that no other file in
 * the student's folder can stand in for a header. Below, every paragraph is
 * labs/6-conv/conv.cu's, word for word and in order (a test holds them equal):
 * change the skeleton, then copy the change here. */
#include "../../labs/6-conv/conv.h"

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
