/* For adversarial cases that try to tell the grader's calls apart: whether
 * the stage's stream runs dry within limit_us of the stage's entry. It does
 * in a correctness test's call, once the grader's marker kernel (200 us)
 * is done, and it did in a speed test's audited call while the timing
 * witness left that one alone. It does not in a call the witness holds: the
 * stream waits for the witness's go, which comes only once the stage has
 * returned. cudaStreamQuery is all it needs, and a stage may call it. */
#pragma once
#include <cuda_runtime.h>
#include <time.h>

static int stream_drains(cudaStream_t stream, double limit_us)
{
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    do {
        if (cudaStreamQuery(stream) == cudaSuccess)
            return 1;
        clock_gettime(CLOCK_MONOTONIC, &t);
    } while ((t.tv_sec - t0.tv_sec) * 1e6 + (t.tv_nsec - t0.tv_nsec) * 1e-3 < limit_us);
    return 0;
}
