/* Adversarial case: stage 1 asks for 2048 threads per block. The launch
 * fails; cudaDeviceSynchronize alone would say nothing.
 * grade-args: --stage 1
 * expect: 1 correctness LAUNCH ERROR
 * expect-output: block (64, 32, 1) = 2048 threads
 * expect-output: at most 1024 threads per block
 */
#define transpose_naive_read transpose_naive_read_reference
#include "../../../solutions/1-transpose/transpose.cu"
#undef transpose_naive_read

extern "C" lab_status transpose_naive_read(const float *d_in, float *d_out, int rows, int cols, cudaStream_t stream)
{
    dim3 block(64, 32);
    dim3 grid((cols + 63) / 64, (rows + 31) / 32);
    naive_read_kernel<<<grid, block, 0, stream>>>(d_in, d_out, rows, cols);
    return LAB_OK;
}
