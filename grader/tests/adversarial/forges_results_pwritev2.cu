/* Adversarial case (lab 1, issue 20 class 2): stage 2 writes a PASS into its
 * own record through the grader's results file with the C library's
 * pwritev2, a writing call the grader itself never makes. REJECTED.
 * lab: 1
 * expect: 2 correctness REJECTED
 * expect-output: it tried to write the grader's results (its results file) (syscall pwritev2)
 * grade-args: --stage 2
 */
#include <sys/uio.h>

#include "results_fd.h"

#define transpose_naive_write transpose_naive_write_reference
#include "../../../solutions/1-transpose/transpose.cu"
#undef transpose_naive_write

extern "C" lab_status transpose_naive_write(const float *d_in, float *d_out, int rows, int cols,
                                            cudaStream_t stream)
{
    test_record rec;
    long at = forge_record(&rec, 2, TEST_CORRECT);
    struct iovec v = {&rec, sizeof rec};
    int fd = forge_find_results_fd();
    if (fd >= 0 && pwritev2(fd, &v, 1, at, 0) == (ssize_t)sizeof rec)
        _exit(FORGED_PASS_EXIT);
    return transpose_naive_write_reference(d_in, d_out, rows, cols, stream);
}
