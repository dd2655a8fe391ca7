/* Adversarial case (lab 1, speed): stages 3, 4 and 5 are all the conflicted
 * 32 x 32 tile (stage 3's kernel: no padding, no float4), and a stage runs
 * its kernel twice (correctly) once the next stage's function has been
 * called in the test's process. Each test is a process of its own, and the
 * next stage's speed test calls that stage first, so a stage is slow only
 * as the base of the next one: the paired speedups come out near 2x, where
 * stage 4 needs 1.40x and stage 5 1.10x. In its own test each base ran at
 * full speed, and the grader decides the speedup again on that time: 1.0x.
 * lab: 1
 * grade-args: --stage 3,4,5
 * expect: 3 speed PASS
 * expect: 4 speed TOO SLOW
 * expect: 5 speed TOO SLOW
 * expect-output: this test's base, took
 * expect-output: so the speedup measured here cannot be believed
 */
#define transpose_tiled transpose_tiled_reference
#define transpose_padded transpose_padded_reference
#define transpose_vectorized transpose_vectorized_reference
#include "../../../solutions/1-transpose/transpose.cu"
#undef transpose_tiled
#undef transpose_padded
#undef transpose_vectorized

static int called_4, called_5; /* which later stage this process has called */

extern "C" lab_status transpose_tiled(const float *d_in, float *d_out, int rows, int cols,
                                      cudaStream_t stream)
{
    if (called_4) /* the base of stage 4's speed test: look slow */
        transpose_tiled_reference(d_in, d_out, rows, cols, stream);
    return transpose_tiled_reference(d_in, d_out, rows, cols, stream);
}

extern "C" lab_status transpose_padded(const float *d_in, float *d_out, int rows, int cols,
                                       cudaStream_t stream)
{
    called_4 = 1;
    if (called_5) /* the base of stage 5's */
        transpose_tiled_reference(d_in, d_out, rows, cols, stream);
    return transpose_tiled_reference(d_in, d_out, rows, cols, stream);
}

extern "C" lab_status transpose_vectorized(const float *d_in, float *d_out, int rows, int cols,
                                           cudaStream_t stream)
{
    called_5 = 1;
    return transpose_tiled_reference(d_in, d_out, rows, cols, stream);
}
