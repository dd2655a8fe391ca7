/* launch_trace.h: the last kernel launch a lab library made, so a LAUNCH
 * ERROR can name the grid, block and shared memory that were asked for;
 * which kernels a stage launched, so their machine code can be inspected and
 * a library's kernels refused; and whether it launched on another stream
 * than the one it was given. */
#ifndef CUDA_LABS_LAUNCH_TRACE_H
#define CUDA_LABS_LAUNCH_TRACE_H

#include <stddef.h>

typedef struct launch_config {
    unsigned grid[3], block[3];
    size_t shared_bytes;
} launch_config;

void launch_trace_reset(void);
/* Launches seen since the reset; *last is the last one (when any). */
int launch_trace_last(launch_config *last);

/* The distinct kernels launched since the reset (at most this many), as
 * comma-separated mangled names, written into buf (at most n bytes, cut
 * short when longer); returns the length they needed. CUDA 13's <<<...>>>
 * goes through __cudaLaunchKernel, older runtimes' through cudaLaunchKernel:
 * the trace sees both. */
#define LAUNCH_TRACE_MAX_NAMES 8
size_t launch_trace_kernels(char *buf, size_t n);
/* How many distinct kernels were launched since the reset, named or not. */
int launch_trace_kernel_count(void);

/* The trace sees the stream of every kernel launch (<<<...>>>,
 * cudaLaunchKernel, cudaLaunchKernelExC, cudaLaunchCooperativeKernel) and of
 * every cudaMemsetAsync and cudaMemcpyAsync, including their per-thread
 * default stream (_ptsz) forms. While on is set, the first of them on
 * another stream than `stream` (a cudaStream_t) is remembered until the next
 * reset. */
void launch_trace_expect_stream(int on, void *stream);
/* 1 when something went to another stream since the reset: msg says what
 * ("a kernel launch of _Z6kernelPf on cudaStreamPerThread"); else 0. */
int launch_trace_foreign_stream(char *msg, size_t n);
/* The library (CUB, Thrust, CUTLASS, CuTe) of the first kernel launched
 * since the reset that belongs to one (shown: its readable name), or NULL. */
const char *launch_trace_borrowed(char *shown, size_t n);

#endif
