/* bench_gemm.cu: lab 4's reference stages 4 to 8 at 2048^3, 4096^3 (the
 * graded size) and 8192^3, next to cuBLAS in float32 and in TF32, in one
 * process. Every stage's result is checked against cuBLAS's float32 one on a
 * sample of elements recomputed in double on the CPU (a full double-precision
 * reference of 8192^3 would take minutes). Mean of reps calls after one
 * untimed call; TFLOP/s count 2 M N K. Stage 8 is timed twice: as the H200
 * runs it (three tiles in flight) and as GPUs with less shared memory per
 * block run it (two).
 * make bench (GPU needed); build/bench_gemm [reps]. */
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cublas_v2.h>

#include "../../solutions/4-gemm/gemm.cu"

#include "bench_timing.cuh"

/* Stage 8 with two tiles in flight, as on an RTX 30 or 40 series GPU. */
static lab_status tensor_core_two_tiles(int M, int N, int K, float alpha, const float *d_A,
                                        const float *d_B, float beta, float *d_C,
                                        cudaStream_t stream)
{
    static bool ready;
    if (!ready && !(ready = tensor_core_setup<2>()))
        return LAB_ERROR;
    bool aligned = K % 4 == 0 && N % 4 == 0 && ((size_t)d_A | (size_t)d_B) % 16 == 0;
    tensor_core_launch<2>(aligned, M, N, K, alpha, d_A, d_B, beta, d_C, stream);
    return LAB_OK;
}

/* ---- A candidate for stage 8, timed next to it (not yet run on a GPU) -----
 * The reference's kernel, aligned path only (the sizes here are multiples of
 * 128), with A's fragments loaded by ldmatrix instead of 4 scalar loads each.
 * ldmatrix.x4 reads four 8 x 8 matrices of 16-bit elements, rows given by
 * lanes 8i to 8i + 7 for matrix i, and hands lane (g, t) the 32-bit word t of
 * row g of each. Seen as 32-bit elements, an 8 x 8 b16 matrix is 8 rows of 4
 * TF32 values, so lane (g, t) gets A[g][t] of each 8 x 4 block: with the
 * blocks (rows 0-7, cols 0-3), (8-15, 0-3), (0-7, 4-7), (8-15, 4-7) that is
 * exactly the fragment a0..a3. One instruction instead of 4 per fragment;
 * rows are 144 bytes apart, so the 8 rows of a matrix hit 8 different groups
 * of 4 banks. B's fragment needs its 4 values from 4 different rows, which
 * ldmatrix (without .trans, which works on 16-bit elements) cannot do. */
