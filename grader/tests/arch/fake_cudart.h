/* fake_cudart.h: the part of the fake CUDA runtime (fake_cudart.c) that is
 * not CUDA's: which GPU it pretends to be, and where launches are written. */
#ifndef CUDA_LABS_FAKE_CUDART_H
#define CUDA_LABS_FAKE_CUDART_H

#include <stdio.h>

#include "archinfo.h"

/* Pretend to be a GPU of architecture a, whose kernels use what k[0..n-1]
 * says (for occupancy queries and to refuse launches a GPU would refuse);
 * write a line per launch to o. */
void fakert_configure(const arch_limits *a, const kernel_res *k, int n, FILE *o);
/* The stage whose launches follow (the number in each launch line). */
void fakert_stage(int s);

#endif
