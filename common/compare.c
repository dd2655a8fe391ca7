#include "compare.h"
#include "par.h"

#include <math.h>
#include <string.h>

int compare_is_unwritten(float x)
{
    uint32_t bits;
    memcpy(&bits, &x, sizeof bits);
    return bits == COMPARE_UNWRITTEN;
}

int compare_floats(const float *expected, const float *got, size_t n, double atol,
                   double rtol, compare_report *r)
{
    memset(r, 0, sizeof *r);
    r->n = n;
    for (size_t i = 0; i < n; i++) {
        double e = expected[i], g = got[i];
        int ok;
        if (!isfinite(g) || !isfinite(e)) {
            ok = 0; /* NaN never matches; neither does an infinity */
        } else {
            double err = fabs(g - e);
            if (err > r->max_abs_err)
                r->max_abs_err = err;
            ok = err <= atol + rtol * fabs(e);
        }
        if (ok)
            continue;
        int unwritten = compare_is_unwritten(got[i]);
        if (unwritten)
            r->unwritten++;
        else if (!isfinite(g))
            r->nans++;
        if (r->mismatches++ == 0) {
            r->first = i;
            r->expected = expected[i];
            r->got = got[i];
            r->first_unwritten = unwritten;
        }
    }
    return r->mismatches == 0;
}

/* Large buffers are compared by several threads, one slice each: the grader
 * checks a 256 MB output after every timed call. */
#define COMPARE_GRAIN ((size_t)4 << 20)

typedef struct pair {
    const unsigned char *a, *b;
} pair;

static int compare_slice(void *ctx, size_t begin, size_t end)
{
    const pair *p = ctx;
    return memcmp(p->a + begin, p->b + begin, end - begin) != 0;
}

/* 1 when the buffers differ, 0 when equal. */
static int buffers_differ(const unsigned char *a, const unsigned char *b, size_t n)
{
    pair p = {a, b};
    return par_for(n, COMPARE_GRAIN, compare_slice, &p);
}

typedef struct within_job {
    const double *exact, *scale;
    const float *got;
    double f1, f2;
} within_job;

/* No early exit: a branch-free loop the compiler vectorises runs at memory
 * speed, and a wrong result is the rare case. */
int compare_any_outside(const double *exact, const double *scale, const float *got, size_t n,
                        double f1, double f2)
{
    int bad = 0;
    if (f2 != 0.0)
        for (size_t e = 0; e < n; e++) {
            double g = got[e], tol = f1 * scale[e];
            tol += f2 * scale[e];
            bad |= (fabs(g - exact[e]) > tol) | !isfinite(g);
        }
    else
        for (size_t e = 0; e < n; e++) {
            double g = got[e];
            bad |= (fabs(g - exact[e]) > f1 * scale[e]) | !isfinite(g);
        }
    return bad;
}

static int any_outside(void *arg, size_t begin, size_t end)
{
    const within_job *j = arg;
    return compare_any_outside(j->exact + begin, j->scale + begin, j->got + begin, end - begin,
                               j->f1, j->f2);
}

int compare_all_within(const double *exact, const double *scale, const float *got, size_t n,
                       double f1, double f2)
{
    within_job j = {exact, scale, got, f1, f2};
    return !par_for(n, (size_t)1 << 16, any_outside, &j);
}

long long compare_first_diff_word(const void *a, const void *b, size_t n)
{
    if (!buffers_differ(a, b, n))
        return -1;
    const unsigned char *x = a, *y = b;
    /* Narrow down in chunks so the common case (a late difference) stays fast. */
    size_t chunk = 1u << 16, off = 0;
    while (off + chunk < n && memcmp(x + off, y + off, chunk) == 0)
        off += chunk;
    for (size_t i = off; i + 4 <= n; i += 4)
        if (memcmp(x + i, y + i, 4) != 0)
            return (long long)(i / 4);
    return (long long)(n / 4);
}
