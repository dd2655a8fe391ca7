/* A lab library, for check_policy.c, with a kernel of its own named the way
 * CUB names its device-wide kernels (a namespace called detail, a name
 * Device...Kernel): refused, since CUB with its namespace renamed looks the
 * same, and the message says what to rename. */
#include <cuda_runtime.h>

namespace mylab {
namespace detail {
__global__ void DeviceSumKernel(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        atomicAdd(out, in[i]);
}
} // namespace detail
} // namespace mylab

extern "C" int detail_named_stage(const float *in, float *out, int n, cudaStream_t stream)
{
    mylab::detail::DeviceSumKernel<<<(n + 255) / 256, 256, 0, stream>>>(in, out, n);
    return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
