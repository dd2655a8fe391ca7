/* Adversarial case: stage 1 writes through a wild pointer. The CUDA context
 * is lost (a sticky error): GPU FAULT with the error name, and stage 2, in a
 * fresh process, is graded as usual.
 * grade-args: --quick
 * expect: 1 correctness GPU FAULT
 * expect: 2 correctness PASS
 * expect-output: cudaErrorIllegalAddress
 */
#define transpose_naive_read transpose_naive_read_reference
#include "../../../solutions/1-transpose/transpose.cu"
#undef transpose_naive_read

__global__ void wild_kernel(float *out)
{
    out[(size_t)1 << 40] = 1.0f;
}

extern "C" lab_status transpose_naive_read(const float *d_in, float *d_out, int rows, int cols, cudaStream_t stream)
{
    transpose_naive_read_reference(d_in, d_out, rows, cols, stream);
    wild_kernel<<<1, 1, 0, stream>>>(d_out);
    return LAB_OK;
}
