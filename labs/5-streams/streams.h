/* streams.h: the contract between lab 5 and the grader. Read it; do not edit it.
 *
 * The data live on the host: x and y in, out back, all n floats. Every
 * stage computes
 *
 *     out[i] = a * poly(x[i]) + y[i],   poly(x) = c[0] + c[1] x + ... + c[d] x^d
 *
 * with the coefficients the grader gives. Degree 1 with c = {0, 1} is SAXPY
 * (a x + y), bound by the copies; the heavy stages get a high degree, chosen
 * by the grader so that the kernel takes about as long as the copies.
 *
 * This lab is timed host to host, so a stage is three functions:
 *
 *   <stage>_setup(job, &state)   untimed: allocate device buffers, create
 *                                streams and events, look up device pointers;
 *   <stage>_run(job, state)      timed: copy in, compute, copy out; it returns
 *                                only when job->out holds the result (it must
 *                                synchronise: the grader reads out right after);
 *   <stage>_teardown(state)      untimed: free what setup made.
 *
 * The grader owns x, y and out, allocates them in the kind of host memory
 * the stage's table entry names (pageable, pinned, or pinned and mapped), and
 * fills out with NaN before every run. setup may be called once and run many
 * times; run must give the full result every time (nothing cached from an
 * earlier run: the inputs change between runs). A stage may not print, time
 * itself, or allocate host memory in run. A stage not written yet returns
 * LAB_TODO from setup. */
#ifndef CUDA_LABS_STREAMS_H
#define CUDA_LABS_STREAMS_H

#include <stddef.h>
#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef CUDA_LABS_LAB_STATUS
#define CUDA_LABS_LAB_STATUS
typedef enum lab_status {
    LAB_OK = 0,   /* done (run: out holds the result) */
    LAB_TODO = 1, /* this stage is not written yet */
    LAB_ERROR = 2 /* the stage found a problem it could not handle */
} lab_status;
#endif

/* The coefficients fit in constant memory (16 KiB). */
#define STREAMS_MAX_DEGREE 4095

typedef struct streams_job {
    size_t n;       /* elements of x, y and out; any n >= 1 */
    float a;
    int degree;     /* of poly, 1 to STREAMS_MAX_DEGREE */
    const float *c; /* its degree + 1 coefficients, c[0] first (host memory) */
    int chunks;     /* stages that overlap: how many chunks to cut n into
                       (any number >= 1; n need not divide evenly) */
    const float *x, *y; /* host memory of the stage's kind */
    float *out;
} streams_job;

typedef lab_status (*streams_setup_fn)(const streams_job *job, void **state);
typedef lab_status (*streams_run_fn)(const streams_job *job, void *state);
typedef void (*streams_teardown_fn)(void *state);

/* poly(x) by Horner's rule, the order every stage must use (the grader's
 * reference does the same in double precision). */
static inline
#ifdef __CUDACC__
    __host__ __device__
#endif
    float
    streams_poly(const float *c, int degree, float x)
{
    float p = c[degree];
    for (int k = degree - 1; k >= 0; k--)
        p = p * x + c[k];
    return p;
}

#ifdef __cplusplus
}
#endif

#endif
