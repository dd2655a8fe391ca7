/* lab3.c: lab 3's stages (labs/3-shuffle/shuffle.h) for the fake GPU
 * (cudart.c), done on the host. Each stage declares what it would cost on a
 * GPU as a multiple of a copy of its input (FAKEGPU_COPY_MS), which is what
 * each ceiling costs (shuffle_ceiling.c): cost[stage]. Built as two libraries:
 *   LAB3_GOOD   every stage correct and fast enough;
 *   LAB3_FAULTS stage 3 scans across its segments of 32, stage 6 is faster
 *               than its base but short of its share of the ceiling, stage 7
 *               counts one element too many. */
#include <stddef.h>

#include "../../../labs/3-shuffle/shuffle.h"
#include "fakegpu.h"
#include "host_ops.h"

#if defined(LAB3_FAULTS)
static const double cost[] = {20, 3, 1.1, 1.2, 1.3, 3, 2.6, 1.5};
#else
static const double cost[] = {20, 3, 1.1, 1.2, 1.3, 3, 1.5, 1.5};
#endif

static void spend(int stage, size_t n)
{
    fakegpu_spend(cost[stage] * FAKEGPU_COPY_MS(4.0 * (double)n));
}

static lab_status sum(int stage, const float *d_in, size_t n, float *d_out)
{
    d_out[0] = sum_host(d_in, n);
    spend(stage, n);
    return LAB_OK;
}

/* Inclusive scan of each segment of seg elements (0: the whole array). */
static lab_status scan(int stage, const int *d_in, size_t n, int *d_out, size_t seg)
{
#if defined(LAB3_FAULTS)
    if (stage == 3)
        seg = 0;
#endif
    int s = 0;
    for (size_t i = 0; i < n; i++) {
        if (seg && i % seg == 0)
            s = 0;
        s += d_in[i];
        d_out[i] = s;
    }
    spend(stage, n);
    return LAB_OK;
}

lab_status scan_one_block(const int *d_in, size_t n, int *d_out, void *d_work, cudaStream_t s)
{
    (void)d_work, (void)s;
    return scan(0, d_in, n, d_out, 0);
}

lab_status reduce_shared(const float *d_in, size_t n, float *d_out, void *d_work, cudaStream_t s)
{
    (void)d_work, (void)s;
    return sum(1, d_in, n, d_out);
}

lab_status reduce_shuffle(const float *d_in, size_t n, float *d_out, void *d_work, cudaStream_t s)
{
    (void)d_work, (void)s;
    return sum(2, d_in, n, d_out);
}

lab_status scan_warp(const int *d_in, size_t n, int *d_out, void *d_work, cudaStream_t s)
{
    (void)d_work, (void)s;
    return scan(3, d_in, n, d_out, 32);
}

lab_status scan_block(const int *d_in, size_t n, int *d_out, void *d_work, cudaStream_t s)
{
    (void)d_work, (void)s;
    return scan(4, d_in, n, d_out, SHUFFLE_SEGMENT);
}

lab_status scan_multipass(const int *d_in, size_t n, int *d_out, void *d_work, cudaStream_t s)
{
    (void)d_work, (void)s;
    return scan(5, d_in, n, d_out, 0);
}

lab_status scan_lookback(const int *d_in, size_t n, int *d_out, void *d_work, cudaStream_t s)
{
    (void)d_work, (void)s;
    return scan(6, d_in, n, d_out, 0);
}

lab_status compact_positive(const int *d_in, size_t n, int *d_out, int *d_count, void *d_work,
                            cudaStream_t s)
{
    (void)d_work, (void)s;
    int k = 0;
    for (size_t i = 0; i < n; i++)
        if (d_in[i] > 0)
            d_out[k++] = d_in[i];
#if defined(LAB3_FAULTS)
    k++;
#endif
    d_count[0] = k;
    spend(7, n);
    return LAB_OK;
}
