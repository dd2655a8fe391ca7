/* Adversarial case (lab 4): stage 7 is cuBLAS's SGEMM, found through
 * /proc/self/maps as in gemm_maps_cublas, with CUPTI's kernel recording
 * switched off around it (cupti_switch.h) so that the kernel audit lists
 * nothing it did not expect, and switched on again before the stage returns.
 * The audit's marker kernels still show, but between them the GPU was busy
 * for as long as the SGEMM ran with nothing recorded: at 4096 x 4096 x 4096
 * that dark time is far above what a stalled host leaves, in every audited
 * call, and the stage is REJECTED.
 * lab: 4
 * grade-args: --stage 7
 * expect: 7 correctness REJECTED
 * expect-output: audited calls
 */
#include "cublas_lookup.h"
#include "cupti_switch.h"

#define gemm_warp_tile gemm_warp_tile_reference
#include "../../../solutions/4-gemm/gemm.cu"
#undef gemm_warp_tile

extern "C" lab_status gemm_warp_tile(int M, int N, int K, float alpha, const float *d_A,
                                     const float *d_B, float beta, float *d_C, cudaStream_t stream)
{
    cupti_kernels(0);
    int err = maps_sgemm(M, N, K, alpha, d_A, d_B, beta, d_C, stream);
    cupti_kernels(1);
    if (err < 0)
        return gemm_warp_tile_reference(M, N, K, alpha, d_A, d_B, beta, d_C, stream);
    return err == 0 ? LAB_OK : LAB_ERROR;
}
