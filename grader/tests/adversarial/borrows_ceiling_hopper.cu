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
#include "maps_lookup.h"

#define hopper_tma_wgmma hopper_tma_wgmma_reference
#include "../../../solutions/7-hopper/hopper.cu"
#undef hopper_tma_wgmma

typedef int (*create_fn)(void **);
typedef int (*gemm_fn)(void *, int, int, int, const unsigned short *, const unsigned short *,
                       float *, cudaStream_t);

extern "C" lab_status hopper_tma_wgmma(int M, int N, int K, const unsigned short *d_A,
                                       const unsigned short *d_Bt, float *d_C,
                                       hopper_tensor_map_fn tensor_map, cudaStream_t stream)
{
    static void *handle;
    create_fn create = (create_fn)maps_lookup("ceilings/lab7.so", "ceiling_hopper_create");
    gemm_fn gemm = (gemm_fn)maps_lookup("ceilings/lab7.so", "ceiling_hopper");
    if (!create || !gemm || (!handle && create(&handle) != 0))
        return hopper_tma_wgmma_reference(M, N, K, d_A, d_Bt, d_C, tensor_map, stream);
    return gemm(handle, M, N, K, d_A, d_Bt, d_C, stream) == 0 ? LAB_OK : LAB_ERROR;
}
