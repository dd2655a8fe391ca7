/* grader/given/hopper_given.cu: lab 7's given stages (hopper_mma_sync), the
 * course's own copy. The grader calls and times these, built into
 * build/ceilings/lab7-given.so, in place of the submission's, so that a
 * submission cannot slow a given stage to make the next one look fast. The
 * lab's header is included by its path, with no -I, so that no other file in
 * the student's folder can stand in for a header. Below, every paragraph is
 * labs/7-hopper/hopper.cu's, word for word and in order (a test holds them
 * equal): change the skeleton, then copy the change here. */
#include "../../labs/7-hopper/hopper.h"

#include <cstdint>

#include <cuda.h> /* CUtensorMap, the type only: a lab library calls no driver function */
#include <cuda_bf16.h>

/* Given: everything up to the TODOs of stage 1. */
typedef __nv_bfloat16 bf16;

/* ---- shared by the kernels --------------------------------------------------------- */

/* A spin on an mbarrier gives up after this many clock cycles (about 4 s at
 * the H200's 1.98 GHz): a wrong byte count or phase then ends as a trap, not
 * as a hang. The check costs one clock read per failed try. */
#define SPIN_LIMIT (1ll << 33)

__device__ __forceinline__ uint32_t smem_addr(const void *p)
{
    return (uint32_t)__cvta_generic_to_shared(p);
}

/* ---- stage 0: mma.sync m16n8k16 BF16 ----------------------------------------------- */

#define S0_BM 128
#define S0_BN 128
#define S0_BK 32
/* Rows of 32 BF16 (64 bytes) padded to 40 (80 bytes): the 8 rows one
 * ldmatrix phase reads then start in 8 different 16-byte bank groups
 * (0, 5, 10, ... mod 8), without padding rows 0, 2, 4, 6 would collide. */
#define S0_LD 40

__device__ __forceinline__ void cp_async16(void *dst, const void *src, int bytes)
{
    /* bytes < 16 fills the rest with zeros; 0 reads nothing. */
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(smem_addr(dst)), "l"(src),
                 "r"(bytes));
}

/* One tile of 128 rows x 32 BF16 (rows of M for A, rows of N for Bt): 512
 * 16-byte chunks, two per thread. Rows past the end and chunks past K are
 * zeros, so they add nothing. */
__device__ __forceinline__ void s0_load_tile(bf16 *s, const bf16 *g, int rows, int K, int row0,
                                             int k0)
{
    for (int c = threadIdx.x; c < S0_BM * S0_BK / 8; c += blockDim.x) {
        int r = c / (S0_BK / 8), kc = (c % (S0_BK / 8)) * 8;
        bool in = row0 + r < rows && k0 + kc < K;
        const bf16 *src = in ? g + (size_t)(row0 + r) * K + k0 + kc : g;
        cp_async16(s + r * S0_LD + kc, src, in ? 16 : 0);
    }
}

__device__ __forceinline__ void ldmatrix_x4(uint32_t *r, const bf16 *p)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(smem_addr(p)));
}

__device__ __forceinline__ void mma_bf16_16816(float *d, const uint32_t *a, const uint32_t *b)
{
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
                 "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

/* 256 threads, 8 warps as 2 (M) x 4 (N), each warp 64 x 32 of C: 4 x 4 mma
 * tiles of 16 x 8, 64 accumulators per thread. */
__global__ void __launch_bounds__(256) s0_mma_sync(int M, int N, int K, const bf16 *A,
                                                   const bf16 *Bt, float *C)
{
    __shared__ __align__(128) bf16 sA[2][S0_BM * S0_LD];
    __shared__ __align__(128) bf16 sB[2][S0_BN * S0_LD];
    int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    int wm = warp / 4, wn = warp % 4;
    int m0 = blockIdx.y * S0_BM, n0 = blockIdx.x * S0_BN;
    float acc[4][4][4] = {};
    int tiles = (K + S0_BK - 1) / S0_BK;

    s0_load_tile(sA[0], A, M, K, m0, 0);
    s0_load_tile(sB[0], Bt, N, K, n0, 0);
    asm volatile("cp.async.commit_group;\n");
    for (int t = 0; t < tiles; t++) {
        int cur = t % 2;
        if (t + 1 < tiles) { /* the next tile flies while this one is used */
            s0_load_tile(sA[cur ^ 1], A, M, K, m0, (t + 1) * S0_BK);
            s0_load_tile(sB[cur ^ 1], Bt, N, K, n0, (t + 1) * S0_BK);
        }
        asm volatile("cp.async.commit_group;\n");
        asm volatile("cp.async.wait_group 1;\n"); /* all but the newest group landed */
        __syncthreads();
        for (int kk = 0; kk < S0_BK; kk += 16) {
            uint32_t a[4][4], b[4][2];
            /* A fragment (16 x 16): lanes 0-15 give rows 0-15 at k, lanes
             * 16-31 the same rows at k + 8. */
            for (int i = 0; i < 4; i++) {
                int r = wm * 64 + i * 16 + lane % 16;
                ldmatrix_x4(a[i], &sA[cur][r * S0_LD + kk + (lane / 16) * 8]);
            }
            /* B fragments: Bt rows are columns n of B, K-major, which is the
             * "col" operand mma wants. One x4 covers two n8 tiles: matrices
             * (n 0-7, k 0-7), (n 0-7, k 8-15), (n 8-15, k 0-7), (n 8-15, k 8-15). */
            for (int j = 0; j < 4; j += 2) {
                uint32_t r[4];
                int n = wn * 32 + j * 8 + (lane / 16) * 8 + lane % 8;
                ldmatrix_x4(r, &sB[cur][n * S0_LD + kk + ((lane / 8) % 2) * 8]);
                b[j][0] = r[0], b[j][1] = r[1], b[j + 1][0] = r[2], b[j + 1][1] = r[3];
            }
            for (int i = 0; i < 4; i++)
                for (int j = 0; j < 4; j++)
                    mma_bf16_16816(acc[i][j], a[i], b[j]);
        }
        __syncthreads(); /* everyone is done with `cur` before it is refilled */
    }
    asm volatile("cp.async.wait_group 0;\n");
    /* Accumulator layout: c0, c1 at (lane/4, 2*(lane%4) + {0,1}), c2, c3 eight rows below. */
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++)
            for (int h = 0; h < 2; h++) {
                int r = m0 + wm * 64 + i * 16 + lane / 4 + h * 8;
                int c = n0 + wn * 32 + j * 8 + (lane % 4) * 2;
                if (r >= M)
                    continue;
                if (c < N)
                    C[(size_t)r * N + c] = acc[i][j][2 * h];
                if (c + 1 < N)
                    C[(size_t)r * N + c + 1] = acc[i][j][2 * h + 1];
            }
}

/* Given: the stages' host side starts here. */

static unsigned blocks_for(int n, int per_block)
{
    return (unsigned)((n + per_block - 1) / per_block);
}

/* One k-tile: 64 BF16 = 128 bytes, one row of the 128-byte swizzle. */
#define TMA_BK 64

extern "C" lab_status hopper_mma_sync(int M, int N, int K, const unsigned short *d_A,
                                      const unsigned short *d_Bt, float *d_C,
                                      hopper_tensor_map_fn tensor_map, cudaStream_t stream)
{
    (void)tensor_map;
    dim3 grid(blocks_for(N, S0_BN), blocks_for(M, S0_BM));
    s0_mma_sync<<<grid, 256, 0, stream>>>(M, N, K, (const bf16 *)d_A, (const bf16 *)d_Bt, d_C);
    return LAB_OK;
}
