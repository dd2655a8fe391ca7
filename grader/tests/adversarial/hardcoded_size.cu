/* Adversarial case: stage 5 ignores its arguments and always transposes the
 * benchmark size, 8192 x 8192.
 * grade-args: --stage 5
 * expect: 5 correctness !PASS
 * expect: 5 speed SKIPPED
 */
#define transpose_vectorized transpose_vectorized_reference
#include "../../../solutions/1-transpose/transpose.cu"
#undef transpose_vectorized

extern "C" lab_status transpose_vectorized(const float *d_in, float *d_out, int rows, int cols, cudaStream_t stream)
{
    (void)rows, (void)cols;
    return transpose_vectorized_reference(d_in, d_out, 8192, 8192, stream);
}
