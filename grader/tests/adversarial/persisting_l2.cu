/* Adversarial case: stage 5 pins its input in L2 with a persisting access
 * policy window on the grader's stream. Rejected (and the grader resets the
 * window before every call anyway).
 * needs-gpu: no
 * expect-exit: 1
 * expect-output: REJECTED: it calls cudaStreamSetAttribute()
 */
#include <string.h>

#define transpose_vectorized transpose_vectorized_reference
#include "../../../solutions/1-transpose/transpose.cu"
#undef transpose_vectorized

extern "C" lab_status transpose_vectorized(const float *d_in, float *d_out, int rows, int cols,
                                           cudaStream_t stream)
{
    cudaStreamAttrValue v;
    memset(&v, 0, sizeof v);
    v.accessPolicyWindow.base_ptr = (void *)d_in;
    v.accessPolicyWindow.num_bytes = (size_t)rows * cols * sizeof(float);
    v.accessPolicyWindow.hitRatio = 1.0f;
    v.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
    v.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
    cudaStreamSetAttribute(stream, cudaStreamAttributeAccessPolicyWindow, &v);
    return transpose_vectorized_reference(d_in, d_out, rows, cols, stream);
}
