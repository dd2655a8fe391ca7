/* patch.h: fresh inputs for every timed call. A lab's inputs are loaded from
 * a few input sets; before each timed call a handful of input words at
 * random positions get new values (a patch), so no call sees inputs another
 * call saw, and a stage that keeps an earlier result instead of computing
 * gets the patched elements wrong. The lab's check then expects the outputs
 * of the patched inputs (it knows the positions and the values) and checks,
 * on the GPU, that the input still holds exactly what was loaded.
 * The kernels are in grader/ceilings/devcheck.cu (build/ceilings/devcheck.so),
 * loaded in the grading child on first use. */
#ifndef CUDA_LABS_PATCH_H
#define CUDA_LABS_PATCH_H

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>

#include "../common/rng.h"
#include "lab.h"

#define PATCH_MAX 64

typedef struct patch_set {
    int n;                    /* words patched by the last patch_pick; 0: none */
    uint64_t idx[PATCH_MAX];  /* their word positions, distinct and ascending */
    uint32_t val[PATCH_MAX];  /* the words written there (set by the lab) */
    uint64_t *d_idx;          /* device copies, made by patch_apply */
    uint32_t *d_val;
    unsigned long long *d_res; /* two words: mismatches, first mismatch */
    unsigned long long *h_res; /* pinned */
} patch_set;

/* Picks n (<= PATCH_MAX) distinct positions in [0, words) from r, ascending,
 * into p->idx; at most `words` of them. The caller sets p->val[k] before
 * patch_apply. No CUDA. */
void patch_pick(patch_set *p, int n, size_t words, rng *r);
/* Picks n distinct positions in [0, words) that lie in the word range
 * [first + k * stride, first + k * stride + len) of some k: for patches
 * that must keep to a region (e.g. the interior of rows). No CUDA. */
void patch_pick_strided(patch_set *p, int n, size_t words, size_t first, size_t stride,
                        size_t len, rng *r);
/* Forgets the patch (prepare calls it: a reload undoes the patch). */
static inline void patch_clear(patch_set *p)
{
    p->n = 0;
}
/* Writes the patch into d_buf (a buffer of 32-bit words) on s. 0, or -1
 * with out filled (a grader fault: SETUP ERROR). */
int patch_apply(patch_set *p, void *d_buf, cudaStream_t s, check_outcome *out);
/* Compares d_now (words) with d_orig, the copy it was loaded from, allowing
 * exactly the patch. Waits for s. -1: unchanged; >= 0: the first word that
 * changed; -2 with out filled when the check itself failed. */
long long patch_unchanged(patch_set *p, const void *d_now, const void *d_orig, size_t words,
                          cudaStream_t s, check_outcome *out);
/* The value at word i of the host input h (words) after the patch. */
uint32_t patch_word(const patch_set *p, const uint32_t *h, size_t i);
/* The patch's word at position i, or -1 when i is not patched (binary search). */
int patch_find(const patch_set *p, size_t i);
void patch_free(patch_set *p);

#endif
