/* Adversarial case: an assert() fails inside stage 1's kernel.
 * grade-args: --stage 1
 * expect: 1 correctness GPU FAULT
 * expect-output: cudaErrorAssert
 */
#include <assert.h>
#define transpose_naive_read transpose_naive_read_reference
#include "../../../solutions/1-transpose/transpose.cu"
#undef transpose_naive_read

__global__ void assert_kernel(const float *in)
{
    assert(in[0] > 1000.0f); /* inputs lie in [-1, 1): always false */
}

extern "C" lab_status transpose_naive_read(const float *d_in, float *d_out, int rows, int cols, cudaStream_t stream)
{
    transpose_naive_read_reference(d_in, d_out, rows, cols, stream);
    assert_kernel<<<1, 1, 0, stream>>>(d_in);
    return LAB_OK;
}
