/* Adversarial case (lab 4, issue 20 class 2): stage 3 is right in every
 * call the correctness test checks itself (two input sets at each size), and
 * in the third call at 4096^3, the one the checking witness loads and checks
 * after them, it writes a PASS into its correctness test's record through
 * the grader's own write of the results file and leaves with the grader's
 * pass code, before its output is written. A size counts as checked only
 * once the witness has checked its output: seven of the eight were, and the
 * record does not stand (REJECTED). The speed test's calls, all at 4096^3
 * and none at a smaller size before them, are left alone.
 * lab: 4
 * expect: 3 correctness REJECTED
 * expect: 3 speed SKIPPED
 * expect-output: checked 7 of the test's 8 sizes
 * grade-args: --stage 3
 */
#include "results_fd.h"

#define gemm_tile_1d gemm_tile_1d_reference
#include "../../../solutions/4-gemm/gemm.cu"
#undef gemm_tile_1d

extern "C" lab_status gemm_tile_1d(int M, int N, int K, float alpha, const float *d_A,
                                   const float *d_B, float beta, float *d_C, cudaStream_t stream)
{
    static int smaller, at_4096;
    if (M != 4096 || N != 4096 || K != 4096)
        smaller = 1;
    else if (smaller && ++at_4096 == 3)
        forge_correct_pass(3);
    return gemm_tile_1d_reference(M, N, K, alpha, d_A, d_B, beta, d_C, stream);
}
