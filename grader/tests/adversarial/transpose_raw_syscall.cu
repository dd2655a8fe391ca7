/* Adversarial case (lab 1): stage 1 makes a system call with an inline
 * `syscall` instruction (here only getpid, 39 on x86-64; a real attack would
 * ask for mprotect). It leaves no symbol to find; the grader disassembles
 * the library's host code with objdump and rejects it before anything runs.
 * lab: 1
 * needs-gpu: no
 * expect-exit: 1
 * expect-output: REJECTED: its host code makes a system call of its own
 * expect-output: transpose_naive_read()
 */
#define transpose_naive_read transpose_naive_read_reference
#include "../../../solutions/1-transpose/transpose.cu"
#undef transpose_naive_read

extern "C" lab_status transpose_naive_read(const float *d_in, float *d_out, int rows, int cols,
                                           cudaStream_t stream)
{
#if defined(__x86_64__)
    long pid = 39;
    asm volatile("syscall" : "+a"(pid) : : "rcx", "r11", "memory");
#elif defined(__aarch64__)
    register long x8 asm("x8") = 172; /* getpid */
    register long x0 asm("x0");
    asm volatile("svc #0" : "=r"(x0) : "r"(x8) : "memory");
    (void)x0;
#endif
    return transpose_naive_read_reference(d_in, d_out, rows, cols, stream);
}
