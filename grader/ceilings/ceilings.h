/* ceilings.h: the functions of the grader's own CUDA libraries, each type
 * written once. grader/ceilings/<name>.cu defines them (extern "C") against
 * these declarations, and the grader, which loads the libraries at run time
 * (ceiling_load), calls them through these types: a changed signature fails
 * to compile on one side or the other instead of crashing a grading child. */
#ifndef CUDA_LABS_CEILINGS_H
#define CUDA_LABS_CEILINGS_H

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* devcheck.so: the grader's checks on the GPU (grader/patch.c). */
#define DEVCHECK_COMPACT_CHUNK 4096 /* elements a chunk of devcheck_compact_* (below) */
typedef int devcheck_scatter_fn(void *buf, const uint64_t *d_idx, const uint32_t *d_val, int p,
                                cudaStream_t s);
typedef int devcheck_verify_fn(const void *now, const void *orig, uint64_t n,
                               const uint64_t *d_idx, const uint32_t *d_val, int p,
                               unsigned long long *res, cudaStream_t s);
typedef int devcheck_compare_fn(const void *now, const void *expect, uint64_t n, uint64_t seg,
                                const uint64_t *opos, const uint32_t *oval, int no,
                                const uint64_t *dpos, const uint32_t *dcum, int nd,
                                unsigned long long *res, cudaStream_t s);
typedef int devcheck_transpose_fn(const void *out, const void *in, uint64_t rows, uint64_t cols,
                                  int copy, unsigned long long *res, cudaStream_t s);
typedef int devcheck_scan_fn(const void *out, const void *in, uint64_t n, uint64_t seg,
                             unsigned long long *res, cudaStream_t s);
typedef int devcheck_within_fn(const float *got, const double *exact, const double *scale,
                               uint64_t rows, uint64_t cols, double t1, double t2,
                               const uint64_t *orow, const double *orow_exact,
                               const double *orow_scale, int nor, const uint64_t *ocol,
                               const double *ocol_exact, const double *ocol_scale, int noc,
                               unsigned long long *res, cudaStream_t s);
/* The grader's marker kernel (grader/runner.c), named DEVCHECK_MARK_NAME:
 * queued on s, it keeps the GPU busy for hold_ns nanoseconds. Before every
 * call of a stage it holds the stream while the host reaches the stage's
 * first launch; around an audited call it marks the window CUPTI must have
 * recorded work for (DEVCHECK_MARK_NAME, unmangled, is what its list is
 * searched for). */
#define DEVCHECK_MARK_NAME "cuda_labs_audit_mark"
typedef int devcheck_mark_fn(cudaStream_t s, unsigned hold_ns);
devcheck_mark_fn devcheck_mark;
/* Fresh inputs for the timing witness (grader/witness.h): n_words words
 * from seed, of a kind below (lo and hi as it says). */
enum {
    DEVCHECK_FILL_UNIFORM = 0, /* floats in [lo, hi), as rng_uniform (common/rng.c) makes them */
    DEVCHECK_FILL_INTS = 1,    /* ints uniform in [lo, hi] */
    DEVCHECK_FILL_BF16 = 2,    /* two of UNIFORM's floats a word, rounded to BF16 */
};
typedef int devcheck_fill_fn(void *buf, uint64_t n_words, uint64_t seed, int kind, double lo,
                             double hi, cudaStream_t s);
devcheck_fill_fn devcheck_fill;
/* The timing witness's checks of a sum and of a compaction (grader/patch.h):
 * res[0], res[1] = the sum of in in double, and of its magnitudes; kept[c]
 * = the elements > 0 in chunk c (of `chunk` elements, a multiple of 256);
 * first[c] = the place in out of chunk c's first kept element. */
typedef int devcheck_sum_fn(const float *in, uint64_t n, double *res, cudaStream_t s);
typedef int devcheck_compact_count_fn(const int *in, uint64_t n, uint32_t chunk, uint32_t *kept,
                                      cudaStream_t s);
typedef int devcheck_compact_check_fn(const int *out, const int *in, uint64_t n, uint32_t chunk,
                                      const uint64_t *first, unsigned long long *res,
                                      cudaStream_t s);
/* The timing witness's check of a GEMM (lab 4): C = A B (row-major floats)
 * in rows[0..nr) and cols[0..nc) of C, at most DEVCHECK_GEMM_PICKS each,
 * within t1 * scale + t2 * scale (devcheck.cu). */
#define DEVCHECK_GEMM_PICKS 32
typedef int devcheck_gemm_fn(const float *C, const float *A, const float *B, uint64_t M,
                             uint64_t N, uint64_t K, double t1, double t2, const uint32_t *rows,
                             int nr, const uint32_t *cols, int nc, unsigned long long *res,
                             cudaStream_t s);
devcheck_gemm_fn devcheck_gemm;
/* The same for lab 7: C = A Bt^T with A (M x K) and Bt (N x K) BF16,
 * K-major, K even. */
typedef int devcheck_gemm_bf16_fn(const float *C, const void *A, const void *Bt, uint64_t M,
                                  uint64_t N, uint64_t K, double t1, double t2,
                                  const uint32_t *rows, int nr, const uint32_t *cols, int nc,
                                  unsigned long long *res, cudaStream_t s);
devcheck_gemm_bf16_fn devcheck_gemm_bf16;
/* The timing witness's check of a convolution (lab 6): y = x conv w (NCHW,
 * KCRS; shape as ceiling_conv_create's) in the output channels chans[0..nk)
 * and the pixels pixels[0..np) ((n P + p) Q + q), at most DEVCHECK_CONV_PICKS
 * each, within t1 * scale (devcheck.cu). */
