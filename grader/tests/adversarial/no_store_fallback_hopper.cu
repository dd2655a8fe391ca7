/* Adversarial case (lab 7, a student's slip): stage 4 always stores C
 * through TMA, with no path for N not a multiple of 4, where C's rows are
 * not whole 16-byte chunks and the tensor-map maker refuses C; the stage then
 * returns LAB_ERROR. The graded sizes include N = 1 and N = 1003, so the
 * grader says where: STAGE ERROR at the first such size (M 1, N 1, K 8).
 * Built for sm_90a, as lab 7 is.
 * lab: 7
 * grade-args: --stage 4
 * expect: 4 correctness STAGE ERROR
 * expect-output: hopper_persistent() returned LAB_ERROR at M 1, N 1, K 8
 */
#define hopper_persistent hopper_persistent_reference
#include "../../../solutions/7-hopper/hopper.cu"
#undef hopper_persistent

extern "C" lab_status hopper_persistent(int M, int N, int K, const unsigned short *d_A,
                                        const unsigned short *d_Bt, float *d_C,
                                        hopper_tensor_map_fn tensor_map, cudaStream_t stream)
{
    CUtensorMap mapC;
    if (tensor_map(&mapC, (const unsigned short *)d_C, M, 2 * N, 64) != 0)
        return LAB_ERROR; /* the slip: no fallback */
    return hopper_persistent_reference(M, N, K, d_A, d_Bt, d_C, tensor_map, stream);
}
