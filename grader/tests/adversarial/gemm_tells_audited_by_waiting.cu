/* Adversarial case (lab 4): stage 7 tells the audited call from the timed
 * ones by waiting for its stream (stream_drains.h): when the stream runs dry
 * within 0.6 ms, as in the correctness test's own calls and in an audited
 * call that the timing witness does not hold, it runs its own kernel; when
 * the stream stays busy, as in a call the witness holds, it runs cuBLAS's
 * SGEMM, found through /proc/self/maps. The host's wait is outside the
 * witness's window and well inside TIMING ANOMALY's margin. The witness
 * holds the audited call as it holds the timed ones, so the stage takes
 * cuBLAS there too, and so it holds the correctness test's checking call at
 * each size, which is audited as the test's other calls are: the audit names
 * the kernel in the correctness test already.
 * lab: 4
 * grade-args: --stage 7
 * expect: 7 correctness REJECTED
 * expect: 7 speed SKIPPED
 * expect-output: without launching it through the CUDA runtime
 */
#include "cublas_lookup.h"
#include "stream_drains.h"

#define gemm_warp_tile gemm_warp_tile_reference
#include "../../../solutions/4-gemm/gemm.cu"
#undef gemm_warp_tile

extern "C" lab_status gemm_warp_tile(int M, int N, int K, float alpha, const float *d_A,
                                     const float *d_B, float beta, float *d_C, cudaStream_t stream)
{
    int err = stream_drains(stream, 600.0)
                  ? -1 /* taken for a call no one else is watching */
                  : maps_sgemm(M, N, K, alpha, d_A, d_B, beta, d_C, stream);
    if (err < 0)
        return gemm_warp_tile_reference(M, N, K, alpha, d_A, d_B, beta, d_C, stream);
    return err == 0 ? LAB_OK : LAB_ERROR;
}
