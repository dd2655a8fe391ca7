/* Adversarial case (lab 1), replay: stage 5 keeps its result in __device__
 * memory and, from its fourth call at the benchmark size to its 21st (the
 * timed ones; the call checked in full after them transposes), copies the
 * kept result out every other call instead of transposing. The correctness test
 * calls each size once: all transposed, PASS. Every timed call sees an input
 * no call saw before (a fresh one from the grader's timing witness, or, where
 * there is no witness, one patched at random places), so a replay is wrong.
 * lab: 1
 * expect: 5 correctness PASS
 * expect: 5 speed WRONG RESULT
 * expect-output: kept from an earlier call
 * grade-args: --stage 5
 */
#define transpose_vectorized transpose_vectorized_reference
#include "../../../solutions/1-transpose/transpose.cu"
#undef transpose_vectorized

#define KEPT_ELEMS ((size_t)8192 * 8192)

__device__ float kept[KEPT_ELEMS];

__global__ void replay(float *out, size_t n)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        out[i] = kept[i];
}

__global__ void keep(const float *out, size_t n)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        kept[i] = out[i];
}

extern "C" lab_status transpose_vectorized(const float *d_in, float *d_out, int rows, int cols,
                                           cudaStream_t stream)
{
    static int calls;
    size_t n = (size_t)rows * cols;
    if (n != KEPT_ELEMS) /* only the benchmark size is worth keeping */
        return transpose_vectorized_reference(d_in, d_out, rows, cols, stream);
    if (++calls > 3 && calls <= 21 && calls % 2 == 0) {
        replay<<<2048, 256, 0, stream>>>(d_out, n);
        return LAB_OK;
    }
    lab_status s = transpose_vectorized_reference(d_in, d_out, rows, cols, stream);
    keep<<<2048, 256, 0, stream>>>(d_out, n);
    return s;
}
