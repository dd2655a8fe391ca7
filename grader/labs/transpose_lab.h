/* transpose_lab.h: the pure parts of lab 1's specification, for the unit tests. */
#ifndef CUDA_LABS_TRANSPOSE_LAB_H
#define CUDA_LABS_TRANSPOSE_LAB_H

#include <stddef.h>
#include <stdint.h>

#include "../../common/rng.h"

/* Replays. Before each timed call a few input words are patched
 * (grader/patch.h). New values for in[idx[0..k)]: in [-1, 1) like every
 * input, never zero, and each different from the word it replaces, so the
 * output word it moves to differs from any earlier result's. */
void transpose_patch_values(const float *in, const uint64_t *idx, int k, rng *r, uint32_t *val);
/* Where input word i of a rows x cols matrix lands in the output: its
 * transpose, or the same place for the copy stage. */
size_t transpose_out_index(size_t i, int rows, int cols, int is_copy);
/* 1 when got (n words) equals expect, the output of the unpatched input, at
 * every word, except where the patch (idx, val, k) moves a word: there it
 * must hold the patched word. One pass over the output, as for an unpatched
 * call: got is changed at the k patched places during the call and restored. */
int transpose_patched_ok(const float *expect, float *got, int rows, int cols, int is_copy,
                         const uint64_t *idx, const uint32_t *val, int k);

#endif
