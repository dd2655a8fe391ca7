/* bench_hopper_tf32.cu: lab 7's bonus stage (hopper_tf32, lab 4's problem
 * in TF32) from the reference solution itself, checked and timed next to
 * cuBLAS in TF32 in one process, at the lab's sizes and 8192^3.
 *
 * The problem: C = A B, A (M x K) and B (K x N) row-major FP32, C (M x N)
 * row-major FP32. cuBLAS (column-major) computes it as C^T = B^T A^T:
 * cublasSgemm(OP_N, OP_N, N, M, K, B ld N, A ld K, C ld N), with TF32
 * tensor-core math for the ceiling and pedantic FP32 for the check.
 *
 * Check, every element: |got - want| <= 4 * 2^-10 * sum_k |a_ik||b_kj|,
 * want the pedantic FP32 product and the sum computed by cuBLAS from |A| and
 * |B|. TF32 keeps 10 mantissa bits, so each product may move by about 2^-10
 * of itself; the bound is loose on purpose (the grader's judgement is lab
 * 4's, far tighter); a wrong column, lane or swizzle is off by the size of
 * the entries. Inputs uniform in [-1, 1) from a fixed generator.
 *
 * Timing: CUDA events around 20 calls after 3 warm-ups (the mean), L2 not
 * flushed, cuBLAS timed the same way at each size.
 *
 *     make build/bench_hopper_tf32 && build/bench_hopper_tf32
 *
 * Exit: 0 every size PASS, 1 a FAIL or a CUDA error, 77 no GPU or not
 * compute capability 9.0 (one line). */
#include "../../solutions/7-hopper/hopper.cu"

#include <cublas_v2.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

typedef CUresult (*encode_fn)(CUtensorMap *, CUtensorMapDataType, cuuint32_t, void *,
                              const cuuint64_t *, const cuuint64_t *, const cuuint32_t *,
                              const cuuint32_t *, CUtensorMapInterleave, CUtensorMapSwizzle,
                              CUtensorMapL2promotion, CUtensorMapFloatOOBfill);
static encode_fn encode;

