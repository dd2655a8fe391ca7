/* green.h: --sms N, grading on N of the GPU's SMs through a CUDA green
 * context (driver API, CUDA 12.4 and newer). The driver's functions are
 * looked up in libcuda.so.1 at run time, as probe.c finds the driver, so
 * the grader links nothing new and still runs on an older driver (where
 * --sms says it is not available). */
#ifndef CUDA_LABS_GREEN_H
#define CUDA_LABS_GREEN_H

#include <stddef.h>

/* green_enter's results besides 0. */
#define GREEN_REFUSED (-2)     /* N does not fit this GPU: a usage error, err says what to try */
#define GREEN_UNAVAILABLE (-1) /* no green context could be made: err says why */

/* Is N SMs a group this GPU can give a green context? total: the GPU's SMs;
 * min_size and align: the driver's minimum partition size and alignment
 * (0 when the driver does not say). 0 when it is; else GREEN_REFUSED with a
 * message that names the nearest counts to try. Pure. */
int green_check(int want, int total, int min_size, int align, char *err, size_t errn);

/* Makes a green context of exactly `sms` SMs on device 0 and makes it the
 * calling thread's current context, before the runtime's first call: every
 * runtime call after it (streams, kernels, cuBLAS, cuDNN, CUB) then runs on
 * those SMs. Never call cudaSetDevice after it: that would make the
 * device's primary context (the whole GPU) current again. 0, or
 * GREEN_REFUSED / GREEN_UNAVAILABLE with the reason in err. */
int green_enter(int sms, char *err, size_t errn);

/* After green_enter: is its green context still current, and does `stream`
 * (a cudaStream_t) belong to it? 0 when so (or when the driver cannot say
 * which green context a stream has); -1 with the reason in err. */
int green_verify(void *stream, char *err, size_t errn);

#endif
