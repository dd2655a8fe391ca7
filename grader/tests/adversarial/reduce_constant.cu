/* Adversarial case (lab 2): stage 7 writes a constant, the expected value of
 * the uniform input set's sum (0.1 n), without reading the input: instant,
 * and close at the benchmark size, but never within the tolerance.
 * lab: 2
 * expect: 7 correctness WRONG RESULT
 * grade-args: --stage 7
 */
#define reduce_many reduce_many_reference
#include "../../../solutions/2-reduce/reduce.cu"
#undef reduce_many

__global__ void guess_kernel(size_t n, float *out)
{
    out[0] = 0.1f * (float)n;
}

extern "C" lab_status reduce_many(const float *d_in, size_t n, float *d_out, float *d_work,
                                  cudaStream_t stream)
{
    (void)d_in, (void)d_work;
    guess_kernel<<<1, 1, 0, stream>>>(n, d_out);
    return LAB_OK;
}
