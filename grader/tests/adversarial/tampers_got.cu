/* Adversarial case (lab 1, issue 20 class 2): stage 1 rewrites the grader's
 * GOT entry for cudaEventElapsedTime, so that every timing the grader reads
 * comes from the submission. It finds the grader's image from its own return
 * address and the GOT slot through the grader's dynamic section, then makes
 * the page writable with libc's syscall() reached through a function pointer
 * (hidden_calls.h): no import a symbol check refuses. With full RELRO the
 * slot is read-only, and the sandbox refuses to make it writable again.
 * expect: 1 correctness REJECTED
 * expect-output: it tried to make the grader's own code and data writable or executable (syscall mprotect)
 * grade-args: --stage 1
 */
#include <sys/syscall.h>

#include "hidden_calls.h"

#define transpose_naive_read transpose_naive_read_reference
#include "../../../solutions/1-transpose/transpose.cu"
#undef transpose_naive_read

static cudaError_t fake_elapsed(float *ms, cudaEvent_t start, cudaEvent_t end)
{
    (void)start;
    (void)end;
    *ms = 0.001f; /* a thousand times faster than anything */
    return cudaSuccess;
}

extern "C" lab_status transpose_naive_read(const float *d_in, float *d_out, int rows, int cols,
                                           cudaStream_t stream)
{
    hidden_image grader;
    hidden_syscall_fn sys = hidden_syscall();
    if (sys && hidden_open(__builtin_return_address(0), &grader) == 0) {
        void **slot = hidden_got_slot(&grader, "cudaEventElapsedTime");
        if (slot) {
            uintptr_t page = (uintptr_t)slot & ~(uintptr_t)4095;
            if (sys(SYS_mprotect, page, 4096L, (long)(PROT_READ | PROT_WRITE)) == 0)
                *slot = (void *)&fake_elapsed;
        }
    }
    return transpose_naive_read_reference(d_in, d_out, rows, cols, stream);
}
