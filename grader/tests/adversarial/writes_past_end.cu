/* Adversarial case: stage 2 computes the right transpose, then writes 200
 * more floats past the end of d_out. CUDA reports nothing; the grader's guard
 * zone must. The next stage is graded normally.
 * grade-args: --quick
 * expect: 2 correctness OUT OF BOUNDS
 * expect: 3 correctness PASS
 * expect-output: the output d_out was written right after its end
 */
#define transpose_naive_write transpose_naive_write_reference
#include "../../../solutions/1-transpose/transpose.cu"
#undef transpose_naive_write

__global__ void overrun_kernel(float *out, size_t n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < 200)
        out[n + i] = 1.0f;
}

extern "C" lab_status transpose_naive_write(const float *d_in, float *d_out, int rows, int cols,
                                            cudaStream_t stream)
{
    transpose_naive_write_reference(d_in, d_out, rows, cols, stream);
    overrun_kernel<<<1, 256, 0, stream>>>(d_out, (size_t)rows * cols);
    return LAB_OK;
}
