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

/* Reads every DIR/<run>.json of several runs of the same code (make stability:
 * the solutions, fresh seeds) and prints, per lab and stage, the runs, the
 * failures, the minimum, median and maximum of the speedup and of the share
 * of the ceiling, and the margin of the worst run over each threshold.
 * Returns 0 when nothing failed, 1 when something did, -1 with err when no
 * file could be read. */
#define ANALYTICS_MAX_RUNS 256
int analytics_stability(const char *dir, FILE *out, char *err, size_t errn);

#endif
