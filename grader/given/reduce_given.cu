/* grader/given/reduce_given.cu: lab 2's given stages (reduce_one_block), the
 * course's own copy. The grader calls and times these, built into
 * build/ceilings/lab2-given.so, in place of the submission's, so that a
 * submission cannot slow a given stage to make the next one look fast. The
 * lab's header is included by its path, with no -I, so that no other file in
 * the student's folder can stand in for a header. Below, every paragraph is
 * labs/2-reduce/reduce.cu's, word for word and in order (a test holds them
 * equal): change the skeleton, then copy the change here. */
#include "../../labs/2-reduce/reduce.h"

/* ------------------------------------------------------------------------ */
/* Given: one block sums everything.                                          */
/* 1024 threads walk the array with a stride of 1024, each keeping four       */
/* running sums so that four loads are in flight at once, then combine their  */
/* 1024 sums with an atomicAdd on one shared float (fine for one block; the   */
/* stages show the fast way to combine a block's values).                     */
/* ------------------------------------------------------------------------ */

enum { ONE_BLOCK_THREADS = 1024 };

__global__ void one_block_kernel(const float *__restrict__ in, size_t n, float *__restrict__ out)
{
    __shared__ float total;
    const size_t T = blockDim.x;
    size_t i = threadIdx.x;
    float a0 = 0.0f, a1 = 0.0f, a2 = 0.0f, a3 = 0.0f;
    for (; i + 3 * T < n; i += 4 * T) {
        a0 += in[i];
        a1 += in[i + T];
        a2 += in[i + 2 * T];
        a3 += in[i + 3 * T];
    }
    for (; i < n; i += T)
        a0 += in[i];
    if (threadIdx.x == 0)
        total = 0.0f;
    __syncthreads();
    atomicAdd(&total, (a0 + a1) + (a2 + a3));
    __syncthreads();
    if (threadIdx.x == 0)
        out[0] = total;
}

extern "C" lab_status reduce_one_block(const float *d_in, size_t n, float *d_out, float *d_work,
                                       cudaStream_t stream)
{
    (void)d_work;
    one_block_kernel<<<1, ONE_BLOCK_THREADS, 0, stream>>>(d_in, n, d_out);
    return LAB_OK;
}
