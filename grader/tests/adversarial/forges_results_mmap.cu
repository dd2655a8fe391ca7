/* Adversarial case (lab 3, issue 20 class 2): stage 2 maps the grader's
 * results file again, shared and writable, through its descriptor (an mmap
 * of its own through libc's syscall(), found without an import:
 * hidden_calls.h), and writes a PASS into its record there. The sandbox
 * refuses any mapping of that descriptor: REJECTED.
 * lab: 3
 * expect: 2 correctness REJECTED
 * expect-output: it tried to write the grader's results (its results file) (syscall mmap)
 * grade-args: --stage 2
 */
#include <sys/syscall.h>

#include "hidden_calls.h"
#include "results_fd.h"

#define reduce_shuffle reduce_shuffle_reference
#include "../../../solutions/3-shuffle/shuffle.cu"
#undef reduce_shuffle

extern "C" lab_status reduce_shuffle(const float *d_in, size_t n, float *d_out, void *d_work,
                                     cudaStream_t stream)
{
    test_record rec;
    long at = forge_record(&rec, 2, TEST_CORRECT);
    int fd = forge_find_results_fd();
    hidden_syscall_fn sys = hidden_syscall();
    long p = fd >= 0 && sys ? sys(SYS_mmap, 0L, (long)sizeof(lab_results),
                                  (long)(PROT_READ | PROT_WRITE), (long)MAP_SHARED, (long)fd, 0L)
                            : -1;
    if (p != -1 && p != 0) {
        *(test_record *)((char *)p + at) = rec;
        _exit(FORGED_PASS_EXIT);
    }
    return reduce_shuffle_reference(d_in, n, d_out, d_work, stream);
}
