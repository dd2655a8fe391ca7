/* devcheck.c: grader/ceilings/devcheck.cu's checks, done on the host for the
 * fake GPU (cudart.c): the same functions, the same results, word for word. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "../../ceilings/ceilings.h"

static void note(unsigned long long *res, uint64_t i)
{
    res[0]++;
    if (i < res[1])
        res[1] = i;
}

static void reset(unsigned long long *res)
{
    res[0] = 0;
    res[1] = ~0ull;
}

int devcheck_mark(cudaStream_t s, unsigned hold_ns)
{
    (void)s, (void)hold_ns;
    return 0;
}

int devcheck_scatter(void *buf, const uint64_t *d_idx, const uint32_t *d_val, int p, cudaStream_t s)
{
    (void)s;
    for (int k = 0; k < p; k++)
        ((uint32_t *)buf)[d_idx[k]] = d_val[k];
    return 0;
}

/* The number of sorted positions pos[0..n) that are <= x. */
static int count_le(const uint64_t *pos, int n, uint64_t x)
{
    int lo = 0, hi = n;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (pos[mid] <= x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

int devcheck_verify(const void *now, const void *orig, uint64_t n, const uint64_t *d_idx,
                    const uint32_t *d_val, int p, unsigned long long *res, cudaStream_t s)
{
    (void)s;
    const uint32_t *w = now, *o = orig;
    reset(res);
    for (uint64_t i = 0; i < n; i++)
        if (w[i] != o[i]) {
            int k = count_le(d_idx, p, i);
            if (!(k > 0 && d_idx[k - 1] == i && d_val[k - 1] == w[i]))
                note(res, i);
        }
    for (int k = 0; k < p; k++)
        if (w[d_idx[k]] != d_val[k])
            note(res, d_idx[k]);
    return 0;
}

int devcheck_compare(const void *now, const void *expect, uint64_t n, uint64_t seg,
                     const uint64_t *opos, const uint32_t *oval, int no, const uint64_t *dpos,
                     const uint32_t *dcum, int nd, unsigned long long *res, cudaStream_t s)
{
    (void)s;
    const uint32_t *w = now, *e = expect;
    reset(res);
    for (uint64_t i = 0; i < n; i++) {
        uint32_t x = e[i];
        if (no > 0) {
            int k = count_le(opos, no, i);
            if (k > 0 && opos[k - 1] == i)
                x = oval[k - 1];
        }
        if (nd > 0) {
            uint64_t start = seg ? i - i % seg : 0;
            int hi = count_le(dpos, nd, i);
            int lo = start ? count_le(dpos, nd, start - 1) : 0;
            if (hi > lo)
                x += dcum[hi - 1] - (lo > 0 ? dcum[lo - 1] : 0u);
        }
        if (w[i] != x)
            note(res, i);
    }
    return 0;
}

int devcheck_transpose(const void *out, const void *in, uint64_t rows, uint64_t cols, int copy,
                       unsigned long long *res, cudaStream_t s)
{
    (void)s;
    const uint32_t *o = out, *x = in;
    reset(res);
    for (uint64_t r = 0; r < rows; r++) /* out[c][r] = in[r][c], in the input's order */
        for (uint64_t c = 0; c < cols; c++) {
            uint64_t dst = copy ? r * cols + c : c * rows + r;
            if (o[dst] != x[r * cols + c])
                note(res, dst);
        }
    return 0;
}

int devcheck_scan(const void *out, const void *in, uint64_t n, uint64_t seg,
                  unsigned long long *res, cudaStream_t s)
{
    (void)s;
    const uint32_t *o = out, *x = in;
    reset(res);
    for (uint64_t i = 0; i < n; i++) {
        uint32_t before = i == 0 || (seg && i % seg == 0) ? 0u : o[i - 1];
        if (o[i] - before != x[i])
            note(res, i);
    }
    return 0;
}

int devcheck_within(const float *got, const double *exact, const double *scale, uint64_t rows,
                    uint64_t cols, double t1, double t2, const uint64_t *orow,
                    const double *orow_exact, const double *orow_scale, int nor,
                    const uint64_t *ocol, const double *ocol_exact, const double *ocol_scale,
                    int noc, unsigned long long *res, cudaStream_t s)
{
    (void)s;
    reset(res);
    for (uint64_t e = 0; e < rows * cols; e++) {
        uint64_t i = e / cols, j = e % cols;
        double x = exact[e], sc = scale[e];
        for (int k = 0; k < nor; k++)
            if (orow[k] == i) {
                x = orow_exact[k * cols + j];
                sc = orow_scale[k * cols + j];
            }
        for (int k = 0; k < noc; k++)
            if (ocol[k] == j) {
                x = ocol_exact[k * rows + i];
                sc = ocol_scale[k * rows + i];
            }
        double tol = t1 * sc;
        if (t2 != 0.0)
            tol = tol + t2 * sc;
        if (!isfinite(got[e]) || fabs((double)got[e] - x) > tol)
            note(res, e);
    }
    return 0;
}

int devcheck_fill(void *buf, uint64_t n_words, uint64_t seed, int kind, double lo, double hi,
                  cudaStream_t s)
{
    (void)s;
    uint32_t *b = buf;
    for (uint64_t i = 0; i < n_words; i++) {
        uint64_t z = seed + (i + 1) * 0x9e3779b97f4a7c15ull;
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        z ^= z >> 31;
        if (kind == DEVCHECK_FILL_INTS) {
            b[i] = (uint32_t)((int)lo + (int)((z >> 32) % ((uint32_t)(hi - lo) + 1u)));
            continue;
        }
        float u = (float)(uint32_t)(z & 0xffffff) * 5.9604644775390625e-8f;
        float v = (float)lo + ((float)hi - (float)lo) * u;
        v = v < (float)hi ? v : (float)lo;
        memcpy(&b[i], &v, sizeof v);
    }
    return 0;
}

int devcheck_sum(const float *in, uint64_t n, double *res, cudaStream_t s)
{
    (void)s;
    res[0] = res[1] = 0;
    for (uint64_t i = 0; i < n; i++) {
        res[0] += in[i];
        res[1] += fabs((double)in[i]);
    }
    return 0;
}

int devcheck_compact_count(const int *in, uint64_t n, uint32_t chunk, uint32_t *kept,
                           cudaStream_t s)
{
    (void)s;
    for (uint64_t c = 0; c * chunk < n; c++) {
        kept[c] = 0;
        for (uint64_t i = c * chunk; i < n && i < (c + 1) * chunk;
             i++)
            kept[c] += in[i] > 0;
    }
    return 0;
}

int devcheck_compact_check(const int *out, const int *in, uint64_t n, uint32_t chunk,
                           const uint64_t *first, unsigned long long *res, cudaStream_t s)
{
    (void)s;
    reset(res);
    for (uint64_t c = 0; c * chunk < n; c++) {
        uint64_t at = first[c];
        for (uint64_t i = c * chunk; i < n && i < (c + 1) * chunk;
             i++)
            if (in[i] > 0) {
                if (out[at] != in[i])
                    note(res, at);
                at++;
            }
    }
    return 0;
}

static int gemm_element_ok(float got, double x, double sc, double t1, double t2)
{
    if (!isfinite(got))
        return 0;
    double tol = t1 * sc;
    if (t2 != 0.0)
        tol += t2 * sc;
    return !(fabs((double)got - x) > tol);
}

static void gemm_element(const float *C, const float *A, const float *B, uint64_t N, uint64_t K,
                         double t1, double t2, uint64_t i, uint64_t j, unsigned long long *res)
{
    double x = 0, sc = 0;
    for (uint64_t k = 0; k < K; k++) {
        double ab = (double)A[i * K + k] * (double)B[k * N + j];
        x += ab;
        sc += fabs(ab);
    }
    if (!gemm_element_ok(C[i * N + j], x, sc, t1, t2))
        note(res, i * N + j);
}

int devcheck_gemm(const float *C, const float *A, const float *B, uint64_t M, uint64_t N,
                  uint64_t K, double t1, double t2, const uint32_t *rows, int nr,
                  const uint32_t *cols, int nc, unsigned long long *res, cudaStream_t s)
{
    (void)s;
    if (nr < 0 || nc < 0 || nr > DEVCHECK_GEMM_PICKS || nc > DEVCHECK_GEMM_PICKS)
        return 1;
    for (int r = 0; r < nr; r++)
        if (rows[r] >= M)
            return 1;
    for (int c = 0; c < nc; c++)
        if (cols[c] >= N)
            return 1;
    reset(res);
    for (int r = 0; r < nr; r++)
        for (uint64_t j = 0; j < N; j++)
            gemm_element(C, A, B, N, K, t1, t2, rows[r], j, res);
    for (int c = 0; c < nc; c++)
        for (uint64_t i = 0; i < M; i++)
            gemm_element(C, A, B, N, K, t1, t2, i, cols[c], res);
    return 0;
}
