/* lab6.c: lab 6's stages (labs/6-conv/conv.h) for the fake GPU (cudart.c),
 * done on the host in double. Each stage declares what it would cost on a
 * GPU as a multiple of a copy of the output (FAKEGPU_COPY_MS), which is what
 * the ceiling costs here (conv_ceiling.c): cost[stage]. Built as two
 * libraries:
 *   LAB6_GOOD   every stage correct and fast enough;
 *   LAB6_FAULTS stage 1 flips the filter (a convolution, not the
 *               cross-correlation), stage 3 is faster than the ceiling
 *               allows, stage 4 is not written. */
#include <stddef.h>

#include "../../../labs/6-conv/conv.h"
#include "host_ops.h"
#include "fakegpu.h"

#if defined(LAB6_FAULTS)
static const double cost[] = {20, 6, 3.5, 0.3, 2.8};
#else
static const double cost[] = {20, 6, 3.5, 2.5, 1.0};
#endif

static lab_status stage(int k, conv_shape l, const float *in, const float *filter, float *out)
{
#if defined(LAB6_FAULTS)
    if (k == 4)
        return LAB_TODO;
#endif
    conv_host(l, in, filter, out, 0);
#if defined(LAB6_FAULTS)
    if (k == 1)
        conv_host(l, in, filter, out, 1);
#endif
    fakegpu_spend(cost[k] * FAKEGPU_COPY_MS(4.0 * l.N * l.K * conv_p(l) * conv_q(l)));
    return LAB_OK;
}

#define STAGE(k, name)                                                                         \
    lab_status name(conv_shape l, const float *d_in, const float *d_filter, float *d_out,      \
                    void *d_work, cudaStream_t s)                                              \
    {                                                                                          \
        (void)d_work, (void)s;                                                                 \
        return stage(k, l, d_in, d_filter, d_out);                                             \
    }
STAGE(0, conv_direct)
STAGE(1, conv_direct_tiled)
STAGE(2, conv_im2col_gemm)
STAGE(3, conv_implicit_gemm)
STAGE(4, conv_nhwc)
