/* Adversarial case (lab 7): stage 1 runs the grader's own cuBLAS ceiling,
 * ceiling_hopper() of build/ceilings/lab7.so, which the grading child has
 * loaded; it is found without the loader's help (maps_lookup.h). Nothing in
 * the library names it, and cuBLAS launches through its own copy of the
 * runtime, which the launch trace does not see; the kernel audit (CUPTI)
 * does, and the stage is REJECTED. Built for sm_90a, as lab 7 is.
 * lab: 7
 * grade-args: --stage 1
 * expect: 1 correctness REJECTED
 * expect-output: without launching it through the CUDA runtime
 */
#include "ceiling_lookup.h"

#define hopper_tma_wgmma hopper_tma_wgmma_reference
#include "../../../solutions/7-hopper/hopper.cu"
#undef hopper_tma_wgmma

extern "C" lab_status hopper_tma_wgmma(int M, int N, int K, const unsigned short *d_A,
                                       const unsigned short *d_Bt, float *d_C,
                                       hopper_tensor_map_fn tensor_map, cudaStream_t stream)
{
    int err = maps_ceiling_hopper(M, N, K, d_A, d_Bt, d_C, stream);
    if (err < 0)
        return hopper_tma_wgmma_reference(M, N, K, d_A, d_Bt, d_C, tensor_map, stream);
    return err == 0 ? LAB_OK : LAB_ERROR;
}