__global__ void __launch_bounds__(THREADS8, 2)
    ldmatrix_candidate_kernel(int M, int N, int K, float alpha, const float *__restrict__ A,
                              const float *__restrict__ B, float beta, float *__restrict__ C)
{
#ifdef HAS_TF32_MMA
    constexpr int STAGES = 3;
    extern __shared__ __align__(16) float smem_c[];
    float *As = smem_c, *Bs = smem_c + STAGES * BM * LDA8;
    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    const int g = lane / 4, t = lane % 4;
    const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    const int wrow = (warp / (BN / WT8)) * WT8, wcol = (warp % (BN / WT8)) * WT8;
    /* The row and column (within a 16 x 8 slice) whose address this lane gives ldmatrix. */
    const int lm_row = lane % 8 + ((lane / 8) % 2) * 8, lm_col = (lane / 16) * 4;
    float acc[WT8 / 16][WT8 / 8][4] = {};
    const int steps = (K + BK8 - 1) / BK8;

    auto load_tiles = [&](int step) {
        if (step < steps) {
            int k0 = step * BK8;
            float *as = As + (step % STAGES) * BM * LDA8, *bs = Bs + (step % STAGES) * BK8 * LDB8;
#pragma unroll
            for (int e = tid; e < BM * BK8 / 4; e += THREADS8) {
                int r = e / (BK8 / 4), c = (e % (BK8 / 4)) * 4;
                bool in = row0 + r < M && k0 + c < K;
                copy16_async(&as[r * LDA8 + c], in ? A + (size_t)(row0 + r) * K + k0 + c : A,
                             in ? 16 : 0);
            }
#pragma unroll
            for (int e = tid; e < BK8 * BN / 4; e += THREADS8) {
                int r = e / (BN / 4), c = (e % (BN / 4)) * 4;
                bool in = k0 + r < K && col0 + c < N;
                copy16_async(&bs[r * LDB8 + c], in ? B + (size_t)(k0 + r) * N + col0 + c : B,
                             in ? 16 : 0);
            }
        }
        asm volatile("cp.async.commit_group;\n" ::);
    };

    for (int s = 0; s < STAGES - 1; s++)
        load_tiles(s);
    for (int step = 0; step < steps; step++) {
        asm volatile("cp.async.wait_group %0;\n" ::"n"(STAGES - 2));
        __syncthreads();
        load_tiles(step + STAGES - 1);
        const float *as = As + (step % STAGES) * BM * LDA8;
        const float *bs = Bs + (step % STAGES) * BK8 * LDB8;
#pragma unroll
        for (int kk = 0; kk < BK8; kk += 8) {
            unsigned a[WT8 / 16][4], b[WT8 / 8][2];
#pragma unroll
            for (int m = 0; m < WT8 / 16; m++) {
                unsigned addr = (unsigned)__cvta_generic_to_shared(
                    &as[(wrow + m * 16 + lm_row) * LDA8 + kk + lm_col]);
                asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                             : "=r"(a[m][0]), "=r"(a[m][1]), "=r"(a[m][2]), "=r"(a[m][3])
                             : "r"(addr));
#pragma unroll
                for (int i = 0; i < 4; i++)
                    a[m][i] += 0x1000u; /* rounded to TF32, as to_tf32 does */
            }
#pragma unroll
            for (int n = 0; n < WT8 / 8; n++) {
                const float *p = &bs[(kk + t) * LDB8 + wcol + n * 8 + g];
                b[n][0] = to_tf32(p[0]);
                b[n][1] = to_tf32(p[4 * LDB8]);
            }
#pragma unroll
            for (int m = 0; m < WT8 / 16; m++)
#pragma unroll
                for (int n = 0; n < WT8 / 8; n++)
                    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 "
                                 "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
                                 : "+f"(acc[m][n][0]), "+f"(acc[m][n][1]), "+f"(acc[m][n][2]),
                                   "+f"(acc[m][n][3])
                                 : "r"(a[m][0]), "r"(a[m][1]), "r"(a[m][2]), "r"(a[m][3]),
                                   "r"(b[n][0]), "r"(b[n][1]));
        }
    }
#pragma unroll
    for (int m = 0; m < WT8 / 16; m++)
#pragma unroll
        for (int n = 0; n < WT8 / 8; n++)
#pragma unroll
            for (int h = 0; h < 2; h++) {
                int i = row0 + wrow + m * 16 + g + h * 8, j = col0 + wcol + n * 8 + 2 * t;
                if (i < M && j < N)
                    write_c(C, (size_t)i * N + j, acc[m][n][2 * h], alpha, beta);
                if (i < M && j + 1 < N)
                    write_c(C, (size_t)i * N + j + 1, acc[m][n][2 * h + 1], alpha, beta);
            }
#else
    (void)M, (void)N, (void)K, (void)alpha, (void)A, (void)B, (void)beta, (void)C;
#endif
}

static lab_status ldmatrix_candidate(int M, int N, int K, float alpha, const float *d_A,
                                     const float *d_B, float beta, float *d_C, cudaStream_t stream)
{
    static bool ready;
    if (!ready) {
        if (cudaFuncSetAttribute(ldmatrix_candidate_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                 3 * TILES8) != cudaSuccess)
            return LAB_ERROR;
        ready = true;
    }
    if (K % 4 || N % 4 || ((size_t)d_A | (size_t)d_B) % 16) /* the aligned path only */
        return LAB_ERROR;
    dim3 grid(blocks_for(N, BN), blocks_for(M, BM));
    ldmatrix_candidate_kernel<<<grid, THREADS8, 3 * TILES8, stream>>>(M, N, K, alpha, d_A, d_B,
                                                                     beta, d_C);
    return LAB_OK;
}

