/* Adversarial case (lab 4): like gemm_switches_audit_off, but CUPTI's kernel
 * recording is switched off for good before cuBLAS's SGEMM runs, so the
 * audit's second marker kernel, queued after the stage returns, is not
 * recorded either. A marker missing means the recording was tampered with:
 * the stage is REJECTED at its first size (each of its three tries).
 * lab: 4
 * grade-args: --stage 7
 * expect: 7 correctness REJECTED
 * expect-output: marker kernel around the call where the grader launched 2
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
    if (err < 0)
        return gemm_warp_tile_reference(M, N, K, alpha, d_A, d_B, beta, d_C, stream);
    return err == 0 ? LAB_OK : LAB_ERROR;
}
