/* Adversarial case: stage 3's kernel never finishes. The grader must kill it
 * at the stage's time limit, say TIMEOUT with the size, and grade stage 4 as
 * usual (its speed is not timed, since the stage it must beat failed).
 * grade-env: CK_TIMEOUT_MULTIPLIER=0.5
 * expect: 3 correctness TIMEOUT
 * expect: 3 speed SKIPPED
 * expect: 4 correctness PASS
 * expect: 4 speed SKIPPED
 * expect: 5 correctness PASS
 * expect: 5 speed PASS
 * expect-output: killed after 11 s
 * expect-output: stage 3  shared-memory tile                 TIMEOUT
 */
#define transpose_tiled transpose_tiled_reference
#include "../../../solutions/1-transpose/transpose.cu"
#undef transpose_tiled

__device__ volatile int never_set = 0;

__global__ void spin_kernel(float *out)
{
    while (never_set == 0) {
    }
    out[0] = 0.0f;
}

extern "C" lab_status transpose_tiled(const float *d_in, float *d_out, int rows, int cols,
                                      cudaStream_t stream)
{
    (void)d_in, (void)rows, (void)cols;
    spin_kernel<<<1, 1, 0, stream>>>(d_out);
    return LAB_OK;
}
