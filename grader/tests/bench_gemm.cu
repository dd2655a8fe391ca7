/* bench_gemm.cu: lab 4's reference stages 4 to 8 at 2048^3, 4096^3 (the
 * graded size) and 8192^3, next to cuBLAS in float32 and in TF32, in one
 * process. Every stage's result is checked against cuBLAS's float32 one on a
 * sample of elements recomputed in double on the CPU (a full double-precision
 * reference of 8192^3 would take minutes). Mean of reps calls after one
 * untimed call; TFLOP/s count 2 M N K. Stage 8 is timed twice: as the H200
 * runs it (three tiles in flight) and as GPUs with less shared memory per
 * block run it (two).
 * make bench (GPU needed); build/bench_gemm [reps] [size] [stage]: one size
 * only (0: all three), the stages whose name starts with that digit only.
 * build/bench_gemm_cvt and build/bench_gemm_chop are the same program with
 * stage 8 rounding its inputs to TF32 by cvt.rna.tf32.f32, or chopping them,
 * instead of the reference's integer add (the handout's "Rounding cheaply"). */
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

static const struct {
    const char *name;
    gemm_fn fn;
    int tf32;
} stages[] = {
    {"4 2D register blocking", gemm_tile_2d, 0},   {"5 vectorised", gemm_vectorized, 0},
    {"6 double buffering", gemm_double_buffer, 0}, {"7 warp tiling", gemm_warp_tile, 0},
    {"8 tensor cores (TF32)", gemm_tensor_core, 1},
    {"8 the same, two tiles in flight", tensor_core_two_tiles, 1},
};

int main(int argc, char **argv)
{
    if (bench_no_gpu("bench_gemm"))
        return 77;
    int reps = argc > 1 ? atoi(argv[1]) : 10, only_size = argc > 2 ? atoi(argv[2]) : 0;
    const char *only_stage = argc > 3 ? argv[3] : "";
    cublasHandle_t h;
    if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) {
        printf("no cuBLAS\n");
        return 1;
    }
    int failures = 0;
    for (int size : {2048, 4096, 8192}) {
        if (only_size && size != only_size)
            continue;
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
            if (st.name[0] != only_stage[0] && only_stage[0])
                continue;
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
