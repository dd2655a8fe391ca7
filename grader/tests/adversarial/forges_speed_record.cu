/* Adversarial case (lab 1, issue 20 class 2): stage 5 transposes naively,
 * which is correct but slow, and forges its speed test's record: at its
 * twelfth call at the benchmark size it finds the grader's own write of the
 * results file (results_pwrite_stub, by its name in the grader's symbol
 * table, read from /proc/self/exe) and the file's descriptor, writes a PASS
 * with a fast time into its own record through that write, which the sandbox
 * lets through, and leaves with the grader's pass code. The grader's timing
 * witness, a process of its own that timed each call, saw fewer calls than
 * the test makes (and slower ones than the record says): REJECTED. (With
 * the witness turned off, CUDA_LABS_WITNESS=0, this forgery gets full
 * marks: instructors.md.)
 * lab: 1
 * expect: 5 correctness PASS
 * expect: 5 speed REJECTED
 * expect-output: the grader's timing witness
 * grade-args: --stage 5
 */
#include "results_fd.h"

#define transpose_vectorized transpose_vectorized_reference
#include "../../../solutions/1-transpose/transpose.cu"
#undef transpose_vectorized

extern "C" lab_status transpose_vectorized(const float *d_in, float *d_out, int rows, int cols,
                                           cudaStream_t stream)
{
    static int calls;
    lab_status st = transpose_naive_read(d_in, d_out, rows, cols, stream);
    if ((size_t)rows * cols != (size_t)8192 * 8192 || ++calls != 12)
        return st;
    /* 0.07 ms for 2 x 256 MB: 7670 GB/s, near the copy below */
    forge_speed_pass(5, 0.07, 0.537, 4, 0.15, 0.066);
    return st;
}
