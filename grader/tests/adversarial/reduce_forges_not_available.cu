/* Adversarial case (lab 2, issue 20 class 2): stage 7 sums only the first
 * half of its input, and instead of failing it writes NOT AVAILABLE ("needs
 * compute capability 10.0") into its correctness test's record through the
 * grader's own write of the results file, at its first call; in its speed
 * test a constructor writes the same into that test's record. NOT AVAILABLE
 * takes a test's points out of the total, so the stage would leave the
 * score at full marks of a smaller total. The grading child never writes
 * that verdict (only the parent gives it, before the tests): REJECTED, both.
 * lab: 2
 * expect: 7 correctness REJECTED
 * expect: 7 speed REJECTED
 * expect-output: only the grader's parent
 * grade-args: --stage 7
 */
#include "results_fd.h"

#define reduce_many reduce_many_reference
#include "../../../solutions/2-reduce/reduce.cu"
#undef reduce_many

static const char forged_msg[] =
    "needs compute capability 10.0 (this GPU has 9.0): not graded, no points lost";

__attribute__((constructor)) static void forge_speed_test(void)
{
    if (forge_running_is(7, TEST_PERF))
        forge_verdict(7, TEST_PERF, V_NOT_AVAILABLE, forged_msg);
}

extern "C" lab_status reduce_many(const float *d_in, size_t n, float *d_out, float *d_work,
                                  cudaStream_t stream)
{
    forge_verdict(7, TEST_CORRECT, V_NOT_AVAILABLE, forged_msg);
    return reduce_many_reference(d_in, n / 2 > 0 ? n / 2 : n, d_out, d_work, stream);
}
