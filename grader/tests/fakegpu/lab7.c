/* lab7.c: lab 7's stages (labs/7-hopper/hopper.h) for the fake GPU
 * (cudart.c), done on the host in double from the BF16 inputs. Each stage
 * makes the tensor maps a TMA stage would, and declares what it would cost
 * on a GPU as a multiple of a copy of C (FAKEGPU_COPY_MS), which is what
 * cuBLAS costs here (hopper_ceiling.c): cost[stage]. Built as two libraries:
 *   LAB7_GOOD   every stage correct and fast enough;
 *   LAB7_FAULTS stage 1 reads Bt as B (K x N, row-major), stage 3 is faster
 *               than its base but short of its share of cuBLAS, stage 5
 *               computes in BF16.
 * Stage 4 also makes C's tensor map as the reference does (C as 2N 16-bit
 * elements a row, when N is a multiple of 4). Stage 5 (lab 4's problem in
 * FP32) makes the maps of FP32 A and B as 16-bit elements, when N is a
 * multiple of 4, and computes in double; in LAB7_FAULTS it first rounds A
 * and B to BF16, a lower precision than the TF32 it is judged by. */
#include <stdalign.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../../labs/7-hopper/hopper.h"
#include "fakegpu.h"
#include "host_ops.h"

#if defined(LAB7_FAULTS)
static const double cost[] = {10, 6, 4.5, 2.0, 1.2, 1.2};
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

#if defined(LAB7_FAULTS)
/* x rounded to BF16, to nearest, ties to even (finite x). */
static float to_bf16(float x)
{
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    u = (u + 0x7FFFu + ((u >> 16) & 1u)) & 0xFFFF0000u;
    memcpy(&x, &u, sizeof x);
    return x;
}
#endif

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
#if defined(LAB7_FAULTS)
    float *a = malloc((size_t)M * K * sizeof *a), *b = malloc((size_t)K * N * sizeof *b);
    if (!a || !b) {
        free(a);
        free(b);
        return LAB_ERROR;
    }
    for (size_t e = 0; e < (size_t)M * K; e++)
        a[e] = to_bf16(d_A[e]);
    for (size_t e = 0; e < (size_t)K * N; e++)
        b[e] = to_bf16(d_B[e]);
    gemm_host(M, N, K, 1.0f, a, b, 0.0f, d_C, 0);
    free(a);
    free(b);
#else
    gemm_host(M, N, K, 1.0f, d_A, d_B, 0.0f, d_C, 0);
#endif
    fakegpu_spend(cost[5] * FAKEGPU_COPY_MS(4.0 * M * N));
    return LAB_OK;
}
