/* Adversarial case (lab 2): stage 5 written the pre-Volta way, the last warp
 * through a volatile pointer with no __syncwarp(). It usually gives the right
 * sum, so only a sanitizer run shows the race between the lanes.
 * lab: 2
 * grade-args: --sanitize --stage 5
 * expect-exit: 1
 * expect-output: racecheck FOUND
 */
#define reduce_unroll_warp reduce_unroll_warp_reference
#include "../../../solutions/2-reduce/reduce.cu"
#undef reduce_unroll_warp

__device__ void lockstep_finish(volatile float *sdata, unsigned tid)
{
    sdata[tid] += sdata[tid + 32];
    sdata[tid] += sdata[tid + 16];
    sdata[tid] += sdata[tid + 8];
    sdata[tid] += sdata[tid + 4];
    sdata[tid] += sdata[tid + 2];
    sdata[tid] += sdata[tid + 1];
}

__global__ void lockstep_kernel(const float *__restrict__ in, size_t n, float *__restrict__ sums)
{
    extern __shared__ float sdata[];
    unsigned tid = threadIdx.x;
    sdata[tid] = load_two(in, n, tid);
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 32; s >>= 1) {
        if (tid < s)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid < 32)
        lockstep_finish(sdata, tid);
    if (tid == 0)
        sums[blockIdx.x] = sdata[0];
}

extern "C" lab_status reduce_unroll_warp(const float *d_in, size_t n, float *d_out, float *d_work,
                                         cudaStream_t stream)
{
    return reduce_in_passes(lockstep_kernel, THREADS, 2 * THREADS, d_in, n, d_out, d_work,
                            stream);
}
