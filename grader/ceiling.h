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

/* In a grading child, before the lab library is loaded: loads the grader's
 * own kernels (devcheck) and lab `lab`'s ceiling library when it has one,
 * so that a later ceiling_load of them cannot fail because of what the lab
 * library did. 0, or -1 with the reason in err (the grader's fault). */
int ceiling_preload(int lab, char *err, size_t errn);

/* The course's copy of lab `lab`'s given stages, build/ceilings/labN-given.so
 * beside the grader (built from grader/given/): the grader times the given
 * stages from it, never from the submission. In a grading child, before the
 * lab library is loaded: its handle, or NULL with err saying why (not built,
 * or not loadable: the grader's fault, a SETUP ERROR). */
void *given_open(int lab, char *err, size_t errn);

/* In the parent, before any grading child runs: a sealed copy in memory
 * (memfd_create, sealed against every write) of the library at path, and
 * the path a child opens to load it, /proc/self/fd/N (the descriptor is
 * inherited); path itself where no copy can be made (memfd_create missing,
 * or its files not executable). Student code runs in the grading children
 * and may rename, replace or rewrite any file its user may: with the copy,
 * every later child loads the bytes that were checked. The same path twice
 * gives the same copy. */
const char *library_snapshot(const char *path);

/* In the parent, before any grading child runs: sealed copies of the grader's
 * own kernels (devcheck) and of lab `lab`'s ceiling and given libraries
 * (those that are built), which ceiling_load, ceiling_preload and given_open
 * then load instead of the files. */
void ceiling_snapshot(int lab);

/* In the parent: 1 when lab `lab`'s given stages are built (given_open will
 * find them), 0 when not. */
int given_built(int lab);

#endif
