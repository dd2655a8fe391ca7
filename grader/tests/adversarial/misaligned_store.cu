/* Adversarial case: stage 1 stores a float at an address that is not a
 * multiple of 4.
 * grade-args: --stage 1
 * expect: 1 correctness GPU FAULT
 * expect-output: cudaErrorMisalignedAddress
 */
#define transpose_naive_read transpose_naive_read_reference
#include "../../../solutions/1-transpose/transpose.cu"
#undef transpose_naive_read

__global__ void misaligned_kernel(float *out)
{
    *(float *)((char *)out + 2) = 1.0f;
}

extern "C" lab_status transpose_naive_read(const float *d_in, float *d_out, int rows, int cols, cudaStream_t stream)
{
    transpose_naive_read_reference(d_in, d_out, rows, cols, stream);
    misaligned_kernel<<<1, 1, 0, stream>>>(d_out);
    return LAB_OK;
}
