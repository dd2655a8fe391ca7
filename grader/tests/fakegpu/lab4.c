/* lab4.c: lab 4's stages (labs/4-gemm/gemm.h) for the fake GPU (cudart.c),
 * done on the host in double. Each stage declares what it would cost on a
 * GPU as a multiple of a copy of C (FAKEGPU_COPY_MS), which is what cuBLAS
 * costs here (gemm_ceiling.c; TF32 half that): cost[stage]. Built as two
 * libraries:
 *   LAB4_GOOD   every stage correct and fast enough;
 *   LAB4_FAULTS stage 1 ignores beta, stage 2 reads C when beta is 0 (NaN
 *               from the grader's poison), stage 7 is faster than its base
 *               but short of its share of cuBLAS. */
#include <stddef.h>

#include "../../../labs/4-gemm/gemm.h"
#include "fakegpu.h"
#include "host_ops.h"

#if defined(LAB4_FAULTS)
static const double cost[] = {20, 8, 6, 4, 2.5, 2.2, 2.0, 1.9, 1.5};
#else
static const double cost[] = {20, 8, 6, 4, 2.5, 2.2, 2.0, 1.4, 1.5};
#endif

static lab_status gemm(int stage, int M, int N, int K, float alpha, const float *A,
                       const float *B, float beta, float *C)
{
#if defined(LAB4_FAULTS)
    gemm_host(M, N, K, alpha, A, B, stage == 1 ? 0.0f : beta, C, stage == 2);
#else
    gemm_host(M, N, K, alpha, A, B, beta, C, 0);
#endif
    fakegpu_spend(cost[stage] * FAKEGPU_COPY_MS(4.0 * M * N));
    return LAB_OK;
}

#define STAGE(k, name)                                                                          \
    lab_status name(int M, int N, int K, float alpha, const float *d_A, const float *d_B,       \
                    float beta, float *d_C, cudaStream_t s)                                     \
    {                                                                                           \
        (void)s;                                                                                \
        return gemm(k, M, N, K, alpha, d_A, d_B, beta, d_C);                                    \
    }
STAGE(0, gemm_naive)
STAGE(1, gemm_coalesced)
STAGE(2, gemm_shared)
STAGE(3, gemm_tile_1d)
STAGE(4, gemm_tile_2d)
STAGE(5, gemm_vectorized)
STAGE(6, gemm_double_buffer)
STAGE(7, gemm_warp_tile)
STAGE(8, gemm_tensor_core)
