/* Adversarial case (lab 6, lower precision): stage 4 launches a kernel with
 * TF32 tensor-core instructions (mma.sync m16n8k8, HMMA.1684.F32.TF32) on
 * layers deeper than 8192 (C R S), the deep layer it is timed on. There the
 * float32 bound grows faster with the depth than TF32's error, so TF32 (or
 * FP16, with the same mantissa) would pass the check where a stage switched
 * to tensor cores only on deep layers. Here the kernel adds a product of
 * zeros, so that the outputs stay right and only the machine code tells: no
 * stage of lab 6 may hold tensor-core instructions (its ceiling computes in
 * FP32 with TF32 off). Rejected after the correctness test, from the code of
 * the kernels the stage launched.
 * lab: 6
 * grade-args: --stage 4
 * expect: 4 correctness REJECTED
 * expect: 4 speed SKIPPED
 * expect-output: holds HMMA
 * expect-output: tensor-core instructions
 */
#define conv_nhwc conv_nhwc_reference
#include "../../../solutions/6-conv/conv.cu"
#undef conv_nhwc

/* One m16n8k8 TF32 product of zeros per warp, added to out[0]: 0. */
__global__ void tf32_touch(float *out)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    unsigned a = 0, b = 0;
    float d0 = 0, d1 = 0, d2 = 0, d3 = 0;
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, "
                 "{%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                 : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3)
                 : "r"(a), "r"(a), "r"(a), "r"(a), "r"(b), "r"(b));
    if (threadIdx.x == 0)
        atomicAdd(out, d0 + d1 + d2 + d3);
#else
    (void)out;
#endif
}

extern "C" lab_status conv_nhwc(conv_shape l, const float *d_in, const float *d_filter,
                                float *d_out, void *d_work, cudaStream_t stream)
{
    lab_status st = conv_nhwc_reference(l, d_in, d_filter, d_out, d_work, stream);
    if (st == LAB_OK && (long)l.C * l.R * l.S > 8192)
        tf32_touch<<<1, 32, 0, stream>>>(d_out);
    return st;
}
