/* gemm_ref.c: lab 4's reference on the CPU and its judgement of a result.
 *
 * The reference computes every element of alpha A B + beta C in double
 * precision, and with it the element's scale, |alpha| (|A| |B|)ij +
 * |beta| |C0ij|, in the same pass. Rows are shared among threads (pthreads;
 * the grader's parent never calls CUDA, and threads are fine), and the loops
 * are blocked so each block of B is read once per block of rows.
 *
 * Tolerance. A float32 dot product of length K, summed in any order with
 * fused multiply-adds, is off by at most about K u scale (u = 2^-24); with
 * random signs the errors mostly cancel and the real error grows like
 * sqrt(K) u scale. The grader accepts
 *
 *     |got - exact| <= (4 sqrt(K) + 8) u scale
 *
 * far above what any float32 summation order gives on these inputs (the
 * largest error over 16 million elements of a 4096^3 product is about 5
 * standard deviations), and far below what rounding the inputs to FP16 or
 * TF32 (10-bit mantissas) gives: their errors are about 2^-11 relative per
 * product, 100 times more, so a kernel that computes in lower precision
 * fails. The tensor-core stage is judged with its own bound, 2 * 2^-11 scale
 * plus the float32 one. */
#define _GNU_SOURCE
/* The reference is the grader's heaviest CPU work (2 x 4096^3 multiply-adds
 * per run): let GCC vectorise it fully, with an AVX2 version picked at run
 * time where the CPU has it (2.7x faster than -O2 alone, measured). */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("O3")
#endif
#if defined(__GNUC__) && defined(__x86_64__) && !defined(CUDA_LABS_COVERAGE)
#define REF_CLONES __attribute__((target_clones("avx2,fma", "default")))
#else
#define REF_CLONES
#endif
#include "gemm_lab.h"

#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../common/compare.h"
#include "../verdict.h"

typedef struct ref_job {
    const gemm_problem *p;
    double *exact, *scale;
    int row_begin, row_end;
} ref_job;

enum { ROWS = 16, KB = 256 }; /* a block of rows, a block of k */

REF_CLONES static void *ref_rows(void *arg)
{
    ref_job *j = arg;
    const gemm_problem *p = j->p;
    const int N = p->N, K = p->K;
    double *acc = malloc((size_t)ROWS * N * sizeof(double));
    double *mag = malloc((size_t)ROWS * N * sizeof(double));
    if (!acc || !mag) {
        free(acc);
        free(mag);
        return (void *)1;
    }
    for (int i0 = j->row_begin; i0 < j->row_end; i0 += ROWS) {
        int rows = j->row_end - i0 < ROWS ? j->row_end - i0 : ROWS;
        memset(acc, 0, (size_t)rows * N * sizeof(double));
        memset(mag, 0, (size_t)rows * N * sizeof(double));
        for (int k0 = 0; k0 < K; k0 += KB) {
            int k1 = K - k0 < KB ? K : k0 + KB;
            for (int r = 0; r < rows; r++) {
                const float *a = p->A + (size_t)(i0 + r) * K;
                double *ar = acc + (size_t)r * N, *mr = mag + (size_t)r * N;
                for (int k = k0; k < k1; k++) {
                    double x = a[k], ax = fabs(x);
                    const float *b = p->B + (size_t)k * N;
                    for (int c = 0; c < N; c++) {
                        ar[c] += x * b[c];
                        mr[c] += ax * fabs((double)b[c]);
                    }
                }
            }
        }
        for (int r = 0; r < rows; r++)
            for (int c = 0; c < N; c++) {
                size_t e = (size_t)(i0 + r) * N + c;
                double c0 = p->beta != 0.0f ? p->C0[e] : 0.0;
                j->exact[e] = p->alpha * acc[(size_t)r * N + c] + p->beta * c0;
                j->scale[e] = fabs(p->alpha) * mag[(size_t)r * N + c] + fabs(p->beta) * fabs(c0);
            }
    }
    free(acc);
    free(mag);
    return NULL;
}

int gemm_reference(const gemm_problem *p, double *exact, double *scale)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    int threads = cpus < 1 ? 1 : cpus > 64 ? 64 : (int)cpus;
    if (threads > p->M)
        threads = p->M;
    pthread_t tid[64];
    ref_job jobs[64];
    int started = 0, failed = 0;
    for (int t = 0; t < threads; t++) {
        jobs[t] = (ref_job){p, exact, scale, (int)((long long)p->M * t / threads),
                            (int)((long long)p->M * (t + 1) / threads)};
        if (pthread_create(&tid[t], NULL, ref_rows, &jobs[t]) != 0) {
            failed |= ref_rows(&jobs[t]) != NULL; /* no thread: do it here */
            tid[t] = 0;
        } else {
            started++;
        }
    }
    for (int t = 0; t < threads; t++)
        if (tid[t]) {
            void *rc = NULL;
            pthread_join(tid[t], &rc);
            failed |= rc != NULL;
        }
    (void)started;
    return failed ? -1 : 0;
}

