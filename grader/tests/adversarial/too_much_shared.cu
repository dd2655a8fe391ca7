/* Adversarial case: stage 1 asks for 100 KB of dynamic shared memory without
 * opting in with cudaFuncSetAttribute.
 * grade-args: --stage 1
 * expect: 1 correctness LAUNCH ERROR
 * expect-output: and 102400 bytes of dynamic shared memory
 * expect-output: bytes of shared memory per block
 */
#define transpose_naive_read transpose_naive_read_reference
#include "../../../solutions/1-transpose/transpose.cu"
#undef transpose_naive_read

extern "C" lab_status transpose_naive_read(const float *d_in, float *d_out, int rows, int cols, cudaStream_t stream)
{
    dim3 block(32, 8);
    dim3 grid((cols + 31) / 32, (rows + 7) / 8);
    naive_read_kernel<<<grid, block, 100 * 1024, stream>>>(d_in, d_out, rows, cols);
    return LAB_OK;
}
