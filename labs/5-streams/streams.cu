/* Lab 5, streams: your work. Each stage below has a spec comment and TODOs;
 * write them in order and grade with `make lab5 && ./grade` (or one stage:
 * ./grade --stage 2). Stages 0 and 4 and the helpers marked "Given" are
 * complete.
 *
 * out = a * poly(x) + y with x, y and out on the host (read streams.h: each
 * stage is a setup, a timed run and a teardown). For SAXPY the kernel is
 * nothing next to the copies: 2^25 floats are 256 MiB to copy in and 128 MiB
 * out, about 7 ms over PCIe Gen5, and under 0.15 ms of kernel. So the stages
 * are about the copies: pinned memory makes them fast (1), streams let copies
 * in, kernels and copies out run at the same time (2), and mapped memory lets
 * the kernel read and write the host itself (3). The heavy stages (4, 5) give
 * the kernel as much work as the copies, where overlap pays most.
 */
#include <new>

#include "streams.h"

/* Given: the coefficients in constant memory (every thread reads the same
 * one at the same time: a broadcast), and the kernel every stage uses. */
__constant__ float coeff[STREAMS_MAX_DEGREE + 1];

__global__ void poly_kernel(const float *__restrict__ x, const float *__restrict__ y,
                            float *__restrict__ out, size_t n, float a, int degree)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        float xi = x[i];
        float p = coeff[degree];
        for (int k = degree - 1; k >= 0; k--) /* Horner, as streams_poly */
            p = p * xi + coeff[k];
        out[i] = a * p + y[i];
    }
}

enum { THREADS = 256 };

/* Given: enough blocks for n elements, at most 16 per SM (the kernel's loop
 * does the rest). */
static unsigned grid_for(size_t n)
{
    static int sms;
    if (sms == 0) {
        int device = 0;
        if (cudaGetDevice(&device) != cudaSuccess ||
            cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess)
            sms = 16;
    }
    size_t blocks = (n + THREADS - 1) / THREADS, cap = (size_t)sms * 16;
    return (unsigned)(blocks < cap ? (blocks ? blocks : 1) : cap);
}

/* Given: device buffers for x, y and out, and the coefficients copied to
 * constant memory. Add what your stages need (streams, device pointers of
 * mapped memory) to the struct. */
struct stage_state {
    float *d_x, *d_y, *d_out;
    /* TODO(lab5.s2): your streams, e.g. cudaStream_t stream[8]; int streams; */
};

static stage_state *make_state(const streams_job *job)
{
    stage_state *s = new (std::nothrow) stage_state();
    size_t bytes = job->n * sizeof(float);
    if (!s || cudaMemcpyToSymbol(coeff, job->c, (job->degree + 1) * sizeof(float)) != cudaSuccess ||
        cudaMalloc(&s->d_x, bytes) != cudaSuccess || cudaMalloc(&s->d_y, bytes) != cudaSuccess ||
        cudaMalloc(&s->d_out, bytes) != cudaSuccess) {
        if (s) {
            cudaFree(s->d_x);
            cudaFree(s->d_y);
            cudaFree(s->d_out);
        }
        delete s;
        return nullptr;
    }
    return s;
}

static void free_state(stage_state *s)
{
    if (!s)
        return;
    cudaFree(s->d_x);
    cudaFree(s->d_y);
    cudaFree(s->d_out);
    delete s;
}

/* ------------------------------------------------------------------------ */
/* Given: stage 0, pageable memory and synchronous copies. x, y and out are */
/* ordinary malloc'ed memory. cudaMemcpy from pageable memory is staged by  */
/* the driver through a pinned buffer of its own, a piece at a time, and    */
/* returns when the copy is done: copies and kernel run one after the other. */
/* ------------------------------------------------------------------------ */

extern "C" lab_status pageable_setup(const streams_job *job, void **state)
{
    *state = make_state(job);
    return *state ? LAB_OK : LAB_ERROR;
}

extern "C" lab_status pageable_run(const streams_job *job, void *state)
{
    stage_state *s = static_cast<stage_state *>(state);
    size_t bytes = job->n * sizeof(float);
    if (cudaMemcpy(s->d_x, job->x, bytes, cudaMemcpyHostToDevice) != cudaSuccess ||
        cudaMemcpy(s->d_y, job->y, bytes, cudaMemcpyHostToDevice) != cudaSuccess)
        return LAB_ERROR;
    poly_kernel<<<grid_for(job->n), THREADS>>>(s->d_x, s->d_y, s->d_out, job->n, job->a,
                                               job->degree);
    return cudaMemcpy(job->out, s->d_out, bytes, cudaMemcpyDeviceToHost) == cudaSuccess
               ? LAB_OK
               : LAB_ERROR;
}

extern "C" void pageable_teardown(void *state)
{
    free_state(static_cast<stage_state *>(state));
}

/* ------------------------------------------------------------------------ */
/* Stage 1: pinned memory, asynchronous copies on one stream. The grader now */
/* gives pinned (page-locked) host buffers, which the copy engine reads by  */
/* DMA at the full PCIe rate. In setup create a stream; in run queue the two */
/* copies in (cudaMemcpyAsync), the kernel and the copy out on it, then wait */
/* for the stream once (cudaStreamSynchronize). Destroy it in teardown.     */
/* Expect: half of the ceiling or more (several times stage 0).             */
/* ------------------------------------------------------------------------ */

