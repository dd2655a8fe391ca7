/* Adversarial case (lab 3): stage 7 does its work on its stream, then
 * launches one short kernel through cudaLaunchKernel on the legacy default
 * stream (cudaStreamLegacy): far under a millisecond, so timing alone would
 * not notice it. The launch trace sees every launch's stream: REJECTED.
 * lab: 3
 * expect: 7 correctness REJECTED
 * expect-output: cudaLaunchKernel of
 * expect-output: on cudaStreamLegacy, not on the stream it was given
 * grade-args: --stage 7
 */
#define compact_positive compact_positive_reference
#include "../../../solutions/3-shuffle/shuffle.cu"
#undef compact_positive

__global__ void touch_kernel(int *p)
{
    if (threadIdx.x == 0 && p[0] < 0)
        p[0] = 0;
}

extern "C" lab_status compact_positive(const int *d_in, size_t n, int *d_out, int *d_count,
                                       void *d_work, cudaStream_t stream)
{
    lab_status st = compact_positive_reference(d_in, n, d_out, d_count, d_work, stream);
    void *args[] = {&d_work};
    cudaLaunchKernel((const void *)touch_kernel, dim3(1), dim3(32), args, 0, cudaStreamLegacy);
    return st;
}
