/* Adversarial case (lab 3): the multi-pass scan (stage 5) is
 * cub::DeviceScan::InclusiveSum and the compaction (stage 7)
 * cub::DeviceSelect::If, with CUB's headers included under hidden
 * visibility and without NVTX, so that the dynamic symbol table holds no
 * CUB name at all. The full symbol table (.symtab) still names CUB's scan
 * and select kernels: rejected before anything runs.
 * lab: 3
 * needs-gpu: no
 * expect-exit: 1
 * expect-output: REJECTED: it holds cub::detail::
 * expect-output: a kernel compiled in from CUB's headers
 */
#ifndef CCCL_DISABLE_NVTX /* make's lab flags define it already */
#define CCCL_DISABLE_NVTX
#endif
#include <assert.h> /* the C library's declarations stay default: they are imported */
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>
#pragma GCC visibility push(hidden)
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>
#pragma GCC visibility pop

#define scan_multipass scan_multipass_reference
#define compact_positive compact_positive_reference
#include "../../../solutions/3-shuffle/shuffle.cu"
#undef scan_multipass
#undef compact_positive

namespace {
struct positive {
    __device__ bool operator()(int x) const { return x > 0; }
};
} // namespace

extern "C" lab_status scan_multipass(const int *d_in, size_t n, int *d_out, void *d_work,
                                     cudaStream_t stream)
{
    size_t bytes = shuffle_work_bytes(n);
    return cub::DeviceScan::InclusiveSum(d_work, bytes, d_in, d_out, (int)n, stream) ==
                   cudaSuccess
               ? LAB_OK
               : LAB_ERROR;
}

extern "C" lab_status compact_positive(const int *d_in, size_t n, int *d_out, int *d_count,
                                       void *d_work, cudaStream_t stream)
{
    size_t bytes = shuffle_work_bytes(n);
    return cub::DeviceSelect::If(d_work, bytes, d_in, d_out, d_count, (int)n, positive(),
                                 stream) == cudaSuccess
               ? LAB_OK
               : LAB_ERROR;
}
