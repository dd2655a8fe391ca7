/* grader/ceilings/hopper.cu: lab 7's ceiling, cuBLAS GEMM with BF16 inputs,
 * FP32 accumulation (CUBLAS_COMPUTE_32F) and FP32 output, built into
 * build/ceilings/lab7.so (linked with cuBLAS; the lab library may not call
 * it). Row-major C = A Bt^T (M x N) is column-major C^T (N x M) = Bt^T A^T:
 * Bt, read column-major, is K x N with leading dimension K, and is
 * transposed (OP_T); A, read column-major, is K x M already (OP_N): cuBLAS's
 * "TN" case, the one its Hopper kernels serve best. */
#include <cublas_v2.h>

/* A handle on the current device; 0 on success. */
extern "C" int ceiling_hopper_create(void **handle)
{
    cublasHandle_t h;
    if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS)
        return -1;
    *handle = h;
    return 0;
}

extern "C" void ceiling_hopper_destroy(void *handle)
{
    if (handle)
        cublasDestroy((cublasHandle_t)handle);
}

extern "C" int ceiling_hopper(void *handle, int M, int N, int K, const unsigned short *d_A,
                              const unsigned short *d_Bt, float *d_C, cudaStream_t stream)
{
    cublasHandle_t h = (cublasHandle_t)handle;
    const float one = 1.0f, zero = 0.0f;
    if (cublasSetStream(h, stream) != CUBLAS_STATUS_SUCCESS)
        return -1;
    return cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, N, M, K, &one, d_Bt, CUDA_R_16BF, K, d_A,
                        CUDA_R_16BF, K, &zero, d_C, CUDA_R_32F, N, CUBLAS_COMPUTE_32F,
                        CUBLAS_GEMM_DEFAULT) == CUBLAS_STATUS_SUCCESS
               ? 0
               : -1;
}

/* Last, after every definition: each function above is checked against its
 * type in ceilings.h (grader/ceilings/gemm.cu says why last). */
#include "ceilings.h"
