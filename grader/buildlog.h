/* buildlog.h: what nvcc said when it built a lab library. The Makefile keeps
 * nvcc's messages beside the library it builds, in <library>.log; the grader
 * reads ptxas's notes that it serialised wgmma there, for the kernels a
 * stage launched, and shows them under the stage. No CUDA. */
#ifndef CUDA_LABS_BUILDLOG_H
#define CUDA_LABS_BUILDLOG_H

#include <stddef.h>

/* ptxas's notes in lib's build log ("<lib>.log") that it serialised the
 * wgmma of a kernel named in kernels (comma-separated mangled names, the
 * launch trace's), each as "the wgmma of <kernel> (<code>: <why>)", joined
 * by "; ", into out; how many there were (0: none, or no log). */
int buildlog_serialised(const char *lib, const char *kernels, char *out, size_t n);

#endif
