/* Adversarial case: stage 1 writes a NaN into every element.
 * grade-args: --stage 1 --quick
 * expect: 1 correctness NAN IN OUTPUT
 */
#define transpose_naive_read transpose_naive_read_reference
#include "../../../solutions/1-transpose/transpose.cu"
#undef transpose_naive_read

__global__ void nan_kernel(float *out, size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = __int_as_float(0x7fc00000);
}

extern "C" lab_status transpose_naive_read(const float *d_in, float *d_out, int rows, int cols, cudaStream_t stream)
{
    (void)d_in;
    size_t n = (size_t)rows * cols;
    nan_kernel<<<(unsigned)((n + 255) / 256), 256, 0, stream>>>(d_out, n);
    return LAB_OK;
}
