/* Adversarial case (lab 1, issue 20 class 2): stage 3 writes nothing where
 * a dimension is not a multiple of its 32 x 32 tile, and in its first such
 * call (the first size, 1 x 1) writes a PASS into its correctness test's
 * record through the grader's own write of the results file and leaves
 * with the grader's pass code, before the grader's check of that call. At
 * 8192 x 8192, its speed test's size, it is the reference. The correctness
 * test's checking witness checked none of the test's sizes: REJECTED, and
 * the speed test it let run is not graded.
 * lab: 1
 * expect: 3 correctness REJECTED
 * expect: 3 speed SKIPPED
 * expect-output: checking witness
 * grade-args: --stage 3
 */
#include "results_fd.h"

#define transpose_tiled transpose_tiled_reference
#include "../../../solutions/1-transpose/transpose.cu"
#undef transpose_tiled

extern "C" lab_status transpose_tiled(const float *d_in, float *d_out, int rows, int cols,
                                      cudaStream_t stream)
{
    if (rows % 32 == 0 && cols % 32 == 0)
        return transpose_tiled_reference(d_in, d_out, rows, cols, stream);
    forge_correct_pass(3);
    return LAB_OK;
}
