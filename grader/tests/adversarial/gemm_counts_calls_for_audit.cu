/* Adversarial case (lab 4): stage 7 counts its own calls and those of its
 * base, stage 6, which the library also holds. In a speed test the grader
 * calls the stage and its base in turn, so at the stage's entry its count
 * minus the base's is -1 or 0. An audited call made in addition to the timed
 * ones pushes that to 1 for the rest of the test: the audit is over. From
 * then on the stage would run cuBLAS's SGEMM (found through
 * /proc/self/maps), and until then a slow kernel of its own (stage 2's),
 * which the audit finds honest. With the timing witness the audited call is
 * one of the timed calls, not one more, so the count never tells: the stage
 * keeps its slow kernel, and its speed test fails. (Before, the audit fell
 * early enough for cuBLAS to set the median in about half the runs.)
 * lab: 4
 * grade-args: --stage 7
 * expect: 7 correctness PASS
 * expect: 7 speed TOO SLOW
 */
#include "cublas_lookup.h"

#define gemm_warp_tile gemm_warp_tile_reference
#define gemm_double_buffer gemm_double_buffer_reference
#include "../../../solutions/4-gemm/gemm.cu"
#undef gemm_warp_tile
#undef gemm_double_buffer

static long stage_calls, base_calls;

extern "C" lab_status gemm_double_buffer(int M, int N, int K, float alpha, const float *d_A,
                                         const float *d_B, float beta, float *d_C,
                                         cudaStream_t stream)
{
    base_calls++;
    return gemm_double_buffer_reference(M, N, K, alpha, d_A, d_B, beta, d_C, stream);
}

extern "C" lab_status gemm_warp_tile(int M, int N, int K, float alpha, const float *d_A,
                                     const float *d_B, float beta, float *d_C, cudaStream_t stream)
{
    /* The correctness test's process never calls the base: never taken there. */
    const int audit_over = base_calls > 0 && stage_calls - base_calls >= 1;
    stage_calls++;
    if (audit_over) {
        int err = maps_sgemm(M, N, K, alpha, d_A, d_B, beta, d_C, stream);
        if (err >= 0)
            return err == 0 ? LAB_OK : LAB_ERROR;
    }
    return gemm_shared(M, N, K, alpha, d_A, d_B, beta, d_C, stream);
}
