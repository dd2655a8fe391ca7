/* stats.h: order statistics for timing samples. */
#ifndef CUDA_LABS_STATS_H
#define CUDA_LABS_STATS_H

#include <stddef.h>

/* q-quantile (0 <= q <= 1) with linear interpolation; x is not modified.
 * Returns NaN for n == 0. */
double stats_quantile(const double *x, size_t n, double q);
double stats_median(const double *x, size_t n);
/* Median of num[i] / den[i] over pairs with den[i] > 0: the speedup of a
 * stage over its base when both were timed in the same repetitions. */
double stats_median_ratio(const double *num, const double *den, size_t n);

#endif