/* The grader's tensor-map maker (grader/labs/hopper.c), as hopper.h states it. */
static int tensor_map(void *map, const unsigned short *d, int rows, int K, int box_rows)
{
    if (((uintptr_t)map & 63) != 0 || rows < 1 || K < 8 || K % 8 != 0 || box_rows < 1 ||
        box_rows > 256)
        return -1;
    cuuint64_t dims[2] = {(cuuint64_t)K, (cuuint64_t)rows}, strides[1] = {(cuuint64_t)K * 2};
    cuuint32_t box[2] = {64, (cuuint32_t)box_rows}, ones[2] = {1, 1};
    return encode((CUtensorMap *)map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, (void *)d, dims,
                  strides, box, ones, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                  CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                  CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS
               ? 0
               : -1;
}

static float uniform(uint64_t &s)
{
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    return (float)((s >> 40) / 16777216.0) * 2.0f - 1.0f;
}

#define CUDA(x)                                                                                  \
    do {                                                                                         \
        cudaError_t e_ = (x);                                                                    \
        if (e_ != cudaSuccess) {                                                                 \
            printf("CUDA error at line %d: %s\n", __LINE__, cudaGetErrorString(e_));             \
            return 1;                                                                            \
        }                                                                                        \
    } while (0)

int main()
{
    int devices = 0, major = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
        printf("bench_hopper_tf32: no GPU\n");
        return 77;
    }
    cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0);
    if (major != 9) {
        printf("bench_hopper_tf32: needs compute capability 9.0 (sm_90a)\n");
        return 77;
    }
    void *fn = NULL;
    cudaDriverEntryPointQueryResult q;
    if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault,
                                         &q) != cudaSuccess ||
        !fn) {
        printf("bench_hopper_tf32: no cuTensorMapEncodeTiled\n");
        return 1;
    }
    encode = (encode_fn)fn;
    cublasHandle_t blas;
    if (cublasCreate(&blas) != CUBLAS_STATUS_SUCCESS)
        return 1;
    cudaStream_t st;
    cudaEvent_t e0, e1;
    CUDA(cudaStreamCreate(&st));
    CUDA(cudaEventCreate(&e0));
    CUDA(cudaEventCreate(&e1));
    cublasSetStream(blas, st);
    /* The lab's sizes (1000 x 1003 x 520 and 1 x 1 x 8 take the FP32
     * fallback: N is not a multiple of 4), then 8192^3. */
    static const int sizes[][3] = {{1, 1, 8},          {1, 300, 72},      {128, 256, 64},
                                   {200, 300, 136},    {1000, 1003, 520}, {2000, 1000, 4000},
                                   {4096, 4096, 4096}, {8192, 8192, 8192}};
    int fails = 0;
    const float one = 1.0f, zero = 0.0f;
    for (const auto &z : sizes) {
        const int M = z[0], N = z[1], K = z[2];
        const size_t mk = (size_t)M * K, kn = (size_t)K * N, mn = (size_t)M * N;
        std::vector<float> hA(mk), hB(kn), want(mn), scale(mn), got(mn);
        uint64_t s = 0x5eed + (uint64_t)M * 7 + N;
        for (auto &x : hA)
            x = uniform(s);
        for (auto &x : hB)
            x = uniform(s);
        float *A, *B, *C, *absA, *absB, *W, *S;
        CUDA(cudaMalloc(&A, mk * 4));
        CUDA(cudaMalloc(&B, kn * 4));
        CUDA(cudaMalloc(&absA, mk * 4));
        CUDA(cudaMalloc(&absB, kn * 4));
        CUDA(cudaMalloc(&C, mn * 4));
        CUDA(cudaMalloc(&W, mn * 4));
        CUDA(cudaMalloc(&S, mn * 4));
        CUDA(cudaMemcpy(A, hA.data(), mk * 4, cudaMemcpyHostToDevice));
        CUDA(cudaMemcpy(B, hB.data(), kn * 4, cudaMemcpyHostToDevice));
        for (auto &x : hA)
            x = fabsf(x);
        for (auto &x : hB)
            x = fabsf(x);
        CUDA(cudaMemcpy(absA, hA.data(), mk * 4, cudaMemcpyHostToDevice));
        CUDA(cudaMemcpy(absB, hB.data(), kn * 4, cudaMemcpyHostToDevice));
        cublasSetMathMode(blas, CUBLAS_PEDANTIC_MATH);
        cublasSgemm(blas, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &one, B, N, A, K, &zero, W, N);
        cublasSgemm(blas, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &one, absB, N, absA, K, &zero, S, N);
        CUDA(cudaMemcpy(want.data(), W, mn * 4, cudaMemcpyDeviceToHost));
        CUDA(cudaMemcpy(scale.data(), S, mn * 4, cudaMemcpyDeviceToHost));
        cublasSetMathMode(blas, CUBLAS_TF32_TENSOR_OP_MATH);
        auto mean_ms = [&](auto call) {
            for (int i = 0; i < 3; i++)
                call();
            cudaEventRecord(e0, st);
            for (int i = 0; i < 20; i++)
                call();
            cudaEventRecord(e1, st);
            cudaEventSynchronize(e1);
            float ms = 0;
            cudaEventElapsedTime(&ms, e0, e1);
            return ms / 20;
        };
        float t_blas = mean_ms([&] {
            cublasSgemm(blas, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &one, B, N, A, K, &zero, C, N);
        });
        CUDA(cudaMemset(C, 0xFF, mn * 4)); /* NaN: every element must be written */
        if (hopper_tf32(M, N, K, A, B, C, tensor_map, st) != LAB_OK) {
            printf("M %d N %d K %d: hopper_tf32 did not return LAB_OK\n", M, N, K);
            return 1;
        }
        CUDA(cudaStreamSynchronize(st));
        CUDA(cudaMemcpy(got.data(), C, mn * 4, cudaMemcpyDeviceToHost));
        size_t bad = 0, first = 0;
        double worst = 0;
        for (size_t e = 0; e < mn; e++) {
            double err = fabs((double)got[e] - want[e]) / ((double)scale[e] + 1e-30);
            if (!(err <= 4.0 * ldexp(1.0, -10))) {
                if (!bad++)
                    first = e;
                worst = INFINITY;
            } else {
                worst = std::max(worst, err);
            }
        }
        float t = mean_ms([&] { hopper_tf32(M, N, K, A, B, C, tensor_map, st); });
        CUDA(cudaStreamSynchronize(st));
        double tflop = 2.0 * M * N * K / 1e12;
        printf("M %d N %d K %d: cuBLAS TF32 %.1f TFLOP/s, hopper_tf32 %.1f TFLOP/s (%.1f%% of "
               "cuBLAS), largest error %.2e of sum |a||b|: %s",
               M, N, K, tflop / t_blas * 1e3, tflop / t * 1e3, 100.0 * t_blas / t, worst,
               bad ? "FAIL" : "PASS\n");
        if (bad) {
            printf(" (%zu elements, the first C[%zu][%zu] = %g, want %g)\n", bad, first / N,
                   first % N, got[first], want[first]);
            fails++;
        }
        cudaFree(A), cudaFree(B), cudaFree(absA), cudaFree(absB), cudaFree(C), cudaFree(W),
            cudaFree(S);
    }
    cublasDestroy(blas);
    return fails ? 1 : 0;
}
