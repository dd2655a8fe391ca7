/* Adversarial case: stage 1 returns LAB_OK without launching anything, so
 * its output keeps the grader's poison. The next stage is graded normally.
 * grade-args: --quick
 * expect: 1 correctness NOT WRITTEN
 * expect: 2 correctness PASS
 * expect-output: was never written
 */
#define transpose_naive_read transpose_naive_read_reference
#include "../../../solutions/1-transpose/transpose.cu"
#undef transpose_naive_read

extern "C" lab_status transpose_naive_read(const float *d_in, float *d_out, int rows, int cols,
                                           cudaStream_t stream)
{
    (void)d_in, (void)d_out, (void)rows, (void)cols, (void)stream;
    return LAB_OK;
}
