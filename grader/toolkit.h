/* toolkit.h: where the grader finds the CUDA Toolkit's programs and
 * libraries (compute-sanitizer, cuobjdump, CUPTI). */
#ifndef CUDA_LABS_TOOLKIT_H
#define CUDA_LABS_TOOLKIT_H

#include <stddef.h>

/* The Makefile sets it to the toolkit the grader was built with. */
#ifndef CUDA_LABS_CUDA_HOME
#define CUDA_LABS_CUDA_HOME "/usr/local/cuda"
#endif

/* The path of the toolkit program `tool` (e.g. "cuobjdump"): in
 * CUDA_LABS_CUDA_HOME/bin, else on the PATH. 0, or -1 when neither has it. */
int toolkit_find(const char *tool, char *path, size_t n);

#endif
