/* Adversarial case: stage 1 dereferences a device pointer on the host.
 * grade-args: --quick
 * expect: 1 correctness CRASH
 * expect: 2 correctness PASS
 * expect-output: signal 11 (Segmentation fault)
 */
#define transpose_naive_read transpose_naive_read_reference
#include "../../../solutions/1-transpose/transpose.cu"
#undef transpose_naive_read

extern "C" lab_status transpose_naive_read(const float *d_in, float *d_out, int rows, int cols, cudaStream_t stream)
{
    d_out[rows * cols - 1] = d_in[0]; /* device memory, touched from the CPU */
    return transpose_naive_read_reference(d_in, d_out, rows, cols, stream);
}
