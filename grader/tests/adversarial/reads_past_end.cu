/* Adversarial case: stage 1 is correct but also reads a few floats past the
 * end of its input. The read changes no output, so grading cannot see it;
 * memcheck, run by --sanitize, does (the grader hands out plain allocations
 * there, without guard zones).
 * grade-args: --sanitize --stage 1
 * expect-exit: 1
 * expect-output: memcheck FOUND
 * expect-output: Invalid __global__ read
 */
#define transpose_naive_read transpose_naive_read_reference
#include "../../../solutions/1-transpose/transpose.cu"
#undef transpose_naive_read

__device__ float sink;

__global__ void overread_kernel(const float *in, size_t n)
{
    sink = in[n + 8];
}

extern "C" lab_status transpose_naive_read(const float *d_in, float *d_out, int rows, int cols,
                                           cudaStream_t stream)
{
    transpose_naive_read_reference(d_in, d_out, rows, cols, stream);
    overread_kernel<<<1, 1, 0, stream>>>(d_in, (size_t)rows * cols);
    return LAB_OK;
}
