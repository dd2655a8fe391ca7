/* Adversarial case: stage 5 launches on a cudaStreamNonBlocking stream of its
 * own, so events on the grader's stream would not see its work. Rejected.
 * needs-gpu: no
 * expect-exit: 1
 * expect-output: REJECTED: it calls cudaStreamCreateWithFlags()
 */
#define transpose_vectorized transpose_vectorized_reference
#include "../../../solutions/1-transpose/transpose.cu"
#undef transpose_vectorized

extern "C" lab_status transpose_vectorized(const float *d_in, float *d_out, int rows, int cols,
                                           cudaStream_t stream)
{
    static cudaStream_t mine;
    if (!mine)
        cudaStreamCreateWithFlags(&mine, cudaStreamNonBlocking);
    (void)stream;
    return transpose_vectorized_reference(d_in, d_out, rows, cols, mine);
}
