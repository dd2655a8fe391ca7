/* load.h: read a run back from ./grade --json output (./grade --from FILE). */
#ifndef CUDA_LABS_LOAD_H
#define CUDA_LABS_LOAD_H

#include <stddef.h>
#include <stdint.h>

#include "../common/devinfo.h"
#include "lab.h"
#include "results.h"

/* Fills specs, res (up to max_labs), the GPU and the seed; 0, or -1 with err. */
int results_load(const char *path, const lab_spec **specs, lab_results *res, int max_labs,
                 int *n_labs, devinfo *dev, uint64_t *seed, char *err, size_t errn);

#endif
