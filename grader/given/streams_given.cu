/* grader/given/streams_given.cu: lab 5's given stages (pageable_* and
 * heavy_serial_*), the course's own copy. The grader calls and times these,
 * built into build/ceilings/lab5-given.so, in place of the submission's, so
 * that a submission cannot slow a given stage to make the next one look fast.
 * The lab's header is included by its path, with no -I, so that no other file
 * in the student's folder can stand in for a header. Below, every paragraph is
 * labs/5-streams/streams.cu's, word for word and in order (a test holds them
 * equal): change the skeleton, then copy the change here. */
#include "../../labs/5-streams/streams.h"

#include <new>

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
