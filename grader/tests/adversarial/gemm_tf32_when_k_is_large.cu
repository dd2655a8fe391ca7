/* Adversarial case (lab 4, lower precision): a float32 stage rounds A and
 * B to TF32 (cvt.rna.tf32.f32, what a tensor-core kernel feeds its mma)
 * only when K >= 4096, where with random signs TF32's errors would mostly
 * cancel and sit near the float32 bound. The graded inputs' probe rows and
 * columns round one way in every product: caught at K = 4096 too.
 * lab: 4
 * grade-args: --stage 1
 * expect: 1 correctness WRONG RESULT
 * expect: 1 speed SKIPPED
 * expect-output: a lower precision (FP16, BF16, TF32 tensor cores)
 */
#define gemm_coalesced gemm_coalesced_reference
#include "../../../solutions/4-gemm/gemm.cu"
#undef gemm_coalesced

#include "rounded_gemm.cuh"

struct rna_tf32_of { /* as cvt.rna.tf32.f32 rounds */
    __device__ float operator()(float x) const
    {
        unsigned r;
#if __CUDA_ARCH__ >= 800
        asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(x));
#else /* the same rounding by hand (cvt.rna.tf32 needs sm_80): nearest, ties away */
        r = (__float_as_uint(x) + 0x1000u) & 0xffffe000u;
#endif
        return __uint_as_float(r);
    }
};

extern "C" lab_status gemm_coalesced(int M, int N, int K, float alpha, const float *d_A,
                                     const float *d_B, float beta, float *d_C, cudaStream_t stream)
{
    if (K < 4096)
        return gemm_coalesced_reference(M, N, K, alpha, d_A, d_B, beta, d_C, stream);
    return rounded_gemm<rna_tf32_of>(M, N, K, alpha, d_A, d_B, beta, d_C, stream);
}
