/* launch_trace.h: the last kernel launch a lab library made, so a LAUNCH
 * ERROR can name the grid, block and shared memory that were asked for; and
 * which kernels a stage launched, so their machine code can be inspected. */
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
 * short when longer); returns the length they needed. Empty when the CUDA
 * runtime launches without __cudaLaunchKernel (before CUDA 13). */
#define LAUNCH_TRACE_MAX_NAMES 8
size_t launch_trace_kernels(char *buf, size_t n);
/* How many distinct kernels were launched since the reset, named or not. */
int launch_trace_kernel_count(void);

#endif
