/* grader/ceilings/gemm.cu: lab 4's ceilings, cuBLAS SGEMM in float32 and
 * with TF32 tensor cores, built into build/ceilings/lab4.so (linked with
 * cuBLAS; the lab library may not call it). Row-major C = alpha A B + beta C
 * is column-major C^T = alpha B^T A^T + beta C^T: cuBLAS is called with the
 * operands swapped and no transposes. */
#include <cublas_v2.h>

/* A handle on the current device; 0 on success. */
extern "C" int ceiling_gemm_create(void **handle)
{
    cublasHandle_t h;
    if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS)
        return -1;
    *handle = h;
    return 0;
}

extern "C" void ceiling_gemm_destroy(void *handle)
{
    if (handle)
        cublasDestroy((cublasHandle_t)handle);
}

/* tf32: 0 for float32 arithmetic (no tensor cores), 1 for TF32 tensor cores. */
extern "C" int ceiling_gemm(void *handle, int tf32, int M, int N, int K, float alpha,
                            const float *d_A, const float *d_B, float beta, float *d_C,
                            cudaStream_t stream)
{
    cublasHandle_t h = (cublasHandle_t)handle;
    if (cublasSetStream(h, stream) != CUBLAS_STATUS_SUCCESS ||
        cublasSetMathMode(h, tf32 ? CUBLAS_TF32_TENSOR_OP_MATH : CUBLAS_DEFAULT_MATH) !=
            CUBLAS_STATUS_SUCCESS)
        return -1;
    return cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &alpha, d_B, N, d_A, K, &beta, d_C,
                       N) == CUBLAS_STATUS_SUCCESS
               ? 0
               : -1;
}

/* Last, after every definition: each function above is checked against its
 * type in ceilings.h (a conflicting redeclaration does not compile). At the
 * top of lab 3's file it changed the code nvcc made (the library grew by
 * 94 KB) and CUB's scan and select ran 18% and 30% slower on the H200, which
 * made the solution IMPOSSIBLE against them; here it changes nothing. */
#include "ceilings.h"
