/* Adversarial case (lab 2, issue 20 class 2): stage 1 writes a PASS into its
 * own record through the grader's results file: it finds the file's
 * descriptor in /proc/self/fd and calls the C library's pwrite, then leaves
 * with the grader's pass code. The sandbox lets that descriptor be written
 * only from the grader's own write (sandbox.c): REJECTED.
 * lab: 2
 * expect: 1 correctness REJECTED
 * expect-output: it tried to write the grader's results (its results file) (syscall pwrite64)
 * grade-args: --stage 1
 */
#include "results_fd.h"

#define reduce_interleaved reduce_interleaved_reference
#include "../../../solutions/2-reduce/reduce.cu"
#undef reduce_interleaved

extern "C" lab_status reduce_interleaved(const float *d_in, size_t n, float *d_out, float *d_work,
                                         cudaStream_t stream)
{
    test_record rec;
    long at = forge_record(&rec, 1, TEST_CORRECT);
    int fd = forge_find_results_fd();
    if (fd >= 0 && pwrite(fd, &rec, sizeof rec, at) == (ssize_t)sizeof rec)
        _exit(FORGED_PASS_EXIT);
    return reduce_interleaved_reference(d_in, n, d_out, d_work, stream);
}
