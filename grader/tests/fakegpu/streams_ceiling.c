/* streams_ceiling.c: lab 5's ceiling (grader/ceilings/streams.cu, the job
 * with everything overlapped) for the fake GPU (cudart.c): done on the host,
 * sleeping STREAMS_CEILING_MS, since lab 5 is timed by the wall clock. */
#include <math.h>
#include <stdlib.h>

#include "../../ceilings/ceilings.h"
#include "../../../labs/5-streams/streams.h"
#include "fakegpu.h"
#include "host_ops.h"

typedef struct job {
    size_t n;
    float a;
    int degree;
    float c[STREAMS_MAX_DEGREE + 1];
} job;

int ceiling_streams_create(void **handle, size_t n, float a, const float *c)
{
    job *j = malloc(sizeof *j);
    if (!j)
        return -1;
    j->n = n, j->a = a, j->degree = 1;
    for (int k = 0; k <= STREAMS_MAX_DEGREE; k++)
        j->c[k] = c[k];
    *handle = j;
    return 0;
}

int ceiling_streams(void *handle)
{
    (void)handle;
    sleep_ms(STREAMS_CEILING_MS);
    return 0;
}

void ceiling_streams_destroy(void *handle)
{
    free(handle);
}

void ceiling_streams_set_degree(void *handle, int degree)
{
    ((job *)handle)->degree = degree;
}

/* The copies and the kernel at degree 256 take as long: the heavy job gets
 * degree 256. */
double ceiling_streams_time(void *handle, int what, int degree, int reps)
{
    (void)handle, (void)what, (void)degree, (void)reps;
    return 1.0;
}

/* Every output against a poly(x) + y in double, within (2 degree + 8) u of
 * its scale, as check_poly does on the GPU. */
int ceiling_streams_check(void *handle, const float *x, const float *y, const float *out,
                          unsigned long long *res)
{
    const job *j = handle;
    res[0] = 0, res[1] = ~0ull;
    for (size_t i = 0; i < j->n; i++) {
        double p = j->c[j->degree], s = fabs(p);
        for (int k = j->degree - 1; k >= 0; k--) {
            p = p * x[i] + j->c[k];
            s = s * fabs(x[i]) + fabs(j->c[k]);
        }
        double want = j->a * p + y[i], scale = fabs(j->a) * s + fabs(y[i]);
        if (!(fabs(out[i] - want) <= (2.0 * j->degree + 8) * ldexp(1.0, -24) * scale) &&
            !res[0]++)
            res[1] = i;
    }
    return 0;
}
