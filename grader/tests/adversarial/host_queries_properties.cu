/* Student-like correct variant (lab 1): stage 5 asks for the device's
 * properties with cudaGetDeviceProperties on every call (slow: it can take
 * milliseconds of host time, during which the GPU waits) before launching
 * the reference kernel. Nothing of it is hidden from the kernel audit; any
 * dark time it leaves is reported, never counted against the stage, which
 * is not REJECTED. (Its speed is another matter: the GPU's wait is inside
 * the measured time.) PASS on the H200 (2026-12-02).
 * grade-args: --stage 5 --quick
 * expect-exit: 0
 * expect: 5 correctness PASS
 */
#define transpose_vectorized transpose_vectorized_reference
#include "../../../solutions/1-transpose/transpose.cu"
#undef transpose_vectorized

extern "C" lab_status transpose_vectorized(const float *d_in, float *d_out, int rows, int cols,
                                           cudaStream_t stream)
{
    cudaDeviceProp prop;
    if (cudaGetDeviceProperties(&prop, 0) != cudaSuccess || prop.warpSize != 32)
        return LAB_ERROR;
    return transpose_vectorized_reference(d_in, d_out, rows, cols, stream);
}
