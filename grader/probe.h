/* probe.h: is there a usable GPU? Asked in a forked child, because a CUDA
 * call in the grader's parent would break CUDA in every later child. */
#ifndef CUDA_LABS_PROBE_H
#define CUDA_LABS_PROBE_H

#include <stddef.h>

#include "../common/devinfo.h"

/* 0: a GPU, *d filled. 1: none (why in err). -1: the probe itself failed. */
int probe_gpu(devinfo *d, char *err, size_t errn);

#endif
