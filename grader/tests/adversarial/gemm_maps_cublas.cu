/* Adversarial case (lab 4): stage 7 is cuBLAS's SGEMM, found without the
 * loader's help (maps_lookup.h: /proc/self/maps and the library's symbol
 * table in memory; the grading child holds libcublas for the ceiling). The
 * contract check sees nothing it refuses, and cuBLAS launches its kernels
 * through its own copy of the runtime, which the launch trace does not see.
 * The kernel audit does: CUPTI lists a kernel that ran on the GPU without a
 * launch the trace saw, and the stage is REJECTED.
 * lab: 4
 * grade-args: --stage 7
 * expect: 7 correctness REJECTED
 * expect-output: without launching it through the CUDA runtime
 */
#include "maps_lookup.h"

#define gemm_warp_tile gemm_warp_tile_reference
#include "../../../solutions/4-gemm/gemm.cu"
#undef gemm_warp_tile

typedef int (*create_fn)(void **);
typedef int (*set_stream_fn)(void *, cudaStream_t);
typedef int (*sgemm_fn)(void *, int, int, int, int, int, const float *, const float *, int,
                        const float *, int, const float *, float *, int);

extern "C" lab_status gemm_warp_tile(int M, int N, int K, float alpha, const float *d_A,
                                     const float *d_B, float beta, float *d_C, cudaStream_t stream)
{
    static void *handle;
    create_fn create = (create_fn)maps_lookup("libcublas.so", "cublasCreate_v2");
    set_stream_fn set_stream = (set_stream_fn)maps_lookup("libcublas.so", "cublasSetStream_v2");
    sgemm_fn sgemm = (sgemm_fn)maps_lookup("libcublas.so", "cublasSgemm_v2");
    if (!create || !set_stream || !sgemm || (!handle && create(&handle) != 0))
        return gemm_warp_tile_reference(M, N, K, alpha, d_A, d_B, beta, d_C, stream);
    set_stream(handle, stream);
    return sgemm(handle, 0, 0, N, M, K, &alpha, d_B, N, d_A, K, &beta, d_C, N) == 0 ? LAB_OK
                                                                                   : LAB_ERROR;
}
