/* Adversarial case: stage 1 calls exit(0), which a plain Check test would
 * count as a pass. The grader says EARLY EXIT; stage 2 is graded as usual.
 * grade-args: --quick
 * expect: 1 correctness EARLY EXIT
 * expect: 2 correctness PASS
 * expect-output: never call exit()
 */
#include <stdlib.h>
#define transpose_naive_read transpose_naive_read_reference
#include "../../../solutions/1-transpose/transpose.cu"
#undef transpose_naive_read

extern "C" lab_status transpose_naive_read(const float *d_in, float *d_out, int rows, int cols, cudaStream_t stream)
{
    transpose_naive_read_reference(d_in, d_out, rows, cols, stream);
    exit(0);
}
