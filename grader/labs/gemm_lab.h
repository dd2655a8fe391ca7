/* gemm_lab.h: the pure parts of lab 4's specification (its CPU reference and
 * judgement), for the grader and the unit tests. */
#ifndef CUDA_LABS_GEMM_LAB_H
#define CUDA_LABS_GEMM_LAB_H

#include <stddef.h>

/* One problem: C = alpha A B + beta C0, row-major, A M x K, B K x N. */
typedef struct gemm_problem {
    int M, N, K;
    float alpha, beta;
    const float *A, *B, *C0; /* C0 is not read when beta == 0 */
} gemm_problem;

/* exact[e] = the element in double precision, scale[e] = |alpha| (|A||B|)e +
 * |beta| |C0e|, for all M N elements. Uses every CPU; 0, or -1 when out of
 * memory. */
int gemm_reference(const gemm_problem *p, double *exact, double *scale);
/* How far a float32 result of an element with this scale may be off (tf32:
 * the tensor-core stage's looser bound). */
double gemm_tolerance(int K, double scale, int tf32);
/* V_PASS, or the verdict for got (M N floats) with what is wrong in msg. */
int gemm_judge(const gemm_problem *p, const double *exact, const double *scale, const float *got,
               int tf32, char *msg, size_t msgn);

#endif
