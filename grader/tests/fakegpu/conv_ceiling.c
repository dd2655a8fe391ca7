/* conv_ceiling.c: lab 6's ceiling (grader/ceilings/conv.cu, cuBLAS SGEMM at
 * the layer's GEMM shape) for the fake GPU (cudart.c): the same product of
 * two matrices whose every byte is CEILING_CONV_BYTE, written into the output
 * (N P Q x K), at the cost of a copy of the output. */
#include <stdlib.h>
#include <string.h>

#include "../../ceilings/ceilings.h"
#include "host_ops.h"
#include "fakegpu.h"

int ceiling_conv_create(void **handle, const int shape[9], const float *x, const float *w,
                        float *y)
{
    (void)x, (void)w, (void)y;
    conv_shape *l = malloc(sizeof *l);
    if (!l)
        return -1;
    memcpy(l, shape, sizeof *l);
    *handle = l;
    return 0;
}

int ceiling_conv(void *handle, const float *x, const float *w, float *y, cudaStream_t stream)
{
    (void)stream;
    (void)x, (void)w;
    const conv_shape l = *(const conv_shape *)handle;
    float v;
    memset(&v, CEILING_CONV_BYTE, sizeof v);
    float sum = 0; /* in order, as one float32 dot product */
    for (long e = 0; e < (long)l.C * l.R * l.S; e++)
        sum += v * v;
    for (size_t e = 0; e < (size_t)l.N * l.K * conv_p(l) * conv_q(l); e++)
        y[e] = sum;
    fakegpu_spend(FAKEGPU_COPY_MS(4.0 * l.N * l.K * conv_p(l) * conv_q(l)));
    return 0;
}

void ceiling_conv_destroy(void *handle)
{
    free(handle);
}

const char *ceiling_conv_name(void)
{
    return "cuBLAS SGEMM (fake GPU)";
}
