/* Adversarial case (lab 6): stage 4 fetches cuMemAlloc through the runtime's
 * driver-entry-point query, which cudaMalloc's rule does not see, and keeps a
 * scratch buffer of its own. Rejected by the contract check: a lab library
 * may not fetch driver functions.
 * lab: 6
 * needs-gpu: no
 * expect-exit: 1
 * expect-output: REJECTED: it calls cudaGetDriverEntryPointByVersion()
 */
#include <cuda.h>

#define conv_nhwc conv_nhwc_reference
#include "../../../solutions/6-conv/conv.cu"
#undef conv_nhwc

typedef CUresult (*mem_alloc_fn)(CUdeviceptr *, size_t);

extern "C" lab_status conv_nhwc(conv_shape l, const float *d_in, const float *d_filter,
                                float *d_out, void *d_work, cudaStream_t stream)
{
    static CUdeviceptr mine;
    if (!mine) {
        void *fn = NULL;
        cudaDriverEntryPointQueryResult found;
        if (cudaGetDriverEntryPointByVersion("cuMemAlloc", &fn, 12000, cudaEnableDefault,
                                             &found) == cudaSuccess &&
            fn)
            ((mem_alloc_fn)fn)(&mine, conv_work_bytes(l));
    }
    return conv_nhwc_reference(l, d_in, d_filter, d_out, mine ? (void *)mine : d_work, stream);
}
