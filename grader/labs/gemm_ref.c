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
 * standard deviations). Rounding the inputs to a 10-bit mantissa (FP16,
 * TF32) moves each product by up to 2^-10 of itself, but with random signs
 * those errors cancel like the float32 ones: at K = 4096 they would sit near
 * this bound. So the graded inputs (gemm_fill_inputs) hold probe rows and
 * columns whose products all round the same way, which puts TF32's error at
 * 25 times the bound and more; and rows and columns beyond FP16's range. The
 * tensor-core stage is judged with its own bound, 2 * 2^-11 scale plus the
 * float32 one: TF32 rounded to nearest passes (probes at most 0.62 of it),
 * BF16's 7 bits do not; and, since probes can be recognised and redone, by
 * how many elements of each tile lie near that bound (gemm_tf32_spread). */
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
#include "../../common/par.h"
#include "../../common/rng.h"
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

void gemm_tolerance_factors(int K, int kind, double *t1, double *t2)
{
    double u = ldexp(1.0, -24);
    *t1 = (4.0 * sqrt((double)K) + 8.0 + (kind == GEMM_TC_SUM ? K / 8.0 : 0.0)) * u;
    *t2 = kind == GEMM_TF32 ? 2.0 * ldexp(1.0, -11) : 0.0;
}

double gemm_tolerance(int K, double scale, int kind)
{
    double t1, t2;
    gemm_tolerance_factors(K, kind, &t1, &t2);
    double t = t1 * scale;
    if (t2 != 0.0)
        t += t2 * scale;
    return t;
}

/* FP16's largest value, and the magnitude below which it rounds to 0. */
#define FP16_MAX 65504.0
#define FP16_ZERO 0x1p-25

static double row_max(const gemm_problem *p, int i)
{
    double m = 0;
    for (int k = 0; k < p->K; k++)
        m = fmax(m, fabs((double)p->A[(size_t)i * p->K + k]));
    return m;
}

static double col_max(const gemm_problem *p, int j)
{
    double m = 0;
    for (int k = 0; k < p->K; k++)
        m = fmax(m, fabs((double)p->B[(size_t)k * p->N + j]));
    return m;
}

#define NARROW_FORMAT                                                                        \
    " are A and B rounded to a lower precision (FP16, __half)? Every stage, the tensor-core " \
    "one too, must keep float32's exponent range; TF32 does."

/* Element (i, j) of C, when its row of A goes beyond FP16's range or its
 * column of B below it: why (FP16 makes them infinite or 0). 0: neither. */
static int fp16_range(const gemm_problem *p, int i, int j, char *why, size_t n)
{
    double a = row_max(p, i), b = col_max(p, j);
    if (a > FP16_MAX)
        snprintf(why, n, " Row %d of A holds values up to %.3g, beyond FP16's largest (65504):%s",
                 i, a, NARROW_FORMAT);
    else if (b > 0 && b < FP16_ZERO)
        snprintf(why, n,
                 " Column %d of B holds values no larger than %.3g, which FP16 makes 0 (its "
                 "smallest is about 6e-8):%s",
                 j, b, NARROW_FORMAT);
    else
        return 0;
    return 1;
}

/* Errors beyond a narrow format's rounding (BF16's 2^-7 of the scale, with
 * room): how many elements of C have one, and (*in_range) how many of those
 * lie in a row of A and a column of B within FP16's range. Where they lie
 * tells a range problem (only in rows of A beyond FP16's range or columns of
 * B below it) from a wrong layout or index (anywhere). */
static size_t coarse_errors(const gemm_problem *p, const double *exact, const double *scale,
                            const float *got, size_t *in_range)
{
    size_t n = (size_t)p->M * p->N, coarse = 0;
    *in_range = 0;
    double *rmax = malloc((size_t)p->M * sizeof *rmax), *cmax = malloc((size_t)p->N * sizeof *cmax);
    for (int i = 0; rmax && i < p->M; i++)
        rmax[i] = row_max(p, i);
    for (int j = 0; cmax && j < p->N; j++)
        cmax[j] = col_max(p, j);
    for (size_t e = 0; rmax && cmax && e < n; e++) {
        double err = fabs((double)got[e] - exact[e]);
        if (!(err > 4.0 * ldexp(1.0, -7) * scale[e]))
            continue;
        coarse++;
        double a = rmax[e / p->N], b = cmax[e % p->N];
        *in_range += !(a > FP16_MAX) && !(b > 0 && b < FP16_ZERO);
    }
    free(rmax);
    free(cmax);
    return coarse;
}

