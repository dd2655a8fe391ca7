/* host_ops.h: the labs' operations on the host, for the fake GPU's stage
 * libraries (labN.c) and the ceilings (<name>_ceiling.c) alike. */
#ifndef CUDA_LABS_HOST_OPS_H
#define CUDA_LABS_HOST_OPS_H

#include <stddef.h>
#include <time.h>

#include "../../../labs/6-conv/conv.h"

/* Lab 5's ceiling takes this long on the fake GPU (its stages: lab5.c).
 * Lab 5 is timed by the wall clock, so the fake stages and ceiling sleep,
 * and a sleep can overrun by a millisecond or two on a loaded host. At a
 * quarter of these lengths, under `make test` on the 16 cores of the H200's
 * host, stage 2 read 0.97x stage 1 (designed 1.36x, needs 1.15x): the
 * lengths are 4 times that, so the same overrun moves a ratio a quarter as
 * much. */
#define STREAMS_CEILING_MS 14.0

/* Sleeps ms milliseconds: lab 5's stages and ceiling, timed by the wall clock. */
static inline void sleep_ms(double ms)
{
    struct timespec t = {(time_t)(ms / 1e3), (long)((ms - 1e3 * (time_t)(ms / 1e3)) * 1e6)};
    while (nanosleep(&t, &t) != 0)
        ;
}

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

/* C = A Bt^T from BF16 patterns (lab 7), in double; !transposed reads Bt as
 * B (K x N, row-major), as a stage with its layout wrong would. */
static inline float bf16_host(unsigned short b)
{
    union {
        unsigned u;
        float f;
    } x = {(unsigned)b << 16};
    return x.f;
}

static inline void bf16_gemm_host(int M, int N, int K, const unsigned short *A,
                                  const unsigned short *Bt, float *C, int transposed)
{
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            double s = 0;
            for (int k = 0; k < K; k++)
                s += (double)bf16_host(A[(size_t)i * K + k]) *
                     bf16_host(transposed ? Bt[(size_t)j * K + k] : Bt[(size_t)k * N + j]);
            C[(size_t)i * N + j] = (float)s;
        }
}

#endif