#define DEVCHECK_CONV_PICKS 32
typedef int devcheck_conv_fn(const float *y, const float *x, const float *w, const int shape[9],
                             double t1, const uint32_t *chans, int nk, const uint32_t *pixels,
                             int np, unsigned long long *res, cudaStream_t s);
devcheck_conv_fn devcheck_conv;
devcheck_sum_fn devcheck_sum;
devcheck_compact_count_fn devcheck_compact_count;
devcheck_compact_check_fn devcheck_compact_check;
devcheck_scatter_fn devcheck_scatter;
devcheck_verify_fn devcheck_verify;
devcheck_compare_fn devcheck_compare;
devcheck_transpose_fn devcheck_transpose;
devcheck_scan_fn devcheck_scan;
devcheck_within_fn devcheck_within;

/* lab2.so: CUB's device-wide sum. */
typedef int ceiling_reduce_temp_bytes_fn(size_t n, size_t *bytes);
typedef int ceiling_reduce_sum_fn(const float *d_in, size_t n, float *d_out, void *d_temp,
                                  size_t temp_bytes, cudaStream_t stream);
ceiling_reduce_temp_bytes_fn ceiling_reduce_temp_bytes;
ceiling_reduce_sum_fn ceiling_reduce_sum;

/* lab3.so: CUB's device-wide sum, scan and select. */
typedef int ceiling_shuffle_temp_bytes_fn(size_t n, size_t *bytes);
typedef int ceiling_shuffle_sum_fn(const float *d_in, size_t n, float *d_out, void *d_temp,
                                   size_t temp_bytes, cudaStream_t stream);
typedef int ceiling_shuffle_scan_fn(const int *d_in, size_t n, int *d_out, void *d_temp,
                                    size_t temp_bytes, cudaStream_t stream);
typedef int ceiling_shuffle_select_fn(const int *d_in, size_t n, int *d_out, int *d_count,
                                      void *d_temp, size_t temp_bytes, cudaStream_t stream);
ceiling_shuffle_temp_bytes_fn ceiling_shuffle_temp_bytes;
ceiling_shuffle_sum_fn ceiling_shuffle_sum;
ceiling_shuffle_scan_fn ceiling_shuffle_scan;
ceiling_shuffle_select_fn ceiling_shuffle_select;

/* lab4.so: cuBLAS SGEMM; tf32 1 for TF32 tensor cores. */
typedef int ceiling_gemm_create_fn(void **handle);
typedef void ceiling_gemm_destroy_fn(void *handle);
typedef int ceiling_gemm_fn(void *handle, int tf32, int M, int N, int K, float alpha,
                            const float *d_A, const float *d_B, float beta, float *d_C,
                            cudaStream_t stream);
ceiling_gemm_create_fn ceiling_gemm_create;
ceiling_gemm_destroy_fn ceiling_gemm_destroy;
ceiling_gemm_fn ceiling_gemm;

/* lab5.so: the job with everything overlapped, and the pieces it is timed from. */
typedef int ceiling_streams_create_fn(void **handle, size_t n, float a, const float *c);
typedef int ceiling_streams_fn(void *handle);
typedef void ceiling_streams_destroy_fn(void *handle);
typedef void ceiling_streams_set_degree_fn(void *handle, int degree);
typedef double ceiling_streams_time_fn(void *handle, int what, int degree, int reps);
typedef int ceiling_streams_check_fn(void *handle, const float *x, const float *y,
                                     const float *out, unsigned long long *res);
ceiling_streams_create_fn ceiling_streams_create;
ceiling_streams_fn ceiling_streams;
ceiling_streams_destroy_fn ceiling_streams_destroy;
ceiling_streams_set_degree_fn ceiling_streams_set_degree;
ceiling_streams_time_fn ceiling_streams_time;
ceiling_streams_check_fn ceiling_streams_check;

/* lab6.so: cuBLAS SGEMM at the layer's GEMM shape, y (N P Q x K, row-major)
 * = A (N P Q x C R S) B (C R S x K), A and B the ceiling's own, every byte
 * CEILING_CONV_BYTE (every element about 0.0115). */
#define CEILING_CONV_BYTE 0x3c
typedef int ceiling_conv_create_fn(void **handle, const int shape[9], const float *x,
                                   const float *w, float *y);
typedef int ceiling_conv_fn(void *handle, const float *x, const float *w, float *y,
                            cudaStream_t stream);
typedef void ceiling_conv_destroy_fn(void *handle);
typedef const char *ceiling_conv_name_fn(void);
ceiling_conv_create_fn ceiling_conv_create;
ceiling_conv_fn ceiling_conv;
ceiling_conv_destroy_fn ceiling_conv_destroy;
ceiling_conv_name_fn ceiling_conv_name;

/* lab7.so: cuBLAS BF16 GEMM (FP32 accumulation), C = A Bt^T as labs/7-hopper/hopper.h
 * states it (A and Bt BF16 bits, K-major; C FP32, row-major). */
typedef int ceiling_hopper_create_fn(void **handle);
typedef void ceiling_hopper_destroy_fn(void *handle);
typedef int ceiling_hopper_fn(void *handle, int M, int N, int K, const unsigned short *d_A,
                              const unsigned short *d_Bt, float *d_C, cudaStream_t stream);
/* Stage 5's: lab 4's C = A B in TF32 (A M x K, B K x N, C M x N, FP32, row-major). */
typedef int ceiling_hopper_tf32_fn(void *handle, int M, int N, int K, const float *d_A,
                                   const float *d_B, float *d_C, cudaStream_t stream);
ceiling_hopper_create_fn ceiling_hopper_create;
ceiling_hopper_destroy_fn ceiling_hopper_destroy;
ceiling_hopper_fn ceiling_hopper;
ceiling_hopper_tf32_fn ceiling_hopper_tf32;

#ifdef __cplusplus
}
#endif

#endif
