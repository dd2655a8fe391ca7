/* ceiling.h: the libraries that hold the grader's reference operations
 * (CUB, cuBLAS, ...), one per lab, built from grader/ceilings/ into
 * build/ceilings/. They are loaded in a grading child, never in the parent. */
#ifndef CUDA_LABS_CEILING_H
#define CUDA_LABS_CEILING_H

#include <stddef.h>

/* Loads build/ceilings/<name>.so next to the grader's executable and looks up
 * each of the n symbols into fns[i]. 0 on success; -1 with the reason in err. */
int ceiling_load(const char *name, const char *const *symbols, void **fns, int n, char *err,
                 size_t errn);

/* 1 once a ceiling_load in this process failed: a file of the grader's is
 * missing or broken, which is never the submission's fault. */
int ceiling_failed(void);

#endif
