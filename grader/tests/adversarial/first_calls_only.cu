/* Adversarial case: stage 5 is correct for its first 16 calls and writes
 * zeros after that: enough to pass every correctness size (eight, each
 * called once with the grader's input and once by the checking witness),
 * not the timing, where every call is checked too.
 * grade-args: --stage 5
 * expect: 5 correctness PASS
 * expect: 5 speed WRONG RESULT
 */
#define transpose_vectorized transpose_vectorized_reference
#include "../../../solutions/1-transpose/transpose.cu"
#undef transpose_vectorized

extern "C" lab_status transpose_vectorized(const float *d_in, float *d_out, int rows, int cols, cudaStream_t stream)
{
    static int calls;
    if (++calls <= 16)
        return transpose_vectorized_reference(d_in, d_out, rows, cols, stream);
    cudaMemsetAsync(d_out, 0, (size_t)rows * cols * sizeof(float), stream);
    return LAB_OK;
}
