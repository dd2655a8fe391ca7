/* shuffle_ceiling.c: lab 3's ceilings (grader/ceilings/shuffle.cu, CUB's
 * sum, scan and select) for the fake GPU (cudart.c), each at the cost of a
 * copy of its input. */
#include "../../ceilings/ceilings.h"
#include "fakegpu.h"
#include "host_ops.h"

int ceiling_shuffle_temp_bytes(size_t n, size_t *bytes)
{
    (void)n;
    *bytes = 256;
    return 0;
}

int ceiling_shuffle_sum(const float *d_in, size_t n, float *d_out, void *d_temp,
                        size_t temp_bytes, cudaStream_t stream)
{
    (void)d_temp, (void)temp_bytes, (void)stream;
    d_out[0] = sum_host(d_in, n);
    fakegpu_spend(FAKEGPU_COPY_MS(4.0 * (double)n));
    return 0;
}

int ceiling_shuffle_scan(const int *d_in, size_t n, int *d_out, void *d_temp, size_t temp_bytes,
                         cudaStream_t stream)
{
    (void)d_temp, (void)temp_bytes, (void)stream;
    int s = 0;
    for (size_t i = 0; i < n; i++)
        d_out[i] = s += d_in[i];
    fakegpu_spend(FAKEGPU_COPY_MS(4.0 * (double)n));
    return 0;
}

int ceiling_shuffle_select(const int *d_in, size_t n, int *d_out, int *d_count, void *d_temp,
                           size_t temp_bytes, cudaStream_t stream)
{
    (void)d_temp, (void)temp_bytes, (void)stream;
    int k = 0;
    for (size_t i = 0; i < n; i++)
        if (d_in[i] > 0)
            d_out[k++] = d_in[i];
    d_count[0] = k;
    fakegpu_spend(FAKEGPU_COPY_MS(4.0 * (double)n));
    return 0;
}
