/* Adversarial case (lab 1, issue 20 class 2): stage 1 copies the grader's
 * results file's descriptor to a number of its own with dup2, which the
 * filter would not know, and writes a PASS into its record through the
 * copy. The sandbox refuses the copy: REJECTED.
 * lab: 1
 * expect: 1 correctness REJECTED
 * expect-output: it tried to write the grader's results (its results file) (syscall dup2)
 * grade-args: --stage 1
 */
#include "results_fd.h"

#define transpose_naive_read transpose_naive_read_reference
#include "../../../solutions/1-transpose/transpose.cu"
#undef transpose_naive_read

extern "C" lab_status transpose_naive_read(const float *d_in, float *d_out, int rows, int cols,
                                           cudaStream_t stream)
{
    test_record rec;
    long at = forge_record(&rec, 1, TEST_CORRECT);
    int fd = forge_find_results_fd();
    if (fd >= 0 && dup2(fd, 500) == 500 && pwrite(500, &rec, sizeof rec, at) == (ssize_t)sizeof rec)
        _exit(FORGED_PASS_EXIT);
    return transpose_naive_read_reference(d_in, d_out, rows, cols, stream);
}
