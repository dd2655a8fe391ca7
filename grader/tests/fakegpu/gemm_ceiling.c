/* gemm_ceiling.c: lab 4's ceiling (grader/ceilings/gemm.cu, cuBLAS SGEMM)
 * for the fake GPU (cudart.c): the product in double, at the cost of a copy
 * of C, half that in TF32. */
#include <stdlib.h>

#include "../../ceilings/ceilings.h"
#include "fakegpu.h"
#include "host_ops.h"

int ceiling_gemm_create(void **handle)
{
    *handle = malloc(1);
    return *handle ? 0 : -1;
}

void ceiling_gemm_destroy(void *handle)
{
    free(handle);
}

int ceiling_gemm(void *handle, int tf32, int M, int N, int K, float alpha, const float *d_A,
                 const float *d_B, float beta, float *d_C, cudaStream_t stream)
{
    (void)handle, (void)stream;
    gemm_host(M, N, K, alpha, d_A, d_B, beta, d_C, 0);
    fakegpu_spend((tf32 ? 0.5 : 1.0) * FAKEGPU_COPY_MS(4.0 * M * N));
    return 0;
}
