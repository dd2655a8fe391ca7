/* Adversarial case (lab 2): stage 7 clears its output with a cudaMemsetAsync
 * on the legacy default stream (0) before the real work on its own stream:
 * short side work of the kind the 1 ms slack of TIMING ANOMALY would let
 * through. The launch trace sees the memset's stream: REJECTED.
 * lab: 2
 * expect: 7 correctness REJECTED
 * expect-output: cudaMemsetAsync on the default stream (0)
 * grade-args: --stage 7
 */
#define reduce_many reduce_many_reference
#include "../../../solutions/2-reduce/reduce.cu"
#undef reduce_many

extern "C" lab_status reduce_many(const float *d_in, size_t n, float *d_out, float *d_work,
                                  cudaStream_t stream)
{
    cudaMemsetAsync(d_work, 0, sizeof(float), 0);
    return reduce_many_reference(d_in, n, d_out, d_work, stream);
}
