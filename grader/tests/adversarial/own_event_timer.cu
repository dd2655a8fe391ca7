/* Adversarial case: the library defines its own cudaEventElapsedTime(),
 * reporting a tiny time, to fake speed. Rejected before it is loaded.
 * needs-gpu: no
 * expect-exit: 1
 * expect-output: REJECTED: it defines its own cudaEventElapsedTime()
 */
#include "../../../solutions/1-transpose/transpose.cu"

extern "C" cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end)
{
    (void)start, (void)end;
    *ms = 0.001f;
    return cudaSuccess;
}
