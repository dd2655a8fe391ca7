/* Adversarial case: stage 5 keeps a device copy of its last result and
 * returns it when called again with the same pointers. It has to allocate
 * the cache, which the contract forbids: rejected.
 * needs-gpu: no
 * expect-exit: 1
 * expect-output: REJECTED: it calls cudaMalloc()
 */
#define transpose_vectorized transpose_vectorized_reference
#include "../../../solutions/1-transpose/transpose.cu"
#undef transpose_vectorized

extern "C" lab_status transpose_vectorized(const float *d_in, float *d_out, int rows, int cols,
                                           cudaStream_t stream)
{
    static const float *last_in;
    static float *cache;
    size_t bytes = (size_t)rows * cols * sizeof(float);
    if (d_in == last_in && cache)
        cudaMemcpyAsync(d_out, cache, bytes, cudaMemcpyDeviceToDevice, stream);
    else {
        transpose_vectorized_reference(d_in, d_out, rows, cols, stream);
        cudaMalloc(&cache, bytes);
        cudaMemcpyAsync(cache, d_out, bytes, cudaMemcpyDeviceToDevice, stream);
        last_in = d_in;
    }
    return LAB_OK;
}
