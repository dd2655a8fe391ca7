/* Adversarial case (lab 4): the stage launches a kernel of its own under
 * the name of the grader's marker kernel (cuda_labs_audit_mark), then
 * switches CUPTI's kernel recording off for good and runs cuBLAS's SGEMM.
 * CUPTI then lists two "markers" (the grader's first and the fake) and
 * neither cuBLAS nor the grader's second marker, so the count of markers
 * alone would pass. The launch trace sees the stage launch a kernel of the
 * marker's name, and the stage is REJECTED (seen on the H200, 2026-12-02).
 * lab: 4
 * grade-args: --stage 7
 * expect: 7 correctness REJECTED
 * expect-output: the name of the grader's own marker kernel
 */
#include "cublas_lookup.h"
#include "cupti_switch.h"

#define gemm_warp_tile gemm_warp_tile_reference
#include "../../../solutions/4-gemm/gemm.cu"
#undef gemm_warp_tile

extern "C" __global__ void cuda_labs_audit_mark(unsigned hold_ns)
{
    (void)hold_ns;
}

extern "C" lab_status gemm_warp_tile(int M, int N, int K, float alpha, const float *d_A,
                                     const float *d_B, float beta, float *d_C, cudaStream_t stream)
{
    cuda_labs_audit_mark<<<1, 1, 0, stream>>>(0);
    cupti_kernels(0);
    int err = maps_sgemm(M, N, K, alpha, d_A, d_B, beta, d_C, stream);
    if (err < 0)
        return gemm_warp_tile_reference(M, N, K, alpha, d_A, d_B, beta, d_C, stream);
    return err == 0 ? LAB_OK : LAB_ERROR;
}
