/* cuda_check.h: report a failed CUDA runtime call with its text, file, line,
 * error name and message. Usable from C and CUDA C++.
 *
 *     if (CUDA_CHECK(cudaMalloc(&d_x, bytes)) != cudaSuccess)
 *         return LAB_ERROR;
 *
 * The macro evaluates to the cudaError_t of the call, so the caller decides what
 * to do next: it never returns or exits on your behalf. */
#ifndef CUDA_LABS_CUDA_CHECK_H
#define CUDA_LABS_CUDA_CHECK_H

#include <stdio.h>
#include <cuda_runtime_api.h>

/* Writes "file:line: CUDA error NAME (message) in CALL" into buf. */
static inline void cuda_error_text(char *buf, size_t n, cudaError_t err,
                                   const char *call, const char *file, int line)
{
    snprintf(buf, n, "%s:%d: CUDA error %s (%s) in %s", file, line,
             cudaGetErrorName(err), cudaGetErrorString(err), call);
}

static inline cudaError_t cuda_check_at(cudaError_t err, const char *call,
                                        const char *file, int line)
{
    if (err != cudaSuccess) {
        char text[512];
        cuda_error_text(text, sizeof text, err, call, file, line);
        fprintf(stderr, "%s\n", text);
    }
    return err;
}

#define CUDA_CHECK(call) cuda_check_at((call), #call, __FILE__, __LINE__)

#endif