double gemm_tolerance(int K, double scale, int tf32)
{
    double u = ldexp(1.0, -24);
    double t = (4.0 * sqrt((double)K) + 8.0) * u * scale;
    if (tf32)
        t += 2.0 * ldexp(1.0, -11) * scale;
    return t;
}

/* The tolerance of one element, for compare_all_within. */
typedef struct tol_args {
    int K, tf32;
} tol_args;

static double element_tolerance(const void *ctx, double scale)
{
    const tol_args *a = ctx;
    return gemm_tolerance(a->K, scale, a->tf32);
}

int gemm_judge(const gemm_problem *p, const double *exact, const double *scale, const float *got,
               int tf32, char *msg, size_t msgn)
{
    size_t n = (size_t)p->M * p->N, wrong = 0, unwritten = 0, nans = 0, first = n;
    tol_args args = {p->K, tf32}; /* the common case first, on all cores */
    if (compare_all_within(exact, scale, got, n, element_tolerance, &args))
        return V_PASS;
    double worst = 0;
    size_t worst_at = 0;
    for (size_t e = 0; e < n; e++) {
        float g = got[e];
        int bad;
        if (isnan(g) || isinf(g)) {
            bad = 1;
            if (compare_is_unwritten(g))
                unwritten++;
            else
                nans++;
        } else {
            double err = fabs((double)g - exact[e]);
            double tol = gemm_tolerance(p->K, scale[e], tf32);
            bad = err > tol;
            if (bad && err / (tol > 0 ? tol : 1e-300) > worst) {
                worst = err / (tol > 0 ? tol : 1e-300);
                worst_at = e;
            }
        }
        if (bad) {
            wrong++;
            if (first == n)
                first = e;
        }
    }
    if (!wrong)
        return V_PASS;
    int fi = (int)(first / p->N), fj = (int)(first % p->N);
    if (unwritten == wrong) {
        snprintf(msg, msgn,
                 "%zu of %zu elements of C were never written, the first C[%d][%d]. Does the grid "
                 "cover all of C, including the partial tiles at the right and bottom edges?",
                 unwritten, n, fi, fj);
        return V_NOT_WRITTEN;
    }
    if (nans) {
        snprintf(msg, msgn,
                 "%zu of %zu elements of C are NaN or infinite (first wrong: C[%d][%d], expected "
                 "%.7g).%s",
                 nans, n, fi, fj, exact[first],
                 p->beta == 0.0f ? " beta is 0 here and the old C holds NaN: as in BLAS, do not "
                                   "read C when beta == 0 (0 * NaN is NaN)."
                                 : " An element past the edge of A or B may have been read.");
        return V_NAN;
    }
    int wi = (int)(worst_at / p->N), wj = (int)(worst_at % p->N);
    double tol = gemm_tolerance(p->K, scale[worst_at], tf32);
    char why[240] = "";
    float gw = got[worst_at];
    double ab = exact[worst_at] - (p->beta != 0.0f ? p->beta * (double)p->C0[worst_at] : 0.0);
    if (p->beta != 0.0f && fabs((double)gw - ab) <= tol)
        snprintf(why, sizeof why, " It equals alpha A B without beta C: is beta ignored?");
    else if (!tf32 && fabs((double)gw - exact[worst_at]) <
                          32.0 * ldexp(1.0, -11) / sqrt((double)p->K) * scale[worst_at])
        snprintf(why, sizeof why,
                 " The errors are small but far above float32 rounding: are A and B rounded to "
                 "a lower precision (FP16, BF16, TF32 tensor cores)?");
    else if (p->K % 32 != 0)
        snprintf(why, sizeof why,
                 " K = %d is not a multiple of 32: is the last, partial tile of K skipped?",
                 p->K);
    snprintf(msg, msgn,
             "%zu of %zu elements of C are wrong; the first is C[%d][%d]. The worst is C[%d][%d] = "
             "%.7g, expected %.7g (off by %.3g, %.0f times the tolerance %.3g).%s",
             wrong, n, fi, fj, wi, wj, gw, exact[worst_at], fabs((double)gw - exact[worst_at]),
             worst, tol, why);
    return V_WRONG;
}
