/* Adversarial case (lab 2): stage 7 hands the sum to cub::DeviceReduce::Sum,
 * with CCCL_DISABLE_NVTX so that CUB's NVTX ranges (which call dlsym) are
 * compiled out: the library imports nothing that names CUB. CUB is
 * header-only, so its kernels are compiled into the library, and their
 * names (local symbols in .symtab under CUDA 13) give them away: rejected
 * before anything runs.
 * lab: 2
 * needs-gpu: no
 * expect-exit: 1
 * expect-output: REJECTED: it holds cub::detail::reduce::DeviceReduce
 * expect-output: a kernel compiled in from CUB's headers
 */
#ifndef CCCL_DISABLE_NVTX /* make's lab flags define it already */
#define CCCL_DISABLE_NVTX
#endif
#include <cub/device/device_reduce.cuh>

#define reduce_many reduce_many_reference
#include "../../../solutions/2-reduce/reduce.cu"
#undef reduce_many

extern "C" lab_status reduce_many(const float *d_in, size_t n, float *d_out, float *d_work,
                                  cudaStream_t stream)
{
    size_t bytes = 0;
    cub::DeviceReduce::Sum(nullptr, bytes, d_in, d_out, n, stream);
    if (bytes > reduce_work_floats(n) * sizeof(float))
        return reduce_many_reference(d_in, n, d_out, d_work, stream);
    return cub::DeviceReduce::Sum(d_work, bytes, d_in, d_out, n, stream) == cudaSuccess ? LAB_OK
                                                                                       : LAB_ERROR;
}
