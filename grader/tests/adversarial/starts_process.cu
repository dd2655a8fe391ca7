/* Adversarial case (lab 4, issue 20 class 2): stage 1 starts a second
 * process with a raw clone (no CLONE_THREAD), reached through libc's
 * syscall() by a function pointer (hidden_calls.h): no fork or clone import
 * for the symbol check to see. A process outside the grader's control could
 * outlive the test or work on while the grader times. The sandbox refuses it.
 * lab: 4
 * expect: 1 correctness REJECTED
 * expect-output: it tried to start another process (syscall clone)
 * grade-args: --stage 1
 */
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "hidden_calls.h"

#define gemm_coalesced gemm_coalesced_reference
#include "../../../solutions/4-gemm/gemm.cu"
#undef gemm_coalesced

extern "C" lab_status gemm_coalesced(int M, int N, int K, float alpha, const float *d_A,
                                     const float *d_B, float beta, float *d_C, cudaStream_t stream)
{
    hidden_syscall_fn sys = hidden_syscall();
    if (sys && sys(SYS_clone, (long)SIGCHLD, 0L, 0L, 0L, 0L) == 0)
        _exit(0); /* the new process */
    return gemm_coalesced_reference(M, N, K, alpha, d_A, d_B, beta, d_C, stream);
}
