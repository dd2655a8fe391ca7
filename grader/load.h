/* load.h: read a run back from ./grade --json output (./grade --from FILE). */
#ifndef CUDA_LABS_LOAD_H
#define CUDA_LABS_LOAD_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "../common/devinfo.h"
#include "lab.h"
#include "results.h"

/* One lab as it was graded: the table's spec with the points and thresholds
 * the run recorded (not today's table), and the library graded. */
typedef struct loaded_lab {
    lab_spec spec;
    lab_stage stages[LAB_MAX_STAGES];
    char library[PATH_MAX];
} loaded_lab;

/* Fills labs, res (up to max_labs), the GPU, the seed, the run's wall
 * time (0 when not recorded) and, when unguarded is not NULL, what of the
 * sandbox was off ("" when all was on); 0, or -1 with err. */
int results_load(const char *path, loaded_lab *labs, lab_results *res, int max_labs,
                 int *n_labs, devinfo *dev, uint64_t *seed, double *elapsed_s, char *unguarded,
                 size_t unguardedn, char *err, size_t errn);

#endif
