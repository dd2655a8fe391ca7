/* Adversarial case (lab 7, slowed given stage): the given mma.sync GEMM
 * runs four times (each call writes the same C), and stage 1 is the given
 * mma.sync code under stage 1's name. Timed against the submission's copy
 * of stage 0, stage 1 would be 4x its base and pass the 1.3x; the grader
 * times the course's copy of the given stages, so stage 1 is 1x: caught.
 * Built for sm_90a, as lab 7 is (the Makefile's rule for *_hopper cases).
 * lab: 7
 * grade-args: --stage 1
 * expect: 1 correctness PASS
 * expect: 1 speed TOO SLOW
 */
#define hopper_mma_sync hopper_mma_sync_course
#define hopper_tma_wgmma hopper_tma_wgmma_reference
#include "../../../solutions/7-hopper/hopper.cu"
#undef hopper_mma_sync
#undef hopper_tma_wgmma

extern "C" lab_status hopper_mma_sync(int M, int N, int K, const unsigned short *d_A,
                                      const unsigned short *d_Bt, float *d_C,
                                      hopper_tensor_map_fn tensor_map, cudaStream_t stream)
{
    for (int k = 0; k < 3; k++)
        hopper_mma_sync_course(M, N, K, d_A, d_Bt, d_C, tensor_map, stream);
    return hopper_mma_sync_course(M, N, K, d_A, d_Bt, d_C, tensor_map, stream);
}

extern "C" lab_status hopper_tma_wgmma(int M, int N, int K, const unsigned short *d_A,
                                       const unsigned short *d_Bt, float *d_C,
                                       hopper_tensor_map_fn tensor_map, cudaStream_t stream)
{
    return hopper_mma_sync_course(M, N, K, d_A, d_Bt, d_C, tensor_map, stream);
}
