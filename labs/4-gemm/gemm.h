/* gemm.h: the contract between lab 4 and the grader. Read it; do not edit it.
 *
 * Every stage computes, in float32, with row-major matrices,
 *
 *     C = alpha * A * B + beta * C      A is M x K, B is K x N, C is M x N
 *
 *     C[i * N + j] = alpha * (sum over k of A[i * K + k] * B[k * N + j]) + beta * C[i * N + j]
 *
 * for any M, N, K >= 1. As in BLAS, when beta == 0 the old C is not read at
 * all (it may hold NaN: 0 * NaN is NaN). The grader owns the buffers (device
 * memory, 256-byte aligned) and the stream; a stage launches its kernels on
 * the stream and returns LAB_OK, without allocating, synchronising, timing
 * or printing, and without cuBLAS (the grader measures cuBLAS as the
 * ceiling). A stage not written yet returns LAB_TODO. */
#ifndef CUDA_LABS_GEMM_H
#define CUDA_LABS_GEMM_H

#include <stddef.h>
#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef CUDA_LABS_LAB_STATUS
#define CUDA_LABS_LAB_STATUS
typedef enum lab_status {
    LAB_OK = 0,   /* kernels launched */
    LAB_TODO = 1, /* this stage is not written yet */
    LAB_ERROR = 2 /* the stage found a problem it could not handle */
} lab_status;
#endif

typedef lab_status (*gemm_fn)(int M, int N, int K, float alpha, const float *d_A,
                              const float *d_B, float beta, float *d_C, cudaStream_t stream);

/* Stage 0 (given): one thread per element of C, consecutive threads walking down M. */
lab_status gemm_naive(int M, int N, int K, float alpha, const float *d_A, const float *d_B,
                      float beta, float *d_C, cudaStream_t stream);
/* Stage 1: one thread per element, consecutive threads walking along N. */
lab_status gemm_coalesced(int M, int N, int K, float alpha, const float *d_A, const float *d_B,
                          float beta, float *d_C, cudaStream_t stream);
/* Stage 2: tiles of A and B through shared memory. */
lab_status gemm_shared(int M, int N, int K, float alpha, const float *d_A, const float *d_B,
                       float beta, float *d_C, cudaStream_t stream);
/* Stage 3: each thread computes a column of several elements. */
lab_status gemm_tile_1d(int M, int N, int K, float alpha, const float *d_A, const float *d_B,
                        float beta, float *d_C, cudaStream_t stream);
/* Stage 4: each thread computes an rm x rn block from registers. */
lab_status gemm_tile_2d(int M, int N, int K, float alpha, const float *d_A, const float *d_B,
                        float beta, float *d_C, cudaStream_t stream);
/* Stage 5: 16-byte loads, A's tile stored transposed, 16-byte shared loads. */
lab_status gemm_vectorized(int M, int N, int K, float alpha, const float *d_A, const float *d_B,
                           float beta, float *d_C, cudaStream_t stream);
/* Stage 6: the next tiles loaded while the current ones are used. */
lab_status gemm_double_buffer(int M, int N, int K, float alpha, const float *d_A,
                              const float *d_B, float beta, float *d_C, cudaStream_t stream);
/* Stage 7: each warp owns a sub-tile of the block's tile. */
lab_status gemm_warp_tile(int M, int N, int K, float alpha, const float *d_A, const float *d_B,
                          float beta, float *d_C, cudaStream_t stream);
/* Stage 8 (bonus): tensor cores in TF32 (compute capability 8.0+), looser tolerance. */
lab_status gemm_tensor_core(int M, int N, int K, float alpha, const float *d_A, const float *d_B,
                            float beta, float *d_C, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
