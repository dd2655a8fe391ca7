/* analytics.h: a summary of a class's results (./grade --analyze DIR). */
#ifndef CUDA_LABS_ANALYTICS_H
#define CUDA_LABS_ANALYTICS_H

#include <stddef.h>
#include <stdio.h>

/* Reads every DIR/<student>.json written by ./grade --json and prints, per lab
 * and stage: passes, the median speedup with its 10th and 90th percentiles, a
 * histogram, and the timings that look implausible (flagged by the grader,
 * over 110% of the ceiling, or over 3 times the class median). 0, or -1 with err. */
int analytics_report(const char *dir, FILE *out, char *err, size_t errn);

#endif
