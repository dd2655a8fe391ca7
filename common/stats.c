#include "stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double stats_quantile(const double *x, size_t n, double q)
{
    if (n == 0)
        return NAN;
    double *s = malloc(n * sizeof *s);
    if (!s)
        return NAN;
    memcpy(s, x, n * sizeof *s);
    qsort(s, n, sizeof *s, cmp_double);
    if (q < 0)
        q = 0;
    if (q > 1)
        q = 1;
    double pos = q * (double)(n - 1);
    size_t lo = (size_t)pos;
    size_t hi = lo + 1 < n ? lo + 1 : lo;
    double v = s[lo] + (pos - (double)lo) * (s[hi] - s[lo]);
    free(s);
    return v;
}

double stats_median(const double *x, size_t n) { return stats_quantile(x, n, 0.5); }

double stats_median_ratio(const double *num, const double *den, size_t n)
{
    double *r = malloc((n ? n : 1) * sizeof *r);
    if (!r)
        return NAN;
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (den[i] > 0)
            r[m++] = num[i] / den[i];
    double v = stats_median(r, m);
    free(r);
    return v;
}