static const struct {
    const char *name;
    gemm_fn fn;
    int tf32;
} stages[] = {
    {"4 2D register blocking", gemm_tile_2d, 0},   {"5 vectorised", gemm_vectorized, 0},
    {"6 double buffering", gemm_double_buffer, 0}, {"7 warp tiling", gemm_warp_tile, 0},
    {"8 tensor cores (TF32)", gemm_tensor_core, 1},
    {"8 the same, two tiles in flight", tensor_core_two_tiles, 1},
    {"8' ldmatrix for A (candidate)", ldmatrix_candidate, 1},
};

int main(int argc, char **argv)
{
    int reps = argc > 1 ? atoi(argv[1]) : 10;
    cublasHandle_t h;
    if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) {
        printf("no cuBLAS\n");
        return 1;
    }
    int failures = 0;
    for (int size : {2048, 4096, 8192}) {
        int M = size, N = size, K = size;
        size_t mn = (size_t)M * N;
        std::vector<float> hA(mn), hB(mn), got(mn);
        srand(size);
        for (size_t i = 0; i < mn; i++) {
            hA[i] = 2.0f * rand() / (float)RAND_MAX - 1.0f;
            hB[i] = 2.0f * rand() / (float)RAND_MAX - 1.0f;
        }
        float *A, *B, *C;
        cudaMalloc(&A, mn * 4);
        cudaMalloc(&B, mn * 4);
        cudaMalloc(&C, mn * 4);
        cudaMemcpy(A, hA.data(), mn * 4, cudaMemcpyHostToDevice);
        cudaMemcpy(B, hB.data(), mn * 4, cudaMemcpyHostToDevice);
        const float one = 1.0f, zero = 0.0f;
        double tflop = 2.0 * M * N * (double)K / 1e12, blas[2];
        for (int t = 0; t < 2; t++) {
            cublasSetMathMode(h, t ? CUBLAS_TF32_TENSOR_OP_MATH : CUBLAS_DEFAULT_MATH);
            float ms = time_ms([&] { cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &one, B, N, A, K, &zero, C, N); }, reps);
            blas[t] = tflop / (ms * 1e-3);
        }
        printf("\n%d^3: cuBLAS %.1f TFLOP/s in float32, %.1f in TF32\n", size, blas[0], blas[1]);
        /* A sample of C: 4096 elements, checked against double precision. */
        std::vector<int> rows(4096), cols(4096);
        for (int s = 0; s < 4096; s++)
            rows[s] = rand() % M, cols[s] = rand() % N;
        for (auto &st : stages) {
            cudaMemset(C, 0xff, mn * 4);
            lab_status ls = st.fn(M, N, K, 1.0f, A, B, 0.0f, C, 0);
            cudaError_t err = cudaDeviceSynchronize();
            if (ls != LAB_OK || err != cudaSuccess) {
                printf("  %-44s status %d, %s\n", st.name, (int)ls, cudaGetErrorString(err));
                failures++;
                continue;
            }
            cudaMemcpy(got.data(), C, mn * 4, cudaMemcpyDeviceToHost);
            double worst = 0;
            for (int s = 0; s < 4096; s++) {
                int i = rows[s], j = cols[s];
                double exact = 0, scale = 0;
                for (int k = 0; k < K; k++) {
                    double p = (double)hA[(size_t)i * K + k] * hB[(size_t)k * N + j];
                    exact += p;
                    scale += fabs(p);
                }
                double e = fabs(got[(size_t)i * N + j] - exact) / scale; /* relative to sum |a b| */
                if (!(e <= worst))
                    worst = e;
            }
            bool ok = worst < (st.tf32 ? 2e-3 : 1e-4);
            failures += !ok;
            float ms = time_ms([&] { st.fn(M, N, K, 1.0f, A, B, 0.0f, C, 0); }, reps);
            double tf = tflop / (ms * 1e-3);
            printf("  %-44s %7.2f TFLOP/s  %5.1f%% of cuBLAS %s  (worst sampled error %.1e of sum |a b|)%s\n",
                   st.name, tf, 100 * tf / blas[st.tf32], st.tf32 ? "TF32   " : "float32", worst,
                   ok ? "" : "  WRONG");
        }
        cudaFree(A);
        cudaFree(B);
        cudaFree(C);
    }
    cudaError_t e = cudaDeviceSynchronize();
    printf("\n%s, %d failures\n", cudaGetErrorString(e), failures);
    return e != cudaSuccess || failures;
}