extern "C" lab_status pinned_setup(const streams_job *job, void **state)
{
    /* TODO(lab5.s1): make the state and your stream. */
    (void)job;
    *state = nullptr;
    return LAB_TODO;
}

extern "C" lab_status pinned_run(const streams_job *job, void *state)
{
    /* TODO(lab5.s1): copies in, kernel, copy out on your stream; wait for it. */
    (void)job, (void)state;
    return LAB_TODO;
}

extern "C" void pinned_teardown(void *state)
{
    /* TODO(lab5.s1): destroy your stream too. */
    free_state(static_cast<stage_state *>(state));
}

/* ------------------------------------------------------------------------ */
/* Stage 2: chunks over several streams. Cut n into job->chunks pieces (the */
/* last may be shorter; there may be more chunks than you think is wise, or */
/* more than n), deal them round-robin to a few streams (4 is plenty), and  */
/* queue each chunk's copies in, kernel and copy out on its stream. Chunk 2 */
/* can then copy in while chunk 1 computes and chunk 0 copies out. Wait for */
/* every stream at the end. Try both issue orders (the handout's "Overlap,  */
/* and what it can gain").                                                  */
/* Expect: 1.15x over stage 1 (SAXPY can gain at most 1.5x).                */
/* ------------------------------------------------------------------------ */

extern "C" lab_status overlap_setup(const streams_job *job, void **state)
{
    /* TODO(lab5.s2): the state and your streams. */
    (void)job;
    *state = nullptr;
    return LAB_TODO;
}

extern "C" lab_status overlap_run(const streams_job *job, void *state)
{
    /* TODO(lab5.s2): queue the chunks; wait for every stream. */
    (void)job, (void)state;
    return LAB_TODO;
}

extern "C" void overlap_teardown(void *state)
{
    /* TODO(lab5.s2): destroy your streams too. */
    free_state(static_cast<stage_state *>(state));
}

/* ------------------------------------------------------------------------ */
/* Stage 3: zero-copy. The grader gives pinned memory mapped into the GPU's */
/* address space (cudaHostAllocMapped, or cudaHostRegisterMapped in a speed */
/* test: the same to your code). In setup get the device's view of x, y and */
/* out with cudaHostGetDevicePointer (no device buffers needed); in run     */
/* launch the kernel on those pointers and wait for it. Every access        */
/* crosses PCIe, so it must be coalesced.                                   */
/* Expect: at least 0.85x stage 2.                                          */
/* ------------------------------------------------------------------------ */

extern "C" lab_status zero_copy_setup(const streams_job *job, void **state)
{
    /* TODO(lab5.s3): the device pointers of the mapped buffers. */
    (void)job;
    *state = nullptr;
    return LAB_TODO;
}

extern "C" lab_status zero_copy_run(const streams_job *job, void *state)
{
    /* TODO(lab5.s3): the kernel on the mapped memory; wait for it. */
    (void)job, (void)state;
    return LAB_TODO;
}

extern "C" void zero_copy_teardown(void *state)
{
    /* TODO(lab5.s3): free what your setup made. */
    (void)state;
}

/* ------------------------------------------------------------------------ */
/* Given: stage 4, the heavy job with stage 0's code: copies in, kernel and */
/* copy out one after the other, now on pinned buffers (so the copies run   */
/* at the full PCIe rate). The grader picks the degree, from the measured   */
/* times of the copies and of the kernel, so that the kernel takes about as */
/* long as the copies. It is the fixed base for stage 5.                    */
/* ------------------------------------------------------------------------ */

extern "C" lab_status heavy_serial_setup(const streams_job *job, void **state)
{
    return pageable_setup(job, state);
}

extern "C" lab_status heavy_serial_run(const streams_job *job, void *state)
{
    return pageable_run(job, state);
}

extern "C" void heavy_serial_teardown(void *state)
{
    pageable_teardown(state);
}

/* ------------------------------------------------------------------------ */
/* Stage 5: the heavy job over streams. Start by calling your stage 2; then */
/* try other chunk and stream counts. On one stream the time is the sum of  */
/* copies in, kernel and copies out; over streams it tends to the longest of */
/* the three lanes.                                                         */
/* Expect: 1.3x over stage 4 (up to 2x).                                    */
/* ------------------------------------------------------------------------ */

extern "C" lab_status heavy_overlap_setup(const streams_job *job, void **state)
{
    /* TODO(lab5.s5): your setup (stage 2's will do). */
    (void)job;
    *state = nullptr;
    return LAB_TODO;
}

extern "C" lab_status heavy_overlap_run(const streams_job *job, void *state)
{
    /* TODO(lab5.s5): your run. */
    (void)job, (void)state;
    return LAB_TODO;
}

extern "C" void heavy_overlap_teardown(void *state)
{
    /* TODO(lab5.s5): your teardown. */
    (void)state;
}
