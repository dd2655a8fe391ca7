/* lab7.c: lab 7's stages (labs/7-hopper/hopper.h) for the fake GPU
 * (cudart.c), done on the host in double from the BF16 inputs. Each stage
 * makes the tensor maps a TMA stage would, and declares what it would cost
 * on a GPU as a multiple of a copy of C (FAKEGPU_COPY_MS), which is what
 * cuBLAS costs here (hopper_ceiling.c): cost[stage]. Built as two libraries:
 *   LAB7_GOOD   every stage correct and fast enough;
 *   LAB7_FAULTS stage 1 reads Bt as B (K x N, row-major), stage 3 is faster
 *               than its base but short of its share of cuBLAS.
 * Stage 4 also makes C's tensor map as the reference does (C as 2N 16-bit
 * elements a row, when N is a multiple of 4). Stage 5 (lab 4's problem in
 * FP32) makes the maps of FP32 A and B as 16-bit elements, when N is a
 * multiple of 4, and computes in double; in LAB7_FAULTS it costs 1.6 copies
 * of C against cuBLAS's 1, short of the 70% it needs. */
#include <stdalign.h>
#include <stddef.h>

#include "../../../labs/7-hopper/hopper.h"
#include "fakegpu.h"
#include "host_ops.h"

#if defined(LAB7_FAULTS)
static const double cost[] = {10, 6, 4.5, 2.0, 1.2, 1.6};
#else
static const double cost[] = {10, 6, 4.5, 1.5, 1.2, 1.2};
#endif

static lab_status stage(int k, int M, int N, int K, const unsigned short *A,
                        const unsigned short *Bt, float *C, hopper_tensor_map_fn tensor_map)
{
    alignas(64) unsigned char map[3][128];
    if (k > 0 && (tensor_map(map[0], A, M, K, 64) != 0 || tensor_map(map[1], Bt, N, K, 128) != 0))
        return LAB_ERROR;
    if (k == 4 && N % 4 == 0 && tensor_map(map[2], (const unsigned short *)C, M, 2 * N, 64) != 0)
        return LAB_ERROR;
    int transposed = 1;
#if defined(LAB7_FAULTS)
    transposed = k != 1;
#endif
    bf16_gemm_host(M, N, K, A, Bt, C, transposed);
    fakegpu_spend(cost[k] * FAKEGPU_COPY_MS(4.0 * M * N));
    return LAB_OK;
}

#define STAGE(k, name)                                                                        \
    lab_status name(int M, int N, int K, const unsigned short *d_A, const unsigned short *d_Bt, \
                    float *d_C, hopper_tensor_map_fn tensor_map, cudaStream_t s)              \
    {                                                                                         \
        (void)s;                                                                              \
        return stage(k, M, N, K, d_A, d_Bt, d_C, tensor_map);                                 \
    }
STAGE(0, hopper_mma_sync)
STAGE(1, hopper_tma_wgmma)
STAGE(2, hopper_large_tile)
STAGE(3, hopper_warp_specialised)
STAGE(4, hopper_persistent)

lab_status hopper_tf32(int M, int N, int K, const float *d_A, const float *d_B, float *d_C,
                       hopper_tensor_map_fn tensor_map, cudaStream_t s)
{
    (void)s;
    alignas(64) unsigned char map[2][128];
    if (N % 4 == 0 && (tensor_map(map[0], (const unsigned short *)d_A, M, 2 * K, 256) != 0 ||
                       tensor_map(map[1], (const unsigned short *)d_B, K, 2 * N, 32) != 0))
        return LAB_ERROR;
    gemm_host(M, N, K, 1.0f, d_A, d_B, 0.0f, d_C, 0);
    fakegpu_spend(cost[5] * FAKEGPU_COPY_MS(4.0 * M * N));
    return LAB_OK;
}
