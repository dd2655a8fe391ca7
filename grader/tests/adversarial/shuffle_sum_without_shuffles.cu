/* Adversarial case (lab 3): stage 2 is fast and correct, but sums each block
 * in a shared-memory tree, with no warp shuffle at all: lab 2's stage 7
 * handed in again. Its speed passes (the loop makes it, handout 3), and the
 * technique check, required built in for this stage, takes the speed points:
 * TECHNIQUE MISSING.
 * lab: 3
 * expect: 2 correctness PASS
 * expect: 2 speed TECHNIQUE MISSING
 * expect-output: its kernels have no warp shuffles (SHFL)
 * grade-args: --stage 2
 */
#define reduce_shuffle reduce_shuffle_reference
#include "../../../solutions/3-shuffle/shuffle.cu"
#undef reduce_shuffle

enum { TREE_THREADS = 256 };

__global__ void __launch_bounds__(TREE_THREADS)
    tree_sum_kernel(const float *__restrict__ in, size_t n, float *__restrict__ sums)
{
    __shared__ float part[TREE_THREADS];
    const float4 *in4 = reinterpret_cast<const float4 *>(in);
    const size_t n4 = n / 4, step = (size_t)gridDim.x * TREE_THREADS;
    float acc = 0.0f;
    for (size_t i = (size_t)blockIdx.x * TREE_THREADS + threadIdx.x; i < n4; i += step) {
        float4 v = in4[i];
        acc += (v.x + v.y) + (v.z + v.w);
    }
    if (blockIdx.x == 0 && threadIdx.x < n % 4)
        acc += in[n4 * 4 + threadIdx.x];
    part[threadIdx.x] = acc;
    __syncthreads();
    for (unsigned half = TREE_THREADS / 2; half > 0; half /= 2) {
        if (threadIdx.x < half)
            part[threadIdx.x] += part[threadIdx.x + half];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        sums[blockIdx.x] = part[0];
}

extern "C" lab_status reduce_shuffle(const float *d_in, size_t n, float *d_out, void *d_work,
                                     cudaStream_t stream)
{
    static int grid;
    if (grid == 0 && (grid = grid_for(tree_sum_kernel, TREE_THREADS)) == 0)
        return LAB_ERROR;
    float *sums = (float *)d_work;
    tree_sum_kernel<<<grid, TREE_THREADS, 0, stream>>>(d_in, n, sums);
    tree_sum_kernel<<<1, TREE_THREADS, 0, stream>>>(sums, (size_t)grid, d_out);
    return LAB_OK;
}
