/* Adversarial case: stage 2 never returns: an endless loop on the host.
 * Killed at the time limit; stage 3 is graded as usual.
 * grade-env: CK_TIMEOUT_MULTIPLIER=0.5
 * grade-args: --quick
 * expect: 2 correctness TIMEOUT
 * expect: 3 correctness PASS
 * expect-output: killed after 8 s
 */
#define transpose_naive_write transpose_naive_write_reference
#include "../../../solutions/1-transpose/transpose.cu"
#undef transpose_naive_write

static volatile int forever = 1;

extern "C" lab_status transpose_naive_write(const float *d_in, float *d_out, int rows, int cols, cudaStream_t stream)
{
    while (forever) {
    }
    return transpose_naive_write_reference(d_in, d_out, rows, cols, stream);
}
