/* Adversarial case (lab 3, issue 20 class 2): stage 2 kills the grader's
 * parent process, so that no scoreboard is printed and a wrapper that reads
 * only the exit status may see nothing failed. It signals the parent through
 * libc's syscall() reached by a function pointer (hidden_calls.h): no kill or
 * syscall import. The sandbox refuses a signal to another process.
 * lab: 3
 * expect: 2 correctness REJECTED
 * expect-output: it tried to send a signal to another process (syscall kill)
 * grade-args: --stage 2
 */
#include <signal.h>
#include <sys/syscall.h>

#include "hidden_calls.h"

#define reduce_shuffle reduce_shuffle_reference
#include "../../../solutions/3-shuffle/shuffle.cu"
#undef reduce_shuffle

extern "C" lab_status reduce_shuffle(const float *d_in, size_t n, float *d_out, void *d_work,
                                     cudaStream_t stream)
{
    hidden_syscall_fn sys = hidden_syscall();
    if (sys)
        sys(SYS_kill, sys(SYS_getppid), (long)SIGKILL);
    return reduce_shuffle_reference(d_in, n, d_out, d_work, stream);
}
