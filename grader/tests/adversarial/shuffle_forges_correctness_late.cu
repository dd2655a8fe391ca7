/* Adversarial case (lab 3, issue 20 class 2): stage 4's block scan leaves
 * out the last, partial segment of 1,000,003 elements, and in its first call
 * at that size writes a PASS into its correctness test's record through the
 * grader's own write of the results file and leaves with the grader's pass
 * code, before the grader's check of that call. Every size before it is
 * right, so the checking witness has checked those (six of the test's
 * eight), and not the last two: REJECTED.
 * lab: 3
 * expect: 4 correctness REJECTED
 * expect-output: checked 6 of the test's 8 sizes
 * grade-args: --stage 4
 */
#include "results_fd.h"

#define scan_block scan_block_reference
#include "../../../solutions/3-shuffle/shuffle.cu"
#undef scan_block

extern "C" lab_status scan_block(const int *d_in, size_t n, int *d_out, void *d_work,
                                 cudaStream_t stream)
{
    if (n != 1000003)
        return scan_block_reference(d_in, n, d_out, d_work, stream);
    forge_correct_pass(4);
    return scan_block_reference(d_in, n - n % SHUFFLE_SEGMENT, d_out, d_work, stream);
}
