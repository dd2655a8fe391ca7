/* grader/given/transpose_given.cu: lab 1's given stages (transpose_copy), the
 * course's own copy. The grader calls and times these, built into
 * build/ceilings/lab1-given.so, in place of the submission's, so that a
 * submission cannot slow a given stage to make the next one look fast. The
 * lab's header is included by its path, with no -I, so that no other file in
 * the student's folder can stand in for a header. Below, every paragraph is
 * labs/1-transpose/transpose.cu's, word for word and in order (a test holds
 * them equal): change the skeleton, then copy the change here. */
#include "../../labs/1-transpose/transpose.h"

#include <stdint.h>

/* ------------------------------------------------------------------------ */
/* Given, complete: the yardstick. A plain copy moves exactly the bytes a    */
/* transpose moves, so no transpose can beat it by much. The grader times it */
/* beside cudaMemcpy so you can see what a simple kernel reaches.            */
/* ------------------------------------------------------------------------ */

__global__ void copy_kernel(const float *__restrict__ in, float *__restrict__ out, size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t n4 = n / 4;
    if (i < n4)
        reinterpret_cast<float4 *>(out)[i] = reinterpret_cast<const float4 *>(in)[i];
    if (i < n % 4) /* the last n % 4 elements, one thread each */
        out[n4 * 4 + i] = in[n4 * 4 + i];
}

extern "C" lab_status transpose_copy(const float *d_in, float *d_out, int rows, int cols,
                                     cudaStream_t stream)
{
    size_t n = (size_t)rows * cols;
    size_t threads = n / 4 > 0 ? n / 4 : 1;
    unsigned blocks = (unsigned)((threads + 255) / 256);
    copy_kernel<<<blocks, 256, 0, stream>>>(d_in, d_out, n);
    return LAB_OK;
}
