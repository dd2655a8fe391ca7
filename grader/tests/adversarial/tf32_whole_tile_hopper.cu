/* Student-like correct variant (lab 7): stage 5 keeps a whole k-tile's
 * register operands in flight (16 registers a thread beside 128
 * accumulators) and waits once per k-tile, where the reference waits for each
 * wgmma before loading the next operand. Inside the 168 registers ptxas gives
 * a thread of a 384-thread block, ptxas serialises its wgmma (C7512,
 * "insufficient register resources") and says so when the library is built.
 * It is correct, and was as fast as the reference in one run on the H200
 * (81.8% of cuBLAS TF32 against 80.3%); the grader passes it and shows
 * ptxas's note under the stage. Built for sm_90a, as lab 7 is.
 * lab: 7
 * grade-args: --stage 5 --quick
 * expect-exit: 0
 * expect: 5 correctness PASS
 * expect-output: note: ptxas serialised the wgmma of tile_tf32 (C7512: due to insufficient register resources)
 */
#define hopper_tf32 hopper_tf32_reference
#include "../../../solutions/7-hopper/hopper.cu"
#undef hopper_tf32

__global__ void __launch_bounds__(384, 1)
    tile_tf32(int M, int N, int K, const __grid_constant__ CUtensorMap mapA,
              const __grid_constant__ CUtensorMap mapB, float *C)
{
    extern __shared__ uint8_t smem_raw[];
    __shared__ __align__(8) uint64_t full[S5_STAGES], empty[S5_STAGES];
    uint8_t *base = align1024(smem_raw);
    int wg = threadIdx.x / 128, t128 = threadIdx.x % 128;
    int m0 = blockIdx.y * S5_BM, n0 = blockIdx.x * S5_BN, tiles = (K + S5_BK - 1) / S5_BK;
    if (threadIdx.x == 0) {
        for (int s = 0; s < S5_STAGES; s++) {
            mbar_init(&full[s], 1);
            mbar_init(&empty[s], 2);
        }
        asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
    }
    __syncthreads();
    if (wg == 0) {
        asm volatile("setmaxnreg.dec.sync.aligned.u32 40;\n");
        for (int t = 0; t128 == 0 && t < tiles; t++) {
            int s = t % S5_STAGES;
            if (t >= S5_STAGES)
                mbar_wait(&empty[s], (t / S5_STAGES - 1) & 1);
            uint8_t *sA = base + s * S5_STAGE_BYTES;
            mbar_arrive_expect_tx(&full[s], S5_STAGE_BYTES);
            tma_load_2d(sA, &mapA, &full[s], 2 * t * S5_BK, m0);
            for (int b = 0; b < S5_BN / 32; b++)
                tma_load_2d(sA + S5_A_BYTES + b * 4096, &mapB, &full[s], 2 * (n0 + 32 * b),
                            t * S5_BK);
        }
        return;
    }
    asm volatile("setmaxnreg.inc.sync.aligned.u32 232;\n");
    int half = wg - 1, warp = t128 / 32, lane = t128 % 32, g = lane / 4, t4 = lane % 4;
    uint32_t off[4];
    int col[2];
    for (int i = 0; i < 2; i++) {
        int G = 2 * warp + i, box = 2 * half + G / 4, chunk = G % 4 + 4 * (g / 4);
        col[i] = 32 * box + 4 * (G % 4) + 16 * (g / 4) + g % 4;
        for (int j = 0; j < 2; j++)
            off[2 * j + i] = box * 1024 + (t4 + 4 * j) * 32 + ((chunk ^ (t4 + 4 * j)) * 4) + g % 4;
    }
    float acc[128];
#pragma unroll
    for (int r = 0; r < 128; r++)
        acc[r] = 0.0f;
    for (int t = 0; t < tiles; t++) {
        int s = t % S5_STAGES;
        const float *sA = (const float *)(base + s * S5_STAGE_BYTES);
        const uint32_t *sB = (const uint32_t *)(base + s * S5_STAGE_BYTES + S5_A_BYTES);
        mbar_wait(&full[s], (t / S5_STAGES) & 1);
        uint32_t f[S5_BK / 8][4]; /* the whole k-tile's operands, loaded first */
#pragma unroll
        for (int kk = 0; kk < S5_BK / 8; kk++)
#pragma unroll
            for (int r = 0; r < 4; r++)
                f[kk][r] = sB[off[r] + kk * 8 * 32];
        wgmma_fence();
#pragma unroll
        for (int kk = 0; kk < S5_BK / 8; kk++)
            wgmma_m64n256k8_tf32(acc, f[kk], sw128_desc(sA + kk * 8));
        wgmma_commit();
        wgmma_wait<0>();
        frag_fence<16>(&f[0][0]);
        if (t128 == 0)
            mbar_arrive(&empty[s]);
    }
    acc_fence<128>(acc);
    for (int i = 0; i < 2; i++)
        for (int j = 0; n0 + col[i] < N && j < S5_BM / 8; j++)
            for (int e = 0; e < 2; e++)
                if (m0 + 8 * j + 2 * t4 + e < M)
                    C[(size_t)(m0 + 8 * j + 2 * t4 + e) * N + n0 + col[i]] = acc[4 * j + 2 * i + e];
}

extern "C" lab_status hopper_tf32(int M, int N, int K, const float *d_A, const float *d_B,
                                  float *d_C, hopper_tensor_map_fn tensor_map,
                                  cudaStream_t stream)
{
    if (N % 4 != 0)
        return tf32_fallback(M, N, K, d_A, d_B, d_C, stream);
    if (cudaFuncSetAttribute(tile_tf32, cudaFuncAttributeMaxDynamicSharedMemorySize,
                             (int)S5_SMEM) != cudaSuccess)
        return LAB_ERROR;
    CUtensorMap mapA, mapB;
    if (tensor_map(&mapA, (const unsigned short *)d_A, M, 2 * K, S5_BM) != 0 ||
        tensor_map(&mapB, (const unsigned short *)d_B, K, 2 * N, S5_BK) != 0)
        return LAB_ERROR;
    dim3 grid(blocks_for(N, S5_BN), blocks_for(M, S5_BM));
    tile_tf32<<<grid, 384, S5_SMEM, stream>>>(M, N, K, mapA, mapB, d_C);
    return LAB_OK;
}
