/* reduce_lab.h: the pure parts of lab 2's specification, for the unit tests. */
#ifndef CUDA_LABS_REDUCE_LAB_H
#define CUDA_LABS_REDUCE_LAB_H

#include <stddef.h>
#include <stdint.h>

#include "../../common/rng.h"

/* How far a float sum of n values with sum |x| = sum_abs may be from the exact sum. */
double reduce_tolerance(size_t n, double sum_abs);
/* Fills x with input set `variant` (0: uniform, 1: heavy-tailed) from seed,
 * and returns the exact sum and the sum of magnitudes (in double). */
void reduce_make_input(float *x, size_t n, int variant, uint64_t seed, double *sum,
                       double *sum_abs);
/* Judges a stage's result: V_PASS, or a verdict with the message in msg. */
int reduce_judge(double expect, double sum_abs, size_t n, float got, char *msg, size_t msgn);

/* Replays. Before each timed call a few input words are patched (grader/patch.h).
 * The sums a stage was expected to produce at one size so far (both input
 * sets unpatched, then every timed call's patched input), newest last; past
 * REDUCE_SEEN the oldest are forgotten. */
#define REDUCE_SEEN 2048
typedef struct reduce_seen {
    int n, next;
    double sum[REDUCE_SEEN];
} reduce_seen;
void reduce_seen_add(reduce_seen *s, double sum);
/* New values for the k words x[idx[0..k)] of an input of n floats whose exact
 * sum and sum of magnitudes are *sum and *sum_abs: all moved the same way (up
 * or down, at random) by random amounts, so that the exact sum moves by at
 * least 32 tolerances (and at most half its size, so it stays far from zero),
 * and lands more than 8 tolerances away from every sum in seen: a stage that
 * returns any earlier result, or this input's sum unpatched, is wrong. The
 * float words go to val; *sum and *sum_abs become the patched input's (exact,
 * in double), and the new sum joins seen. */
void reduce_patch_values(const float *x, size_t n, const uint64_t *idx, int k, reduce_seen *seen,
                         rng *r, uint32_t *val, double *sum, double *sum_abs);

#endif
