/* Adversarial case (lab 2): stage 4 forgets the second element of each
 * thread's pair, so it sums about half of the input. Stages 1 to 3 are the
 * reference's and pass.
 * lab: 2
 * expect: 4 correctness WRONG RESULT
 * expect: 4 speed SKIPPED
 * grade-args: --stage 4
 */
#define reduce_first_add reduce_first_add_reference
#include "../../../solutions/2-reduce/reduce.cu"
#undef reduce_first_add

__global__ void half_kernel(const float *__restrict__ in, size_t n, float *__restrict__ sums)
{
    extern __shared__ float sdata[];
    unsigned tid = threadIdx.x;
    size_t i = (size_t)blockIdx.x * (2 * blockDim.x) + tid;
    sdata[tid] = i < n ? in[i] : 0.0f; /* the in[i + blockDim.x] half is lost */
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0)
        sums[blockIdx.x] = sdata[0];
}

extern "C" lab_status reduce_first_add(const float *d_in, size_t n, float *d_out, float *d_work,
                                       cudaStream_t stream)
{
    return reduce_in_passes(half_kernel, THREADS, 2 * THREADS, d_in, n, d_out, d_work, stream);
}
