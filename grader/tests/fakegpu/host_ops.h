/* host_ops.h: the labs' operations on the host, for the fake GPU's stage
 * libraries (labN.c) and the ceilings (<name>_ceiling.c) alike. */
#ifndef CUDA_LABS_HOST_OPS_H
#define CUDA_LABS_HOST_OPS_H

#include <stddef.h>

#include "../../../labs/6-conv/conv.h"

/* The sum of n floats, accumulated in double. */
static inline float sum_host(const float *in, size_t n)
{
    double s = 0;
    for (size_t i = 0; i < n; i++)
        s += in[i];
    return (float)s;
}

/* C = alpha A B + beta C (lab 4), in double; C is read only when beta is not
 * 0, or always when reads_c (as a GEMM that ignores BLAS's rule would). */
static inline void gemm_host(int M, int N, int K, float alpha, const float *A, const float *B,
                             float beta, float *C, int reads_c)
{
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            double s = 0;
            for (int k = 0; k < K; k++)
                s += (double)A[(size_t)i * K + k] * B[(size_t)k * N + j];
            float *c = &C[(size_t)i * N + j];
            *c = (float)(alpha * s + (beta != 0 || reads_c ? beta * *c : 0.0));
        }
}

/* The layer's output on the host; flipped: the filter read backwards in r
 * and s (a convolution, not the cross-correlation). */
static inline void conv_host(conv_shape l, const float *in, const float *filter, float *out, int flipped)
{
    const int P = conv_p(l), Q = conv_q(l);
    for (int n = 0; n < l.N; n++)
        for (int k = 0; k < l.K; k++)
            for (int p = 0; p < P; p++)
                for (int q = 0; q < Q; q++) {
                    double s = 0;
                    for (int c = 0; c < l.C; c++)
                        for (int r = 0; r < l.R; r++)
                            for (int t = 0; t < l.S; t++) {
                                int h = p * l.stride - l.pad + r, w = q * l.stride - l.pad + t;
                                if (h < 0 || h >= l.H || w < 0 || w >= l.W)
                                    continue;
                                int fr = flipped ? l.R - 1 - r : r, ft = flipped ? l.S - 1 - t : t;
                                s += (double)in[(((size_t)n * l.C + c) * l.H + h) * l.W + w] *
                                     filter[(((size_t)k * l.C + c) * l.R + fr) * l.S + ft];
                            }
                    out[(((size_t)n * l.K + k) * P + p) * Q + q] = (float)s;
                }
}

#endif
