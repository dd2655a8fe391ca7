/* Adversarial case (lab 4): stage 7 hands the work to cuBLAS (the library is
 * linked with -lcublas, see the Makefile). The grader owns cuBLAS as the
 * ceiling: the library is rejected before any of it runs.
 * lab: 4
 * needs-gpu: no
 * expect-exit: 1
 * expect-output: REJECTED: it calls cublas
 */
#include <cublas_v2.h>

#define gemm_warp_tile gemm_warp_tile_reference
#include "../../../solutions/4-gemm/gemm.cu"
#undef gemm_warp_tile

extern "C" lab_status gemm_warp_tile(int M, int N, int K, float alpha, const float *d_A,
                                     const float *d_B, float beta, float *d_C, cudaStream_t stream)
{
    static cublasHandle_t h;
    if (!h && cublasCreate(&h) != CUBLAS_STATUS_SUCCESS)
        return LAB_ERROR;
    cublasSetStream(h, stream);
    return cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &alpha, d_B, N, d_A, K, &beta, d_C,
                       N) == CUBLAS_STATUS_SUCCESS
               ? LAB_OK
               : LAB_ERROR;
}
