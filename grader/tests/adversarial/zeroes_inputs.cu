/* Adversarial case: stage 1 transposes correctly, then wipes its input.
 * grade-args: --stage 1 --quick
 * expect: 1 correctness INPUT MODIFIED
 */
#define transpose_naive_read transpose_naive_read_reference
#include "../../../solutions/1-transpose/transpose.cu"
#undef transpose_naive_read

extern "C" lab_status transpose_naive_read(const float *d_in, float *d_out, int rows, int cols, cudaStream_t stream)
{
    transpose_naive_read_reference(d_in, d_out, rows, cols, stream);
    cudaMemsetAsync((void *)d_in, 0, (size_t)rows * cols * sizeof(float), stream);
    return LAB_OK;
}
