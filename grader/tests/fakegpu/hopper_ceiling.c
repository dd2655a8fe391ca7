/* hopper_ceiling.c: lab 7's ceiling (grader/ceilings/hopper.cu, cuBLAS's
 * BF16 GEMM) for the fake GPU (cudart.c): the product in double, at the
 * cost of a copy of C. */
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
