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

/* x rounded to BF16 (to nearest, ties to even; x finite), its 16 bits. */
static uint32_t bf16_bits(float x)
{
    uint32_t u;
    memcpy(&u, &x, 4);
    return (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
}

static float bf16_float(uint32_t h)
{
    uint32_t u = (h & 0xffffu) << 16;
    float x;
    memcpy(&x, &u, 4);
    return x;
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
        if (kind == DEVCHECK_FILL_BF16) {
            float u2 = (float)(uint32_t)((z >> 32) & 0xffffff) * 5.9604644775390625e-8f;
            float v2 = (float)lo + ((float)hi - (float)lo) * u2;
            v2 = v2 < (float)hi ? v2 : (float)lo;
            b[i] = bf16_bits(v) | bf16_bits(v2) << 16;
            continue;
        }
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

/* Rows and columns of C (M x N) to check: within it, and not too many. */
static int picks_ok(uint64_t M, uint64_t N, const uint32_t *rows, int nr, const uint32_t *cols,
                    int nc)
{
    if (nr < 0 || nc < 0 || nr > DEVCHECK_GEMM_PICKS || nc > DEVCHECK_GEMM_PICKS)
        return 0;
    for (int r = 0; r < nr; r++)
        if (rows[r] >= M)
            return 0;
    for (int c = 0; c < nc; c++)
        if (cols[c] >= N)
            return 0;
    return 1;
}

int devcheck_gemm(const float *C, const float *A, const float *B, uint64_t M, uint64_t N,
                  uint64_t K, double t1, double t2, const uint32_t *rows, int nr,
                  const uint32_t *cols, int nc, unsigned long long *res, cudaStream_t s)
{
    (void)s;
    if (!picks_ok(M, N, rows, nr, cols, nc))
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

int devcheck_conv(const float *y, const float *x, const float *w, const int shape[9], double t1,
                  const uint32_t *chans, int nk, const uint32_t *pixels, int np,
                  unsigned long long *res, cudaStream_t s)
{
    (void)s;
    const int N = shape[0], C = shape[1], H = shape[2], W = shape[3], K = shape[4];
    const int R = shape[5], S = shape[6], stride = shape[7], pad = shape[8];
    if (nk < 0 || np < 0 || nk > DEVCHECK_CONV_PICKS || np > DEVCHECK_CONV_PICKS || N < 1 ||
        C < 1 || K < 1 || R < 1 || S < 1 || stride < 1 || pad < 0 || H + 2 * pad < R ||
        W + 2 * pad < S)
        return 1;
    const int P = (H + 2 * pad - R) / stride + 1, Q = (W + 2 * pad - S) / stride + 1;
    const uint64_t npq = (uint64_t)N * P * Q;
    for (int i = 0; i < nk; i++)
        if (chans[i] >= (uint32_t)K)
            return 1;
    for (int i = 0; i < np; i++)
        if (pixels[i] >= npq)
            return 1;
    reset(res);
    for (int l = 0; l < nk + np; l++) {
        uint64_t count = l < nk ? npq : (uint64_t)K;
        for (uint64_t t = 0; t < count; t++) {
            uint64_t pixel = l < nk ? t : pixels[l - nk], k = l < nk ? chans[l] : t;
            int n = (int)(pixel / ((uint64_t)P * Q)), op = (int)(pixel / Q % P),
                oq = (int)(pixel % Q);
            double v = 0, sc = 0;
            for (int c = 0; c < C; c++)
                for (int r = 0; r < R; r++)
                    for (int q = 0; q < S; q++) {
                        int h = op * stride - pad + r, col = oq * stride - pad + q;
                        if (h < 0 || h >= H || col < 0 || col >= W)
                            continue;
                        double xw = (double)x[(((uint64_t)n * C + c) * H + h) * W + col] *
                                    (double)w[((k * C + c) * R + r) * S + q];
                        v += xw;
                        sc += fabs(xw);
                    }
            uint64_t e = (((uint64_t)n * K + k) * P + op) * Q + oq;
            if (!gemm_element_ok(y[e], v, sc, t1, 0.0))
                note(res, e);
        }
    }
    return 0;
}

int devcheck_gemm_bf16(const float *C, const void *A, const void *Bt, uint64_t M, uint64_t N,
                       uint64_t K, double t1, double t2, const uint32_t *rows, int nr,
                       const uint32_t *cols, int nc, unsigned long long *res, cudaStream_t s)
{
    (void)s;
    if (K % 2 != 0 || !picks_ok(M, N, rows, nr, cols, nc))
        return 1;
    reset(res);
    const uint32_t *a = A, *b = Bt;
    for (int l = 0; l < nr + nc; l++) {
        uint64_t count = l < nr ? N : M;
        for (uint64_t t = 0; t < count; t++) {
            uint64_t i = l < nr ? rows[l] : t, j = l < nr ? t : cols[l - nr];
            double x = 0, sc = 0;
            for (uint64_t w = 0; w < K / 2; w++)
                for (int h = 0; h < 2; h++) {
                    double ab = (double)bf16_float(a[i * (K / 2) + w] >> (16 * h)) *
                                (double)bf16_float(b[j * (K / 2) + w] >> (16 * h));
                    x += ab;
                    sc += fabs(ab);
                }
            if (!gemm_element_ok(C[i * N + j], x, sc, t1, t2))
                note(res, i * N + j);
        }
    }
    return 0;
}
