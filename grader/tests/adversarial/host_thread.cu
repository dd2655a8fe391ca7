/* Adversarial case: stage 5 does its work on a host thread (std::thread),
 * outside the grader's stream and timing. Rejected before it is loaded.
 * needs-gpu: no
 * expect-exit: 1
 * expect-output: REJECTED: it calls std::thread()
 * expect-output: not on host threads
 */
#include <thread>

#define transpose_vectorized transpose_vectorized_reference
#include "../../../solutions/1-transpose/transpose.cu"
#undef transpose_vectorized

extern "C" lab_status transpose_vectorized(const float *d_in, float *d_out, int rows, int cols,
                                           cudaStream_t stream)
{
    std::thread worker([=] { transpose_padded(d_in, d_out, rows, cols, stream); });
    worker.detach();
    return LAB_OK;
}