int gemm_judge(const gemm_problem *p, const double *exact, const double *scale, const float *got,
               int kind, char *msg, size_t msgn)
{
    size_t n = (size_t)p->M * p->N, wrong = 0, unwritten = 0, nans = 0, first = n;
    double t1, t2; /* the common case first, on all cores, as gemm_tolerance computes */
    gemm_tolerance_factors(p->K, kind, &t1, &t2);
    if (compare_all_within(exact, scale, got, n, t1, t2))
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
            double tol = gemm_tolerance(p->K, scale[e], kind);
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
    char why[600] = "";
    if (nans) {
        /* NaN or infinite only in rows of A beyond FP16's range: FP16 inside. */
        int in_range_rows = 1;
        size_t first_nan = n;
        double *rows = malloc((size_t)p->M * sizeof *rows);
        for (int i = 0; rows && i < p->M; i++)
            rows[i] = row_max(p, i);
        for (size_t e = 0; rows && in_range_rows && e < n; e++)
            if (isnan(got[e]) || isinf(got[e])) {
                in_range_rows = rows[e / p->N] > FP16_MAX;
                if (first_nan == n)
                    first_nan = e;
            }
        free(rows);
        if (rows && in_range_rows && first_nan < n &&
            fp16_range(p, (int)(first_nan / p->N), (int)(first_nan % p->N), why, sizeof why)) {
            snprintf(msg, msgn,
                     "%zu of %zu elements of C are NaN or infinite, all in rows of A whose values "
                     "lie beyond FP16's range (the first: C[%zu][%zu], expected %.7g).%s",
                     nans, n, first_nan / p->N, first_nan % p->N, exact[first_nan], why);
            return V_WRONG;
        }
        snprintf(msg, msgn,
                 "%zu of %zu elements of C are NaN or infinite (first wrong: C[%d][%d], expected "
                 "%.7g).%s",
                 nans, n, fi, fj, exact[first],
                 p->beta == 0.0f ? " beta is 0 here and the old C holds NaN: as in BLAS, do not "
                                   "read C when beta == 0 (0 * NaN is NaN)."
                                 : " An element past the edge of A or B may have been read.");
        return V_NAN;
    }
    size_t coarse_in_range = 0, coarse = coarse_errors(p, exact, scale, got, &coarse_in_range);
    int wi = (int)(worst_at / p->N), wj = (int)(worst_at % p->N);
    double tol = gemm_tolerance(p->K, scale[worst_at], kind);
    float gw = got[worst_at];
    double ab = exact[worst_at] - (p->beta != 0.0f ? p->beta * (double)p->C0[worst_at] : 0.0);
    double werr = fabs((double)gw - exact[worst_at]);
    /* Rounding both inputs to a 10-bit mantissa (TF32, FP16) moves a product
     * by up to about 2^-10 of it, to BF16's 7 bits by up to 2^-7: at most
     * that share of the scale, when every product moves the same way. */
    if (p->beta != 0.0f && fabs((double)gw - ab) <= tol)
        snprintf(why, sizeof why, " It equals alpha A B without beta C: is beta ignored?");
    /* A layout is named only where C has room to show it and no partial tile
     * of K could explain it instead (a skipped tail at M = N = K = 1 leaves
     * all of C off, measured on the H200). */
    else if (coarse_in_range > 0 && 2 * coarse > n && n >= 64 && p->K % 32 == 0)
        snprintf(why, sizeof why,
                 " Most of C is far off, in every part of it: check how each operand is laid "
                 "out and indexed (row or column major, which of A and B is transposed, the "
                 "leading dimensions) against the lab's header.");
    /* FP16's range only where the worst element looks like it: an overflow
     * (infinite) or a flushed column (C near 0), not a value off by a
     * rounding (BF16 keeps the range; measured on the H200: a BF16 stage at
     * M = N = K = 1 with column 0 of B below FP16's range, off by 2^-9). */
    else if (coarse_in_range == 0 && werr > 0.5 * fabs(exact[worst_at]) &&
             fp16_range(p, wi, wj, why, sizeof why)) {
        if (p->K % 32 != 0 && gw == 0.0f) { /* a skipped tail of K leaves 0 as well */
            size_t len = strlen(why);
            snprintf(why + len, sizeof why - len,
                     " Or, as K = %d is not a multiple of 32: is the last, partial tile of K "
                     "skipped?",
                     p->K);
        }
    }
    else if (kind != GEMM_TF32 && werr <= 4.0 * ldexp(1.0, -11) * scale[worst_at])
        snprintf(why, sizeof why,
                 " The errors are small but far above float32 rounding: are A and B rounded to "
                 "a lower precision (FP16, BF16, TF32 tensor cores)?");
    else if (kind == GEMM_TF32 && werr <= 4.0 * ldexp(1.0, -8) * scale[worst_at])
        snprintf(why, sizeof why,
                 " The errors are small but above what TF32's 10-bit mantissa gives: are A and "
                 "B rounded to a lower precision than TF32 (BF16 keeps 7 bits), or truncated "
                 "instead of rounded to nearest (cvt.rna.tf32.f32)?");
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

/* ---- the graded inputs ---- */

enum { KIND_PLAIN, KIND_RANGE, KIND_PROBE };

/* Plain most of the time, one sixteenth of each other kind; forced once each
 * at the positions first and second (distinct), when n > 1. */
static void pick_kinds(unsigned char *kind, int n, rng *r)
{
    for (int i = 0; i < n; i++) {
        uint64_t d = rng_below(r, 16);
        kind[i] = d == 0 ? KIND_RANGE : d == 1 ? KIND_PROBE : KIND_PLAIN;
    }
    if (n > 1) {
        int first = (int)rng_below(r, (uint64_t)n), second = (int)rng_below(r, (uint64_t)n - 1);
        second += second >= first;
        kind[first] = KIND_RANGE;
        kind[second] = KIND_PROBE;
    }
}

/* A probe's magnitude: 1 + f 2^-23 with f's top bits (those BF16 keeps)
 * random in [0, 32), so the value lies in [1, 1.25), and its low 16 bits in
 * [0x6800, 0x69FF]: 0.41 of BF16's last kept bit above a BF16 value and 0.25
 * to 0.31 of TF32's (and FP16's) above a TF32 value, so rounding to any of
 * them, to nearest or towards zero, goes down. A product of two probes then
 * moves by 0.4 to 0.62 of 2^-10 of itself in TF32 (always within the TF32
 * stage's bound, 2^-10, and 25 times the float32 bound at K = 4096), and by
 * about 0.65 of 2^-7 in BF16 (5 times the TF32 bound). */
static float probe_value(rng *r)
{
    uint32_t f = ((uint32_t)rng_below(r, 32) << 16) | 0x6800u | (uint32_t)rng_below(r, 0x200);
    uint32_t bits = 0x3F800000u | f;
    float x;
    memcpy(&x, &bits, sizeof x);
    return x;
}

void gemm_fill_inputs(int M, int N, int K, float *A, float *B, rng *r)
{
    rng_fill_uniform(r, A, (size_t)M * K, -1.0f, 1.0f);
    rng_fill_uniform(r, B, (size_t)K * N, -1.0f, 1.0f);
    unsigned char *rows = malloc((size_t)M + 1), *cols = malloc((size_t)N + 1);
    if (!rows || !cols) { /* uniform inputs only: still a valid problem */
        free(rows);
        free(cols);
        return;
    }
    pick_kinds(rows, M, r);
    pick_kinds(cols, N, r);
    for (int i = 0; i < M; i++) {
        float *a = A + (size_t)i * K;
        if (rows[i] == KIND_RANGE) { /* 2^17 to 2^20: FP16 overflows (its largest is 65504) */
            float s = ldexpf(1.0f, 17 + (int)rng_below(r, 4));
            for (int k = 0; k < K; k++)
                a[k] *= s;
        } else if (rows[i] == KIND_PROBE) {
            float sign = rng_below(r, 2) ? -1.0f : 1.0f;
            for (int k = 0; k < K; k++)
                a[k] = sign * probe_value(r);
        }
    }
    for (int j = 0; j < N; j++) {
        if (cols[j] == KIND_RANGE) { /* 2^-27 to 2^-30: below FP16's smallest, 2^-24 */
            float s = ldexpf(1.0f, -27 - (int)rng_below(r, 4));
            for (int k = 0; k < K; k++)
                B[(size_t)k * N + j] *= s;
        } else if (cols[j] == KIND_PROBE) {
            float sign = rng_below(r, 2) ? -1.0f : 1.0f;
            for (int k = 0; k < K; k++)
                B[(size_t)k * N + j] = sign * probe_value(r);
        }
    }
    free(rows);
    free(cols);
}

/* ---- patched inputs ---- */

static float word_float(uint32_t w)
{
    float x;
    memcpy(&x, &w, sizeof x);
    return x;
}

/* The value of B[k][j] after the patches of B (ib sorted). */
static double patched(const float *X, size_t e, const uint64_t *idx, const uint32_t *val, int n)
{
    int lo = 0, hi = n - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        if (idx[mid] == e)
            return word_float(val[mid]);
        if (idx[mid] < e)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return X[e];
}

/* The columns of C that the patches of B change, walked row by row (one
 * pass over the rows touches every patched column, where a column at a time
 * would stride through all of C once per column and per array), the rows
 * shared among threads. Per element, the same double operations in the same
 * order as one column at a time. */
typedef struct col_job {
    const gemm_problem *p;
    double *exact, *scale, *save;
    const uint64_t *ib;
    const uint32_t *vb;
    int nb;
    int what; /* COL_SAVE, COL_ADD or COL_RESTORE */
} col_job;

enum { COL_SAVE, COL_ADD, COL_RESTORE };

static int col_rows(void *ctx, size_t begin, size_t end)
{
    const col_job *c = ctx;
    const gemm_problem *p = c->p;
    const size_t M = (size_t)p->M, N = (size_t)p->N, K = (size_t)p->K;
    const double alpha = p->alpha, aa = fabs(alpha);
    for (size_t i = begin; i < end; i++)
        for (int t = 0; t < c->nb; t++) {
            size_t k = (size_t)(c->ib[t] / N), j = (size_t)(c->ib[t] % N), e = i * N + j;
            double *s = c->save + 2 * M * (size_t)t;
            if (c->what == COL_SAVE) {
                s[i] = c->exact[e];
                s[M + i] = c->scale[e];
            } else if (c->what == COL_RESTORE) {
                c->exact[e] = s[i];
                c->scale[e] = s[M + i];
            } else {
                double b0 = p->B[c->ib[t]], b1 = word_float(c->vb[t]);
                double a = p->A[i * K + k];
                c->exact[e] += alpha * a * (b1 - b0);
                c->scale[e] += aa * fabs(a) * (fabs(b1) - fabs(b0));
            }
        }
    return 0;
}

void gemm_patch_expect(const gemm_problem *p, double *exact, double *scale, const uint64_t *ia,
                       const uint32_t *va, int na, const uint64_t *ib, const uint32_t *vb, int nb,
                       double *save)
{
    const int N = p->N, K = p->K;
    const double alpha = p->alpha, aa = fabs(alpha);
    double *s = save;
    for (int t = 0; t < na; t++) { /* every value saved before any changes */
        size_t row = (size_t)(ia[t] / (uint64_t)K) * N;
        memcpy(s, exact + row, (size_t)N * sizeof *s);
        memcpy(s + N, scale + row, (size_t)N * sizeof *s);
        s += 2 * (size_t)N;
    }
    col_job cols = {p, exact, scale, s, ib, vb, nb, COL_SAVE};
    par_for((size_t)p->M, 64, col_rows, &cols);
    /* A'B' - AB = (A' - A) B' + A (B' - B), and likewise for |A||B|: the
     * rows first, then the columns. */
    for (int t = 0; t < na; t++) {
        size_t i = (size_t)(ia[t] / (uint64_t)K), k = (size_t)(ia[t] % (uint64_t)K);
        double a0 = p->A[ia[t]], a1 = word_float(va[t]);
        double d = alpha * (a1 - a0), dm = aa * (fabs(a1) - fabs(a0));
        for (int j = 0; j < N; j++) {
            double b = patched(p->B, k * N + j, ib, vb, nb);
            exact[i * N + j] += d * b;
            scale[i * N + j] += dm * fabs(b);
        }
    }
    cols.what = COL_ADD;
    par_for((size_t)p->M, 64, col_rows, &cols);
}

void gemm_patch_undo(const gemm_problem *p, double *exact, double *scale, const uint64_t *ia,
                     int na, const uint64_t *ib, int nb, const double *save)
{
    const int N = p->N, K = p->K;
    const double *s = save; /* all saved before any change: any order restores */
    for (int t = 0; t < na; t++) {
        size_t row = (size_t)(ia[t] / (uint64_t)K) * N;
        memcpy(exact + row, s, (size_t)N * sizeof *s);
        memcpy(scale + row, s + N, (size_t)N * sizeof *s);
        s += 2 * (size_t)N;
    }
    col_job cols = {p, exact, scale, (double *)s, ib, NULL, nb, COL_RESTORE};
    par_for((size_t)p->M, 64, col_rows, &cols);
}

/* ---- a patched call's C, looked at without writing exact and scale ----
 * The expected values of the rows and columns that the patches change go to
 * overrides in save; every other element is compared with exact and scale as
 * they are. Nothing is written to exact and scale, which a grading process
 * shares with its parent until it writes them (one write to a page of them
 * copies the page: a patched column touches a page in every row). The
 * overrides hold the values gemm_patch_expect would write, by the same
 * double operations in the same order, and the rule is compare_all_within's,
 * so this says "all within" exactly when the first look of gemm_judge after
 * gemm_patch_expect would. */

#define OVER_MAX 64 /* patches of A, and of B, at most */

typedef struct over_job {
    const double *exact, *scale;
    const float *got;
    int N;
    double t1, t2;
    int nrows, ncols;
    int row[OVER_MAX], col[OVER_MAX]; /* distinct, ascending */
    double *row_e[OVER_MAX], *row_s[OVER_MAX], *col_e[OVER_MAX], *col_s[OVER_MAX];
} over_job;

/* compare_all_within's rule on [from, to) of one row. */
static int outside(const double *e, const double *s, const float *got, int from, int to,
                   double t1, double t2)
{
    return to > from && compare_any_outside(e + from, s + from, got + from, (size_t)(to - from),
                                            t1, t2);
}

static int find(const int *v, int n, int x)
{
    for (int t = 0; t < n; t++)
        if (v[t] == x)
            return t;
    return -1;
}

static int over_rows(void *ctx, size_t begin, size_t end)
{
    const over_job *o = ctx;
    const int N = o->N;
    int bad = 0;
    for (size_t i = begin; i < end; i++) {
        const float *g = o->got + i * (size_t)N;
        int r = find(o->row, o->nrows, (int)i);
        if (r >= 0) { /* its columns' overrides are copied into the row's */
            bad |= outside(o->row_e[r], o->row_s[r], g, 0, N, o->t1, o->t2);
            continue;
        }
        const double *e = o->exact + i * (size_t)N, *s = o->scale + i * (size_t)N;
        int from = 0;
        for (int c = 0; c < o->ncols; c++) {
            int j = o->col[c];
            bad |= outside(e, s, g, from, j, o->t1, o->t2);
            bad |= outside(&o->col_e[c][i], &o->col_s[c][i], &g[j], 0, 1, o->t1, o->t2);
            from = j + 1;
        }
        bad |= outside(e, s, g, from, N, o->t1, o->t2);
    }
    return bad;
}

static int add_sorted(int *v, int n, int x)
{
    if (find(v, n, x) >= 0)
        return n;
    int at = n;
    while (at > 0 && v[at - 1] > x) {
        v[at] = v[at - 1];
        at--;
    }
    v[at] = x;
    return n + 1;
}

int gemm_patched_within(const gemm_problem *p, const double *exact, const double *scale,
                        const float *got, const uint64_t *ia, const uint32_t *va, int na,
                        const uint64_t *ib, const uint32_t *vb, int nb, int kind, double *save)
{
    if (na > OVER_MAX || nb > OVER_MAX)
        return 0; /* the caller's full path decides */
    const int M = p->M, N = p->N, K = p->K;
    const double alpha = p->alpha, aa = fabs(alpha);
    over_job o = {exact, scale, got, N, 0, 0, 0, 0, {0}, {0}, {0}, {0}, {0}, {0}};
    gemm_tolerance_factors(K, kind, &o.t1, &o.t2);
    for (int t = 0; t < na; t++)
        o.nrows = add_sorted(o.row, o.nrows, (int)(ia[t] / (uint64_t)K));
    for (int t = 0; t < nb; t++)
        o.ncols = add_sorted(o.col, o.ncols, (int)(ib[t] % (uint64_t)N));
    double *w = save;
    for (int r = 0; r < o.nrows; r++) { /* the rows: as gemm_patch_expect's first updates */
        size_t i = (size_t)o.row[r];
        o.row_e[r] = w, o.row_s[r] = w + N, w += 2 * (size_t)N;
        memcpy(o.row_e[r], exact + i * N, (size_t)N * sizeof *w);
        memcpy(o.row_s[r], scale + i * N, (size_t)N * sizeof *w);
        for (int t = 0; t < na; t++) {
            if (ia[t] / (uint64_t)K != i)
                continue;
            size_t k = (size_t)(ia[t] % (uint64_t)K);
            double a0 = p->A[ia[t]], a1 = word_float(va[t]);
            double d = alpha * (a1 - a0), dm = aa * (fabs(a1) - fabs(a0));
            for (int j = 0; j < N; j++) {
                double b = patched(p->B, k * N + j, ib, vb, nb);
                o.row_e[r][j] += d * b;
                o.row_s[r][j] += dm * fabs(b);
            }
        }
    }
    for (int c = 0; c < o.ncols; c++) { /* the columns: from the rows' values, then B's */
        size_t j = (size_t)o.col[c];
        o.col_e[c] = w, o.col_s[c] = w + M, w += 2 * (size_t)M;
        for (int i = 0; i < M; i++) {
            int r = find(o.row, o.nrows, i);
            o.col_e[c][i] = r >= 0 ? o.row_e[r][j] : exact[(size_t)i * N + j];
            o.col_s[c][i] = r >= 0 ? o.row_s[r][j] : scale[(size_t)i * N + j];
        }
        for (int t = 0; t < nb; t++) {
            if (ib[t] % (uint64_t)N != j)
                continue;
            size_t k = (size_t)(ib[t] / (uint64_t)N);
            double b0 = p->B[ib[t]], b1 = word_float(vb[t]);
            for (int i = 0; i < M; i++) {
                double a = p->A[(size_t)i * K + k];
                o.col_e[c][i] += alpha * a * (b1 - b0);
                o.col_s[c][i] += aa * fabs(a) * (fabs(b1) - fabs(b0));
            }
        }
        for (int r = 0; r < o.nrows; r++) { /* where a patched row crosses it */
            o.row_e[r][j] = o.col_e[c][o.row[r]];
            o.row_s[r][j] = o.col_s[c][o.row[r]];
        }
    }
    return !par_for((size_t)M, 64, over_rows, &o);
}

/* ---- the tensor-core stage: how the errors spread ----
 * The per-element bound cannot tell BF16 from TF32 away from the probes:
 * with random signs, a product's rounding errors cancel, and K of them sum
 * to about sqrt(K) times one, far inside a bound that must hold for errors
 * of one sign. How the errors spread tells them apart. Measure each
 * element's error in units of 2^-10 scale / sqrt(K) (about the size of K
 * random TF32 roundings; a few percent of the bound at K = 4096): a share
 * of the elements is beyond SPREAD_Z units. On the graded inputs
 * (simulated in double, with each rounding applied to the float inputs;
 * tiles of 64 x 64, every graded shape with K >= 64, up to 3000 seeds in a
 * review) the largest share of a tile is about 5% for TF32 rounded to
 * nearest, 8% with A chopped, 16.4% with both chopped (what tensor cores
 * do with float bits as they are; a mean of 10-12%, a standard deviation
 * of 1.4%), and 49% to 64% for BF16 rounded to nearest, with or without
 * the probe crossings recomputed in float32 (check_gemm.c's
 * tf32_spread_tells_bf16 holds the C code to these). A tile fails above
 * 30%. What passes: BF16 on an eighth of K (the rest chopped TF32: tiles
 * at 20% to 31%), or on up to 20 of every 64 rows of C (28%). */
#define SPREAD_Z 1.5
#define SPREAD_LIMIT 0.30
enum { SPREAD_TILE = 64, SPREAD_MIN = 256, SPREAD_MIN_K = 16 };

typedef struct spread_job {
    const gemm_problem *p;
    const double *exact, *scale;
    const float *got;
    const unsigned char *skip_row, *skip_col; /* rows and columns that patches change */
    double unit;                              /* SPREAD_Z 2^-10 / sqrt(K) */
    double *share;                            /* per tile row: the largest share, or -1 */
    int *at;                                  /* ... and its tile column */
} spread_job;

static int spread_rows(void *ctx, size_t begin, size_t end)
{
    const spread_job *s = ctx;
    const int M = s->p->M, N = s->p->N, tiles = (N + SPREAD_TILE - 1) / SPREAD_TILE;
    size_t *beyond = calloc((size_t)tiles, sizeof *beyond),
           *counted = calloc((size_t)tiles, sizeof *counted);
    for (size_t t = begin; t < end; t++) {
        s->share[t] = -1;
        if (!beyond || !counted)
            continue; /* no memory: no judgement here (never held against the stage) */
        memset(beyond, 0, (size_t)tiles * sizeof *beyond);
        memset(counted, 0, (size_t)tiles * sizeof *counted);
        int i1 = (int)(t + 1) * SPREAD_TILE < M ? (int)(t + 1) * SPREAD_TILE : M;
        for (int i = (int)t * SPREAD_TILE; i < i1; i++) {
            if (s->skip_row[i])
                continue;
            const double *e = s->exact + (size_t)i * N, *sc = s->scale + (size_t)i * N;
            const float *g = s->got + (size_t)i * N;
            for (int j = 0; j < N; j++) {
                if (s->skip_col[j] || !(sc[j] > 0))
                    continue;
                counted[j / SPREAD_TILE]++;
                beyond[j / SPREAD_TILE] += fabs((double)g[j] - e[j]) > s->unit * sc[j];
            }
        }
        for (int c = 0; c < tiles; c++)
            if (counted[c] >= SPREAD_MIN && (double)beyond[c] / counted[c] > s->share[t]) {
                s->share[t] = (double)beyond[c] / counted[c];
                s->at[t] = c;
            }
    }
    free(beyond);
    free(counted);
    return 0;
}

double gemm_tf32_share(const gemm_problem *p, const double *exact, const double *scale,
                       const float *got, const uint64_t *ia, int na, const uint64_t *ib, int nb,
                       int *tile_row, int *tile_col)
{
    *tile_row = *tile_col = 0;
    if (p->K < SPREAD_MIN_K)
        return -1;
    const int M = p->M, N = p->N, rows = (M + SPREAD_TILE - 1) / SPREAD_TILE;
    unsigned char *skip_row = calloc((size_t)M, 1), *skip_col = calloc((size_t)N, 1);
    double *share = malloc((size_t)rows * sizeof *share), worst = -1;
    int *at = calloc((size_t)rows, sizeof *at);
    if (skip_row && skip_col && share && at) { /* else no judgement (never held against it) */
        for (int t = 0; t < na; t++)
            skip_row[ia[t] / (uint64_t)p->K] = 1;
        for (int t = 0; t < nb; t++)
            skip_col[ib[t] % (uint64_t)N] = 1;
        spread_job s = {p,        exact,    scale, got, skip_row, skip_col,
                        SPREAD_Z * ldexp(1.0, -10) / sqrt((double)p->K), share, at};
        par_for((size_t)rows, 1, spread_rows, &s);
        for (int t = 0; t < rows; t++)
            if (share[t] > worst) {
                worst = share[t];
                *tile_row = t * SPREAD_TILE;
                *tile_col = at[t] * SPREAD_TILE;
            }
    }
    free(skip_row);
    free(skip_col);
    free(share);
    free(at);
    return worst;
}

int gemm_tf32_spread(const gemm_problem *p, const double *exact, const double *scale,
                     const float *got, const uint64_t *ia, int na, const uint64_t *ib, int nb,
                     char *msg, size_t msgn)
{
    int r0, c0;
    double share = gemm_tf32_share(p, exact, scale, got, ia, na, ib, nb, &r0, &c0);
    if (!(share > SPREAD_LIMIT))
        return V_PASS;
    int r1 = r0 + SPREAD_TILE < p->M ? r0 + SPREAD_TILE : p->M;
    int c1 = c0 + SPREAD_TILE < p->N ? c0 + SPREAD_TILE : p->N;
    snprintf(msg, msgn,
             "Every element of C is within the tolerance, but the errors are spread as a "
             "precision below TF32 spreads them: in C[%d..%d][%d..%d], %.1f%% of the elements "
             "are off by more than %.1f x 2^-10 x scale / sqrt(K) (scale: the element's sum of "
             "|a||b|, times |alpha|, plus |beta C0| when beta is not 0); more than %.0f%% fails. "
             "TF32 leaves at most about 17%% there (the float bits as they are) or 5%% "
             "(cvt.rna.tf32.f32); BF16 about 60%%. Are A or B rounded to a lower precision than "
             "TF32 (BF16, 7-bit mantissa) for some of K or some of C? Either TF32 form passes.",
             r0, r1 - 1, c0, c1 - 1, 100.0 * share, SPREAD_Z, 100.0 * SPREAD_LIMIT);
    return V_WRONG;
}

int gemm_check_patched(const gemm_problem *p, double *exact, double *scale, const float *got,
                       const uint64_t *ia, const uint32_t *va, int na, const uint64_t *ib,
                       const uint32_t *vb, int nb, int kind, double *save, char *msg, size_t msgn)
{
    const int patched = na + nb > 0;
    int v = V_PASS;
    /* The common case, a timed call's C all within the tolerance, is seen
     * without writing to exact and scale; anything else is judged the slow
     * way, which names what is wrong. The two agree on "all within". */
    if (!patched || !gemm_patched_within(p, exact, scale, got, ia, va, na, ib, vb, nb, kind, save)) {
        if (patched) /* the expected C of the patched inputs, undone below */
            gemm_patch_expect(p, exact, scale, ia, va, na, ib, vb, nb, save);
        v = gemm_judge(p, exact, scale, got, kind, msg, msgn);
        if (patched)
            gemm_patch_undo(p, exact, scale, ia, na, ib, nb, save);
    }
    /* Within every bound: in a TF32 stage, also how the errors spread (the
     * patched rows and columns left out). */
    if (v == V_PASS && kind == GEMM_TF32)
        v = gemm_tf32_spread(p, exact, scale, got, ia, na, ib, nb, msg, msgn);
    return v;
}
