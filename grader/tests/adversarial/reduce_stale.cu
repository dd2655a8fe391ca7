/* Adversarial case (lab 2), replay without a key: from its fifth call at the
 * benchmark size up to its 21st (the timed ones; the call checked in full
 * after them is summed), stage 7 skips every third call and writes the sum it
 * computed last instead (kept in __device__ memory). Six skipped calls of
 * twenty leave the median on summed ones, so the time alone looks honest.
 * The correctness test calls that size twice, both summed: PASS. In the speed
 * test every call gets a whole new input from the grader's timing witness,
 * so a kept sum is wrong (and so it is in the audited call, whose input is
 * patched): WRONG RESULT.
 * lab: 2
 * expect: 7 correctness PASS
 * expect: 7 speed WRONG RESULT
 * expect-output: kept from an earlier call
 * grade-args: --stage 7
 */
#define reduce_many reduce_many_reference
#include "../../../solutions/2-reduce/reduce.cu"
#undef reduce_many

__device__ float kept_sum;

__global__ void keep(const float *d_out)
{
    kept_sum = *d_out;
}

__global__ void give_kept(float *d_out)
{
    *d_out = kept_sum;
}

extern "C" lab_status reduce_many(const float *d_in, size_t n, float *d_out, float *d_work,
                                  cudaStream_t stream)
{
    static int calls;
    if (n == ((size_t)1 << 28) && ++calls >= 5 && calls <= 21 && calls % 3 == 0) {
        give_kept<<<1, 1, 0, stream>>>(d_out);
        return cudaGetLastError() == cudaSuccess ? LAB_OK : LAB_ERROR;
    }
    lab_status st = reduce_many_reference(d_in, n, d_out, d_work, stream);
    if (n == ((size_t)1 << 28))
        keep<<<1, 1, 0, stream>>>(d_out);
    return st;
}
