/* sanitize.h: run a lab's stages under compute-sanitizer (./grade --sanitize). */
#ifndef CUDA_LABS_SANITIZE_H
#define CUDA_LABS_SANITIZE_H

#include <stdint.h>

#include "lab.h"

enum { SANITIZE_CLEAN = 0, SANITIZE_FOUND = 1, SANITIZE_NO_TOOL = 2 };

/* Every stage (or those whose bit is set in stage_mask, when it is not 0) of
 * the library lib, at the small sizes, under memcheck, racecheck, synccheck
 * and initcheck; prints a line per stage and the first report of each
 * finding. */
int sanitize_lab(const lab_spec *spec, const char *lib, unsigned stage_mask, uint64_t seed);

#endif
