/* launch_trace.h: the last kernel launch a lab library made, so a LAUNCH
 * ERROR can name the grid, block and shared memory that were asked for. */
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

#endif
