/* Adversarial case (lab 7): stage 1 runs the grader's own cuBLAS ceiling,
 * found as borrows_ceiling_hopper finds it, with CUPTI's kernel recording
 * switched off around the call and on again after it (cupti_switch.h). The
 * audit's marker kernels show, but between them the GPU ran the ceiling's
 * kernel with nothing recorded: at 4096 x 4096 x 4096 that dark time is far
 * above what a stalled host leaves, in every audited call, and the stage is
 * REJECTED. Built for sm_90a, as lab 7 is.
 * lab: 7
 * grade-args: --stage 1
 * expect: 1 correctness REJECTED
 * expect-output: audited calls
 */
#include "ceiling_lookup.h"
#include "cupti_switch.h"

#define hopper_tma_wgmma hopper_tma_wgmma_reference
#include "../../../solutions/7-hopper/hopper.cu"
#undef hopper_tma_wgmma

extern "C" lab_status hopper_tma_wgmma(int M, int N, int K, const unsigned short *d_A,
                                       const unsigned short *d_Bt, float *d_C,
                                       hopper_tensor_map_fn tensor_map, cudaStream_t stream)
{
    cupti_kernels(0);
    int err = maps_ceiling_hopper(M, N, K, d_A, d_Bt, d_C, stream);
    cupti_kernels(1);
    if (err < 0)
        return hopper_tma_wgmma_reference(M, N, K, d_A, d_Bt, d_C, tensor_map, stream);
    return err == 0 ? LAB_OK : LAB_ERROR;
}
