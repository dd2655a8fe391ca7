/* Adversarial case (lab 1): stage 5 launches its kernel on
 * cudaStreamPerThread, a stream it never had to create (so no
 * cudaStreamCreate to refuse). Events on the grader's stream would not wait
 * for it. The launch trace sees the stream of every launch: REJECTED at the
 * first call.
 * lab: 1
 * expect: 5 correctness REJECTED
 * expect-output: on cudaStreamPerThread, not on the stream it was given
 * grade-args: --stage 5
 */
#define transpose_vectorized transpose_vectorized_reference
#include "../../../solutions/1-transpose/transpose.cu"
#undef transpose_vectorized

extern "C" lab_status transpose_vectorized(const float *d_in, float *d_out, int rows, int cols,
                                           cudaStream_t stream)
{
    (void)stream;
    return transpose_vectorized_reference(d_in, d_out, rows, cols, cudaStreamPerThread);
}
