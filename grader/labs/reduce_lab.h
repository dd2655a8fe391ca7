/* reduce_lab.h: the pure parts of lab 2's specification, for the unit tests. */
#ifndef CUDA_LABS_REDUCE_LAB_H
#define CUDA_LABS_REDUCE_LAB_H

#include <stddef.h>
#include <stdint.h>

/* How far a float sum of n values with sum |x| = sum_abs may be from the exact sum. */
double reduce_tolerance(size_t n, double sum_abs);
/* Fills x with input set `variant` (0: uniform, 1: heavy-tailed) from seed,
 * and returns the exact sum and the sum of magnitudes (in double). */
void reduce_make_input(float *x, size_t n, int variant, uint64_t seed, double *sum,
                       double *sum_abs);
/* Judges a stage's result: V_PASS, or a verdict with the message in msg. */
int reduce_judge(double expect, double sum_abs, size_t n, float got, char *msg, size_t msgn);

#endif
