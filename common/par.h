/* par.h: a parallel for over [0, n) on the host's cores, for the grader's
 * big host-side passes (making inputs, checking outputs, reloading host
 * buffers). No CUDA. Slices are cut at fixed multiples of the grain, so what
 * a slice computes does not depend on how many threads there are. */
#ifndef CUDA_LABS_PAR_H
#define CUDA_LABS_PAR_H

#include <stddef.h>

/* Work on [begin, end); returns 0, or any non-zero value to report (the
 * results of all slices are OR-ed). */
typedef int (*par_fn)(void *ctx, size_t begin, size_t end);

/* Threads used at most: the online CPUs, capped at 16. */
int par_threads(void);
/* Runs fn over [0, n) in slices of whole grains (the last may be shorter),
 * one run of consecutive slices per thread, in the caller alone when n is at
 * most one grain or no thread can be started. Returns the OR of fn's results. */
int par_for(size_t n, size_t grain, par_fn fn, void *ctx);
/* memcpy and memset, cut into slices run in parallel. */
void par_memcpy(void *dst, const void *src, size_t bytes);
void par_memset(void *dst, int c, size_t bytes);

#endif
