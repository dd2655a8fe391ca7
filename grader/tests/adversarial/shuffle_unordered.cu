/* Adversarial case (lab 3): stage 7 places each kept element with an
 * atomicAdd on one counter: the right elements and the right count, in an
 * order that changes from run to run.
 * lab: 3
 * expect: 7 correctness WRONG RESULT
 * expect-output: in another order
 * grade-args: --stage 7
 */
#define compact_positive compact_positive_reference
#include "../../../solutions/3-shuffle/shuffle.cu"
#undef compact_positive

__global__ void atomic_compact(const int *__restrict__ in, size_t n, int *__restrict__ out,
                               int *__restrict__ count)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && in[i] > 0)
        out[atomicAdd(count, 1)] = in[i];
}

extern "C" lab_status compact_positive(const int *d_in, size_t n, int *d_out, int *d_count,
                                       void *d_work, cudaStream_t stream)
{
    (void)d_work;
    cudaMemsetAsync(d_count, 0, sizeof(int), stream);
    atomic_compact<<<(unsigned)((n + 255) / 256), 256, 0, stream>>>(d_in, n, d_out, d_count);
    return LAB_OK;
}
