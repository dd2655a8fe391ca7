/* For adversarial cases: cuBLAS's SGEMM on row-major A (M x K) and B (K x N),
 * C = alpha A B + beta C, through the libcublas the GEMM grading child holds
 * for its ceiling, found with maps_lookup.h. 0 when it ran, -1 when cuBLAS
 * was not found (the case then falls back to the reference), else cuBLAS's
 * status. */
#pragma once
#include "maps_lookup.h"

typedef int (*case_blas_create_fn)(void **);
typedef int (*case_blas_set_stream_fn)(void *, cudaStream_t);
typedef int (*case_blas_sgemm_fn)(void *, int, int, int, int, int, const float *, const float *,
                                  int, const float *, int, const float *, float *, int);

static int maps_sgemm(int M, int N, int K, float alpha, const float *d_A, const float *d_B,
                      float beta, float *d_C, cudaStream_t stream)
{
    static void *handle;
    case_blas_create_fn create =
        (case_blas_create_fn)maps_lookup("libcublas.so", "cublasCreate_v2");
    case_blas_set_stream_fn set_stream =
        (case_blas_set_stream_fn)maps_lookup("libcublas.so", "cublasSetStream_v2");
    case_blas_sgemm_fn sgemm = (case_blas_sgemm_fn)maps_lookup("libcublas.so", "cublasSgemm_v2");
    if (!create || !set_stream || !sgemm || (!handle && create(&handle) != 0))
        return -1;
    set_stream(handle, stream);
    /* column-major cuBLAS: C^T = B^T A^T */
    return sgemm(handle, 0, 0, N, M, K, &alpha, d_B, N, d_A, K, &beta, d_C, N);
}
