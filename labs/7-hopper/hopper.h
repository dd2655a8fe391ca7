/* hopper.h: the contract between lab 7 and the grader. Read it; do not edit it.
 *
 * Every stage computes, with BF16 inputs, FP32 accumulation and FP32 output,
 *
 *     C = A * Bt^T        A is M x K, Bt is N x K, C is M x N, all row-major
 *
 *     C[i * N + j] = sum over k of A[i * K + k] * Bt[j * K + k]
 *
 * Bt is B (K x N) stored column-major: both operands are "K-major" (K is
 * their contiguous dimension), the layout wgmma reads from shared memory
 * without a transpose. A and Bt hold BF16 numbers (__nv_bfloat16 in
 * <cuda_bf16.h>; here their 16-bit patterns, unsigned short, so that this
 * header stays plain C). M, N >= 1 and K >= 8 a multiple of 8: every row of A
 * and Bt is then a whole number of 16-byte chunks, which TMA and cp.async
 * need. C is written, never read.
 *
 * The grader owns the buffers (device memory, 256-byte aligned) and the
 * stream; a stage launches its kernels on the stream and returns LAB_OK,
 * without allocating, synchronising, timing or printing, and without cuBLAS
 * (the grader measures cuBLAS as the ceiling). A stage not written yet
 * returns LAB_TODO.
 *
 * TMA needs a tensor map: a 128-byte description of a matrix in global
 * memory, made on the host by the CUDA driver. A lab library may not call
 * the driver, so the grader hands every stage a function that makes one:
 * tensor_map(map, d_matrix, rows, K, box_rows) describes the BF16 matrix
 * d_matrix (rows x K, row-major, K-major) as boxes of 64 (along K) x box_rows
 * (1 to 256) elements, 128-byte swizzle, zeros outside the matrix, into map
 * (128 bytes, 64-byte aligned: a CUtensorMap); 0 on success. Pass the map to
 * your kernel as a `const __grid_constant__ CUtensorMap` parameter. TMA
 * copies bytes, so a map also describes any row-major matrix whose rows are
 * a whole number of 16-byte chunks, seen as 16-bit elements: stage 4 stores
 * C (FP32, N a multiple of 4) through tensor_map(map, (const unsigned short
 * *)d_C, M, 2 * N, box_rows), whose boxes are 32 floats wide.
 *
 * This lab needs compute capability 9.0 (Hopper: H100, H200, GH200) and is
 * built for sm_90a only; on any other GPU the grader grades nothing. */
#ifndef CUDA_LABS_HOPPER_H
#define CUDA_LABS_HOPPER_H

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

/* The grader's tensor-map maker (see above). */
typedef int (*hopper_tensor_map_fn)(void *map, const unsigned short *d_matrix, int rows, int K,
                                    int box_rows);

typedef lab_status (*hopper_fn)(int M, int N, int K, const unsigned short *d_A,
                                const unsigned short *d_Bt, float *d_C,
                                hopper_tensor_map_fn tensor_map, cudaStream_t stream);

/* Stage 0 (given): mma.sync BF16 from shared tiles filled by cp.async. */
lab_status hopper_mma_sync(int M, int N, int K, const unsigned short *d_A,
                           const unsigned short *d_Bt, float *d_C,
                           hopper_tensor_map_fn tensor_map, cudaStream_t stream);
/* Stage 1: TMA loads and wgmma, one warpgroup, 64 x 128 tiles. */
lab_status hopper_tma_wgmma(int M, int N, int K, const unsigned short *d_A,
                            const unsigned short *d_Bt, float *d_C,
                            hopper_tensor_map_fn tensor_map, cudaStream_t stream);
/* Stage 2: the same with 128 x 128 tiles. */
lab_status hopper_large_tile(int M, int N, int K, const unsigned short *d_A,
                             const unsigned short *d_Bt, float *d_C,
                             hopper_tensor_map_fn tensor_map, cudaStream_t stream);
/* Stage 3: a producer warpgroup and two consumers on a ring of mbarriers, 128 x 256 tiles. */
lab_status hopper_warp_specialised(int M, int N, int K, const unsigned short *d_A,
                                   const unsigned short *d_Bt, float *d_C,
                                   hopper_tensor_map_fn tensor_map, cudaStream_t stream);
/* Stage 4: stage 3 in persistent blocks (one per SM), C stored through shared
 * memory and TMA while the next tile's multiplies run. */
lab_status hopper_persistent(int M, int N, int K, const unsigned short *d_A,
                             const unsigned short *d_Bt, float *d_C,
                             hopper_tensor_map_fn tensor_map, cudaStream_t stream);

/* Stage 5 (bonus): lab 4's problem in TF32. C = A * B with A (M x K) and B
 * (K x N) row-major FP32, as in lab 4 (labs/4-gemm/gemm.h, with alpha = 1
 * and beta = 0), on the tensor cores in TF32 and judged with lab 4's TF32
 * tolerance; C is M x N row-major FP32. The sizes are this lab's (K a
 * multiple of 8). The tensor-map maker describes BF16 matrices; TMA copies
 * bytes, so a stage describes an FP32 matrix to it as rows of twice as many
 * 16-bit elements, which needs those rows to be whole 16-byte chunks: for N
 * not a multiple of 4, B has no tensor map, and the stage uses the given
 * FP32 kernel instead. */
typedef lab_status (*hopper_tf32_fn)(int M, int N, int K, const float *d_A, const float *d_B,
                                     float *d_C, hopper_tensor_map_fn tensor_map,
                                     cudaStream_t stream);
lab_status hopper_tf32(int M, int N, int K, const float *d_A, const float *d_B, float *d_C,
                       hopper_tensor_map_fn tensor_map, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
