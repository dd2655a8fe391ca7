/* Adversarial case (lab 2): stage 3 without the __syncthreads() between the
 * steps of its tree. Warps read partial sums other warps have not written
 * yet; across the half million blocks of the large sizes some always do.
 * lab: 2
 * expect: 3 correctness WRONG RESULT
 * grade-args: --stage 3
 */
#define reduce_sequential reduce_sequential_reference
#include "../../../solutions/2-reduce/reduce.cu"
#undef reduce_sequential

__global__ void racy_kernel(const float *__restrict__ in, size_t n, float *__restrict__ sums)
{
    extern __shared__ float sdata[];
    unsigned tid = threadIdx.x;
    size_t i = (size_t)blockIdx.x * blockDim.x + tid;
    sdata[tid] = i < n ? in[i] : 0.0f;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s)
            sdata[tid] += sdata[tid + s];
        /* the __syncthreads() is missing here */
    }
    if (tid == 0)
        sums[blockIdx.x] = sdata[0];
}

extern "C" lab_status reduce_sequential(const float *d_in, size_t n, float *d_out, float *d_work,
                                        cudaStream_t stream)
{
    return reduce_in_passes(racy_kernel, THREADS, THREADS, d_in, n, d_out, d_work, stream);
}
