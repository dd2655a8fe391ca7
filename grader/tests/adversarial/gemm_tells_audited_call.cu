/* Adversarial case (lab 4): stage 7 tries to tell the audited call from the
 * timed ones. It runs its own kernel when its stream is idle at entry
 * (cudaStreamQuery succeeds) and cuBLAS's SGEMM, found through
 * /proc/self/maps, when the stream is still busy, as it is in a timed call
 * (the L2 flush before it is still running). An audited call starts CUPTI
 * before that flush, so its stream is busy at the stage's entry too: the
 * stage takes cuBLAS there as well, and the audit names the kernel.
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
    int err = cudaStreamQuery(stream) == cudaSuccess
                  ? -1 /* idle: taken for the audited call */
                  : maps_sgemm(M, N, K, alpha, d_A, d_B, beta, d_C, stream);
    if (err < 0)
        return gemm_warp_tile_reference(M, N, K, alpha, d_A, d_B, beta, d_C, stream);
    return err == 0 ? LAB_OK : LAB_ERROR;
}
