/* streams_lab.h: the pure parts of lab 5 (streams): how much of the copy
 * time hid behind other work, the ideal time when everything overlaps, and
 * the text timeline the grader prints. Times in milliseconds. */
#ifndef CUDA_LABS_STREAMS_LAB_H
#define CUDA_LABS_STREAMS_LAB_H

#include <stddef.h>

#include "../trace.h" /* span */


/* The share (0 to 1) of all copy time that ran while an operation of another
 * kind (a kernel, or a copy the other way) was running too. 0 when there is no
 * copy time. */
double streams_hidden_fraction(const span *s, int n);

/* The ideal time when copies in, kernels and copies out overlap completely:
 * the longest lane. Each direction at its own bandwidth, both directions
 * together at the shared one (GB/s), the kernels' total time as measured. */
double streams_overlap_bound_ms(double h2d_bytes, double d2h_bytes, double kernel_ms,
                                double h2d_gbps, double d2h_gbps, double both_gbps);
/* The time when everything runs one after the other: copies in, kernels, copies out. */
double streams_serial_ms(double h2d_bytes, double d2h_bytes, double kernel_ms, double h2d_gbps,
                         double d2h_gbps);

/* A text timeline, one row per stream ("stream 0 |HHHHKKDD....|"), `width`
 * columns from the first start to the last end; each column shows the kind
 * that ran longest in it (H, K or D, '.' for idle), and a last line with the
 * time scale. Writes at most n bytes; returns the length it needed. */
size_t streams_timeline(char *buf, size_t n, const span *s, int count, int width);

#endif
