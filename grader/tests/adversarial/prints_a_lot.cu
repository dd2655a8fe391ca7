/* Adversarial case: stage 1 is correct but prints a gigabyte in every call.
 * Its output is cut at 64 KB, the run is not slowed down, and the grader
 * has the last word. The GPU waits for the host for most of each audited
 * call: the kernel audit reports such dark time (the report is cut with the
 * rest of the output here) and never counts it against the stage.
 * grade-args: --stage 1 --quick
 * expect-exit: 0
 * expect: 1 correctness PASS
 * expect-output: [output cut:
 * expect-output: Score: 10/10
 */
#include <stdio.h>
#include <string.h>
#define transpose_naive_read transpose_naive_read_reference
#include "../../../solutions/1-transpose/transpose.cu"
#undef transpose_naive_read

extern "C" lab_status transpose_naive_read(const float *d_in, float *d_out, int rows, int cols, cudaStream_t stream)
{
    static char line[1 << 20];
    memset(line, 'x', sizeof line - 1);
    for (int i = 0; i < 1024; i++)
        fputs(line, stdout);
    return transpose_naive_read_reference(d_in, d_out, rows, cols, stream);
}
