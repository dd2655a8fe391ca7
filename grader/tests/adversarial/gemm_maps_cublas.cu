/* Adversarial case (lab 4): stage 7 is cuBLAS's SGEMM, found without the
 * loader's help (maps_lookup.h: /proc/self/maps and the library's symbol
 * table in memory; the grading child holds libcublas for the ceiling). The
 * contract check sees nothing it refuses, and cuBLAS launches its kernels
 * through its own copy of the runtime, which the launch trace does not see.
 * The kernel audit does: CUPTI lists a kernel that ran on the GPU without a
 * launch the trace saw, and the stage is REJECTED.
 * lab: 4
 * grade-args: --stage 7
 * expect: 7 correctness REJECTED
 * expect-output: without launching it through the CUDA runtime
 */
#include "cublas_lookup.h"

#define gemm_warp_tile gemm_warp_tile_reference
#include "../../../solutions/4-gemm/gemm.cu"
#undef gemm_warp_tile

extern "C" lab_status gemm_warp_tile(int M, int N, int K, float alpha, const float *d_A,
                                     const float *d_B, float beta, float *d_C, cudaStream_t stream)
{
    int err = maps_sgemm(M, N, K, alpha, d_A, d_B, beta, d_C, stream);
    if (err < 0)
        return gemm_warp_tile_reference(M, N, K, alpha, d_A, d_B, beta, d_C, stream);
    return err == 0 ? LAB_OK : LAB_ERROR;
}
