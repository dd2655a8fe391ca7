/* A lab library, for check_policy.c, that includes CUB the way most examples
 * do, <cub/cub.cuh>, and uses only what the labs allow from it: warp- and
 * block-level primitives inside kernels of its own. The umbrella header also
 * compiles in CUB's EmptyKernel, which does no work, and (without make's
 * -DCCCL_DISABLE_NVTX) NVTX's loader. Also a __device__ lambda written in host
 * code and handed to a kernel template, which needs make's --extended-lambda.
 * The contract check must accept it. */
#include <cub/cub.cuh>
#include <cuda_runtime.h>

template <int BLOCK> __global__ void __launch_bounds__(BLOCK) block_total(const float *in, float *out, int n)
{
    using reduce = cub::BlockReduce<float, BLOCK>;
    __shared__ typename reduce::TempStorage temp;
    int i = blockIdx.x * BLOCK + threadIdx.x;
    float v = reduce(temp).Sum(i < n ? in[i] : 0.0f);
    if (threadIdx.x == 0)
        atomicAdd(out, v);
}

__global__ void warp_totals(const float *in, float *out, int n)
{
    using reduce = cub::WarpReduce<float>;
    __shared__ typename reduce::TempStorage temp[8];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = reduce(temp[threadIdx.x / 32]).Sum(i < n ? in[i] : 0.0f);
    if (threadIdx.x % 32 == 0)
        out[i / 32] = v;
}

template <class F> __global__ void apply(float *x, int n, F f)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] = f(x[i]);
}

extern "C" int cub_umbrella_stage(float *x, float *out, int n, cudaStream_t stream)
{
    int blocks = (n + 255) / 256;
    apply<<<blocks, 256, 0, stream>>>(x, n, [] __device__(float v) { return 2.0f * v; });
    block_total<256><<<blocks, 256, 0, stream>>>(x, out, n);
    warp_totals<<<blocks, 256, 0, stream>>>(x, out + 1, n);
    return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
