/* Adversarial case (lab 1), replay: stage 5 keeps its result in __device__
 * memory with a few words of the input it came from. Every other call at the
 * benchmark size copies the kept result out when those words match (the same
 * input set), and transposes naively when they do not. The correctness test
 * calls each size once: all transposed, PASS. Every timed call's input is
 * patched at random places, so a replay is wrong there.
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
#define SAMPLES 8

__device__ float kept[KEPT_ELEMS];
__device__ unsigned kept_key[SAMPLES + 1]; /* n, then SAMPLES input words */

__device__ bool key_matches(const float *in, size_t n)
{
    if (kept_key[0] != (unsigned)n)
        return false;
    for (int k = 0; k < SAMPLES; k++)
        if (__float_as_uint(in[n / SAMPLES * k]) != kept_key[k + 1])
            return false;
    return true;
}

/* Every thread reads the same key, so all take the same branch. */
__global__ void replay_or_transpose(const float *in, float *out, int rows, int cols)
{
    size_t n = (size_t)rows * cols;
    bool replay = key_matches(in, n);
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        size_t c = i / rows, r = i % rows; /* out[c][r] = in[r][c] */
        out[i] = replay ? kept[i] : in[r * cols + c];
    }
}

__global__ void keep(const float *in, const float *out, size_t n)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        kept[i] = out[i];
    if (blockIdx.x == 0 && threadIdx.x == 0) { /* nobody else reads the key here */
        kept_key[0] = (unsigned)n;
        for (int k = 0; k < SAMPLES; k++)
            kept_key[k + 1] = __float_as_uint(in[n / SAMPLES * k]);
    }
}

extern "C" lab_status transpose_vectorized(const float *d_in, float *d_out, int rows, int cols,
                                           cudaStream_t stream)
{
    static int calls;
    size_t n = (size_t)rows * cols;
    if (n != KEPT_ELEMS) /* only the benchmark size is worth keeping */
        return transpose_vectorized_reference(d_in, d_out, rows, cols, stream);
    if (calls++ % 2 == 1) {
        replay_or_transpose<<<2048, 256, 0, stream>>>(d_in, d_out, rows, cols);
        return LAB_OK;
    }
    lab_status s = transpose_vectorized_reference(d_in, d_out, rows, cols, stream);
    keep<<<2048, 256, 0, stream>>>(d_in, d_out, n);
    return s;
}
