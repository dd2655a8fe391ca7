/* Adversarial case (lab 6, lower precision): stage 4 computes in packed FP16
 * on the CUDA cores (__hfma2, HFMA2: two products an instruction) on layers
 * deeper than 8192 (C R S), the deep layer it is timed on, and in FP32
 * elsewhere. Each thread makes two output channels: it rounds the input and
 * the filter to FP16 and adds runs of two products in FP16, then the runs in
 * FP32. On the deep layer (C R S = 18,432) the FP32 bound grows faster with
 * the depth than that error does: in a CPU simulation of this arithmetic
 * the worst of 25,088 outputs reached 0.45 of the bound, so the outputs pass
 * their check and only the machine code tells. No stage of lab 6 may hold
 * packed FP16 or BF16 arithmetic: rejected after the correctness test, from
 * the code of the kernels the stage launched.
 * lab: 6
 * grade-args: --stage 4
 * expect: 4 correctness REJECTED
 * expect: 4 speed SKIPPED
 * expect-output: holds HFMA2
 * expect-output: packed FP16 or BF16 arithmetic
 */
#include <cuda_fp16.h>

#define conv_nhwc conv_nhwc_reference
#include "../../../solutions/6-conv/conv.cu"
#undef conv_nhwc

/* One thread per pixel and pair of output channels (k, k + 1); K even. */
__global__ void conv_half2(conv_shape l, int P, int Q, const float *x, const float *w, float *y)
{
    const int pairs = l.K / 2;
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= (long long)l.N * pairs * P * Q)
        return;
    const int q = (int)(i % Q), p = (int)(i / Q % P), k = 2 * (int)(i / ((long long)P * Q) % pairs);
    const int n = (int)(i / ((long long)P * Q * pairs));
    const int crs = l.C * l.R * l.S;
    const float *w0 = w + (size_t)k * crs, *w1 = w0 + crs;
    float2 acc = make_float2(0.f, 0.f);
    __half2 run = __float2half2_rn(0.f);
    int in_run = 0;
    for (int c = 0; c < l.C; c++)
        for (int r = 0; r < l.R; r++) {
            const int h = p * l.stride - l.pad + r;
            for (int s = 0; s < l.S; s++) {
                const int wc = q * l.stride - l.pad + s;
                const float v = h >= 0 && h < l.H && wc >= 0 && wc < l.W
                                    ? x[(((size_t)n * l.C + c) * l.H + h) * l.W + wc]
                                    : 0.f;
                const int e = (c * l.R + r) * l.S + s;
                run = __hfma2(__float2half2_rn(v), __floats2half2_rn(w0[e], w1[e]), run);
                if (++in_run == 2) {
                    const float2 f = __half22float2(run);
                    acc.x += f.x;
                    acc.y += f.y;
                    run = __float2half2_rn(0.f);
                    in_run = 0;
                }
            }
        }
    const float2 f = __half22float2(run);
    y[(((size_t)n * l.K + k) * P + p) * Q + q] = acc.x + f.x;
    y[(((size_t)n * l.K + k + 1) * P + p) * Q + q] = acc.y + f.y;
}

extern "C" lab_status conv_nhwc(conv_shape l, const float *d_in, const float *d_filter,
                                float *d_out, void *d_work, cudaStream_t stream)
{
    if ((long)l.C * l.R * l.S <= 8192 || l.K % 2 != 0)
        return conv_nhwc_reference(l, d_in, d_filter, d_out, d_work, stream);
    const long long threads = (long long)l.N * (l.K / 2) * conv_p(l) * conv_q(l);
    const unsigned blocks = (unsigned)((threads + 255) / 256);
    conv_half2<<<blocks, 256, 0, stream>>>(l, conv_p(l), conv_q(l), d_in, d_filter, d_out);
    return LAB_OK;
}
