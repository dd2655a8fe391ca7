/* compare.h: compare a result with the expected values, element by element.
 * An element matches when |got - expected| <= atol + rtol * |expected|.
 * NaN never matches. The grader fills outputs with the bit pattern
 * COMPARE_UNWRITTEN (a NaN) before each call, so an element still holding it
 * was never written. */
#ifndef CUDA_LABS_COMPARE_H
#define CUDA_LABS_COMPARE_H

#include <stddef.h>
#include <stdint.h>

#define COMPARE_UNWRITTEN 0xFFFFFFFFu /* all bytes 0xFF: what cudaMemset(.., 0xFF, ..) leaves */

typedef struct compare_report {
    size_t n;            /* elements compared */
    size_t mismatches;   /* elements that do not match (all kinds below included) */
    size_t unwritten;    /* of those, still holding COMPARE_UNWRITTEN */
    size_t nans;         /* of those, some other NaN (or infinity) written by the code */
    size_t first;        /* index of the first mismatch (valid when mismatches > 0) */
    float expected;      /* values at the first mismatch */
    float got;
    int first_unwritten; /* the first mismatch is an unwritten element */
    double max_abs_err;  /* over matching and finite mismatching elements */
} compare_report;

/* Returns 1 when every element matches, 0 otherwise; fills *r either way. */
int compare_floats(const float *expected, const float *got, size_t n, double atol,
                   double rtol, compare_report *r);

/* 1 when every got[e] (e < n) is finite and within its tolerance of
 * exact[e]; 0 otherwise. The tolerance is f1 * scale[e], plus f2 * scale[e]
 * when f2 is not 0, in that order of double operations (labs 4 and 6 compute
 * their tolerances so, and the full pass that names the wrong elements must
 * agree with this one bit for bit). On all cores: the fast first look of a
 * check whose full, element-by-element pass runs only when something is
 * wrong. Memory-bound: 20 bytes an element. */
int compare_all_within(const double *exact, const double *scale, const float *got, size_t n,
                       double f1, double f2);
/* The same rule on one span, in the calling thread: 1 when any element is
 * outside (or not finite), else 0. */
int compare_any_outside(const double *exact, const double *scale, const float *got, size_t n,
                        double f1, double f2);

/* Is this float the grader's "never written" pattern? */
int compare_is_unwritten(float x);

/* Exact bitwise comparison of two byte ranges; returns the index of the first
 * differing 4-byte word, or -1 when equal (n is a multiple of 4). */
long long compare_first_diff_word(const void *a, const void *b, size_t n);

#endif
