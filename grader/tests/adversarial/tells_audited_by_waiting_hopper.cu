/* Adversarial case (lab 7): stage 1 tells the audited call from the timed
 * ones as gemm_tells_audited_by_waiting does (stream_drains.h): its own
 * kernel when its stream runs dry within 0.6 ms (the correctness test's own
 * calls, and an audited call that the timing witness does not hold), the
 * grader's own cuBLAS ceiling, found as borrows_ceiling_hopper finds it,
 * when the stream stays busy (a call the witness holds). The witness holds
 * the audited call too, and the correctness test's checking call at each
 * size, which is audited: the audit sees the ceiling's kernel in the
 * correctness test already. Built for sm_90a, as lab 7 is.
 * lab: 7
 * grade-args: --stage 1
 * expect: 1 correctness REJECTED
 * expect: 1 speed SKIPPED
 * expect-output: without launching it through the CUDA runtime
 */
#include "ceiling_lookup.h"
#include "stream_drains.h"

#define hopper_tma_wgmma hopper_tma_wgmma_reference
#include "../../../solutions/7-hopper/hopper.cu"
#undef hopper_tma_wgmma

extern "C" lab_status hopper_tma_wgmma(int M, int N, int K, const unsigned short *d_A,
                                       const unsigned short *d_Bt, float *d_C,
                                       hopper_tensor_map_fn tensor_map, cudaStream_t stream)
{
    int err = stream_drains(stream, 600.0)
                  ? -1 /* taken for a call no one else is watching */
                  : maps_ceiling_hopper(M, N, K, d_A, d_Bt, d_C, stream);
    if (err < 0)
        return hopper_tma_wgmma_reference(M, N, K, d_A, d_Bt, d_C, tensor_map, stream);
    return err == 0 ? LAB_OK : LAB_ERROR;
}
