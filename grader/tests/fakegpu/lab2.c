/* lab2.c: lab 2's stages (labs/2-reduce/reduce.h) for the fake GPU (cudart.c),
 * done on the host, the sum accumulated in double. Each stage declares what
 * it would cost on a GPU as a multiple of the ceiling's cost
 * (reduce_ceiling.c): cost[stage]. Built as two libraries:
 *   LAB2_GOOD   every stage correct and fast enough;
 *   LAB2_FAULTS stage 1 leaves out the last element, stage 2 writes nothing,
 *               stage 3 writes a NaN, stage 5 is correct but 8% slower
 *               than its base (clearly below 1.00x, which the host's own
 *               time cannot blur), stage 7 is faster than
 *               the ceiling; the others are right;
 *   LAB2_SLOWGIVEN the given stage 0 made four times slower, and stage 1 a
 *               copy of the course's stage 0: a stage 1 that only looks fast
 *               next to a slowed base. */
#include <math.h>
#include <stddef.h>

#include "../../../labs/2-reduce/reduce.h"
#include "fakegpu.h"

static lab_status sum(int k, const float *d_in, size_t n, float *d_out)
{
    double s = 0;
#if defined(LAB2_FAULTS)
    if (k == 2)
        return LAB_OK;
    if (k == 1 && n > 1)
        n--;
#endif
    for (size_t i = 0; i < n; i++)
        s += d_in[i];
    d_out[0] = (float)s;
#if defined(LAB2_FAULTS)
    if (k == 3)
        d_out[0] = NAN;
#endif
#if defined(LAB2_FAULTS)
    static const double cost[] = {60, 15, 12, 10, 6, 6.5, 4.5, 0.5};
#elif defined(LAB2_SLOWGIVEN)
    static const double cost[] = {240, 60, 12, 10, 6, 5, 4.5, 1.2};
#else
    static const double cost[] = {60, 15, 12, 10, 6, 5, 4.5, 1.2};
#endif
    fakegpu_spend(cost[k] * FAKEGPU_COPY_MS(4.0 * (double)n));
    return LAB_OK;
}

#define STAGE(k, name)                                                                        \
    lab_status name(const float *d_in, size_t n, float *d_out, float *d_work, cudaStream_t s) \
    {                                                                                         \
        (void)d_work, (void)s;                                                                \
        return sum(k, d_in, n, d_out);                                                        \
    }
STAGE(0, reduce_one_block)
STAGE(1, reduce_interleaved)
STAGE(2, reduce_strided)
STAGE(3, reduce_sequential)
STAGE(4, reduce_first_add)
STAGE(5, reduce_unroll_warp)
STAGE(6, reduce_unroll_all)
STAGE(7, reduce_many)
