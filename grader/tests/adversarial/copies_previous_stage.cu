/* Adversarial case: stage 5 is stage 4 under a new name (it calls it). Its
 * output is right, so it passes correctness, but it is no faster than the
 * stage it must beat: its speed test fails.
 * expect: 5 correctness PASS
 * expect: 5 speed TOO SLOW
 * grade-args: --stage 5
 */
#define transpose_vectorized transpose_vectorized_reference
#include "../../../solutions/1-transpose/transpose.cu"
#undef transpose_vectorized

extern "C" lab_status transpose_vectorized(const float *d_in, float *d_out, int rows, int cols,
                                           cudaStream_t stream)
{
    return transpose_padded(d_in, d_out, rows, cols, stream);
}
