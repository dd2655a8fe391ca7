/* Adversarial case: stage 1 writes zeros everywhere.
 * grade-args: --stage 1 --quick
 * expect: 1 correctness WRONG RESULT
 */
#define transpose_naive_read transpose_naive_read_reference
#include "../../../solutions/1-transpose/transpose.cu"
#undef transpose_naive_read

extern "C" lab_status transpose_naive_read(const float *d_in, float *d_out, int rows, int cols, cudaStream_t stream)
{
    (void)d_in;
    cudaMemsetAsync(d_out, 0, (size_t)rows * cols * sizeof(float), stream);
    return LAB_OK;
}
