/* hopper_ceiling.c: lab 7's ceilings (grader/ceilings/hopper.cu, cuBLAS's
 * BF16 GEMM and, for stage 5, its TF32 SGEMM) for the fake GPU (cudart.c):
 * the product in double, at the cost of a copy of C. */
#include <stdlib.h>

#include "../../ceilings/ceilings.h"
#include "fakegpu.h"
#include "host_ops.h"

int ceiling_hopper_create(void **handle)
{
    *handle = malloc(1);
    return *handle ? 0 : -1;
}

void ceiling_hopper_destroy(void *handle)
{
    free(handle);
}

int ceiling_hopper(void *handle, int M, int N, int K, const unsigned short *d_A,
                   const unsigned short *d_Bt, float *d_C, cudaStream_t stream)
{
    (void)handle, (void)stream;
    bf16_gemm_host(M, N, K, d_A, d_Bt, d_C, 1);
    fakegpu_spend(FAKEGPU_COPY_MS(4.0 * M * N));
    return 0;
}

int ceiling_hopper_tf32(void *handle, int M, int N, int K, const float *d_A, const float *d_B,
                        float *d_C, cudaStream_t stream)
{
    (void)handle, (void)stream;
    gemm_host(M, N, K, 1.0f, d_A, d_B, 0.0f, d_C, 0);
    fakegpu_spend(FAKEGPU_COPY_MS(4.0 * M * N));
    return 0;
}
