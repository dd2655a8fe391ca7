/* Adversarial case (lab 6, lower precision): the tiled stage rounds the
 * input and the filter to TF32 (cvt.rna.tf32.f32) in a direct convolution.
 * The float32 bound, (4 sqrt(C R S) + 8) 2^-24 of each output's scale, is
 * far below TF32's rounding (2^-11 per input) on the small layers: caught,
 * with the likely cause.
 * lab: 6
 * grade-args: --stage 1
 * expect: 1 correctness WRONG RESULT
 * expect: 1 speed SKIPPED
 * expect-output: rounded to a lower precision
 */
#define conv_direct_tiled conv_direct_tiled_reference
#include "../../../solutions/6-conv/conv.cu"
#undef conv_direct_tiled

__device__ __forceinline__ float rna_tf32(float x)
{
    unsigned r;
#if __CUDA_ARCH__ >= 800
    asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(x));
#else /* the same rounding by hand (cvt.rna.tf32 needs sm_80): nearest, ties away */
    r = (__float_as_uint(x) + 0x1000u) & 0xffffe000u;
#endif
    return __uint_as_float(r);
}

__global__ void tf32_direct(conv_shape l, int P, int Q, const float *__restrict__ in,
                            const float *__restrict__ f, float *__restrict__ out)
{
    size_t e = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= (size_t)l.N * l.K * P * Q)
        return;
    int q = (int)(e % Q), p = (int)(e / Q % P), k = (int)(e / ((size_t)P * Q) % l.K);
    int n = (int)(e / ((size_t)P * Q * l.K));
    float acc = 0.0f;
    for (int c = 0; c < l.C; c++)
        for (int r = 0; r < l.R; r++)
            for (int s = 0; s < l.S; s++) {
                int h = p * l.stride - l.pad + r, w = q * l.stride - l.pad + s;
                if (h < 0 || h >= l.H || w < 0 || w >= l.W)
                    continue;
                acc = fmaf(rna_tf32(in[(((size_t)n * l.C + c) * l.H + h) * l.W + w]),
                           rna_tf32(f[(((size_t)k * l.C + c) * l.R + r) * l.S + s]), acc);
            }
    out[e] = acc;
}

extern "C" lab_status conv_direct_tiled(conv_shape l, const float *d_in, const float *d_filter,
                                        float *d_out, void *d_work, cudaStream_t stream)
{
    (void)d_work;
    int P = (l.H + 2 * l.pad - l.R) / l.stride + 1, Q = (l.W + 2 * l.pad - l.S) / l.stride + 1;
    size_t outs = (size_t)l.N * l.K * P * Q;
    tf32_direct<<<(unsigned)((outs + 255) / 256), 256, 0, stream>>>(l, P, Q, d_in, d_filter, d_out);
    return LAB_OK;
}
