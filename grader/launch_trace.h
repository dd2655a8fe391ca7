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
/* on: the grader's own launches follow (the audit's markers), noted nowhere;
 * off: noting again. */
void launch_trace_hold(int on);
/* Launches seen since the reset; *last is the last one (when any). */
int launch_trace_last(launch_config *last);

/* The distinct kernels launched since the reset (at most this many), as
 * comma-separated mangled names, written into buf (at most n bytes, cut
 * short when longer); returns the length they needed. CUDA 13's <<<...>>>
 * goes through __cudaLaunchKernel, older runtimes' through cudaLaunchKernel:
 * the trace sees both. */
#define LAUNCH_TRACE_MAX_NAMES 8
#define LAUNCH_TRACE_MAX_NAMES_TEXT "8" /* the same, for messages */
size_t launch_trace_kernels(char *buf, size_t n);
/* How many distinct kernels were launched since the reset, named or not. */
int launch_trace_kernel_count(void);
/* 1 when launch_trace_kernels misses a kernel launched since the reset: one
 * it could not name, or one past the LAUNCH_TRACE_MAX_NAMES it keeps. */
int launch_trace_kernels_partial(void);

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

/* The audit (runner.c, with CUPTI's list of what ran on the GPU): the
 * launches the CUDA runtime accepted through the entry points above since
 * launch_trace_audit_reset. launch_trace_audit_count says how many were of
 * the kernel of mangled name `name`, and sets *unnamed to how many were of
 * kernels the trace could not name (which could be any). */
void launch_trace_audit_reset(void); /* ...and counts from here on */
void launch_trace_audit_stop(void);  /* counts no more (timed calls pay nothing) */
int launch_trace_audit_count(const char *name, int *unnamed);
/* The comparison: names[i] ran counts[i] times on the GPU (CUPTI, in the same
 * window). 1 when one of them ran more often than it was launched through
 * the trace (launches of kernels the trace could not name make up for that
 * many), with foreign saying which ("_Z3fooPf (2 times)"); else 0. */
int launch_trace_audit(const char *const *names, const int *counts, int n, char *foreign,
                       size_t len);

#endif
