/* patch.c: see patch.h. */
#include "patch.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ceiling.h"
#include "ceilings/ceilings.h"

static devcheck_transpose_fn *transpose_check;
static devcheck_scan_fn *scan_check;
static devcheck_scatter_fn *scatter;
static devcheck_verify_fn *verify;
static devcheck_compare_fn *compare;
static devcheck_within_fn *within_check;
static devcheck_sum_fn *sum_check;
static devcheck_compact_count_fn *compact_count;
static devcheck_compact_check_fn *compact_check;
static devcheck_gemm_fn *gemm_check;
static devcheck_conv_fn *conv_check;
static devcheck_gemm_bf16_fn *gemm_bf16_check;

static const char *const syms[] = {"devcheck_scatter", "devcheck_verify",
                                   "devcheck_compare", "devcheck_transpose",
                                   "devcheck_scan",    "devcheck_within",
                                   "devcheck_sum",     "devcheck_compact_count",
                                   "devcheck_compact_check", "devcheck_gemm",
                                   "devcheck_conv", "devcheck_gemm_bf16"};
#define N_SYMS ((int)(sizeof syms / sizeof syms[0]))

static int take(void *const *fns)
{
    scatter = (devcheck_scatter_fn *)fns[0];
    verify = (devcheck_verify_fn *)fns[1];
    compare = (devcheck_compare_fn *)fns[2];
    transpose_check = (devcheck_transpose_fn *)fns[3];
    scan_check = (devcheck_scan_fn *)fns[4];
    within_check = (devcheck_within_fn *)fns[5];
    sum_check = (devcheck_sum_fn *)fns[6];
    compact_count = (devcheck_compact_count_fn *)fns[7];
    compact_check = (devcheck_compact_check_fn *)fns[8];
    gemm_check = (devcheck_gemm_fn *)fns[9];
    conv_check = (devcheck_conv_fn *)fns[10];
    gemm_bf16_check = (devcheck_gemm_bf16_fn *)fns[11];
    return 0;
}

int patch_load_library(const char *path, char *err, size_t n)
{
    void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        snprintf(err, n, "cannot load %s: %s", path, dlerror());
        return -1;
    }
    void *fns[N_SYMS];
    for (int i = 0; i < N_SYMS; i++)
        if (!(fns[i] = dlsym(lib, syms[i]))) {
            snprintf(err, n, "%s has no %s", path, syms[i]);
            return -1;
        }
    return take(fns);
}

static int load(check_outcome *out)
{
    if (scatter && verify && compare && transpose_check && scan_check && within_check &&
        sum_check && compact_count && compact_check && gemm_check)
        return 0;
    void *fns[N_SYMS];
    if (ceiling_load("devcheck", syms, fns, N_SYMS, out->msg, sizeof out->msg) != 0) {
        out->v = V_SETUP_ERROR;
        return -1;
    }
    return take(fns);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* n distinct positions from map(k) for k drawn in [0, range). */
static void pick(patch_set *p, int n, uint64_t range, size_t first, size_t stride, size_t len,
                 rng *r)
{
    if (n > PATCH_MAX)
        n = PATCH_MAX;
    if ((uint64_t)n > range)
        n = (int)range;
    p->n = 0;
    while (p->n < n) {
        uint64_t k = rng_below(r, range);
        uint64_t i = stride ? first + (k / len) * stride + k % len : k;
        int seen = 0;
        for (int j = 0; j < p->n; j++)
            seen |= p->idx[j] == i;
        if (!seen)
            p->idx[p->n++] = i;
    }
    qsort(p->idx, (size_t)p->n, sizeof p->idx[0], cmp_u64);
}

void patch_pick(patch_set *p, int n, size_t words, rng *r)
{
    pick(p, n, words, 0, 0, 1, r);
}

void patch_pick_strided(patch_set *p, int n, size_t words, size_t first, size_t stride,
                        size_t len, rng *r)
{
    if (stride == 0 || len == 0 || first >= words) {
        p->n = 0;
        return;
    }
    uint64_t rows = (words - first + stride - 1) / stride; /* rows that start in range */
    while (rows > 0 && first + (rows - 1) * stride + len > words)
        rows--;
    pick(p, n, rows * len, first, stride, len, r);
}

static int fail(check_outcome *out, cudaError_t err, const char *what)
{
    out->v = V_SETUP_ERROR;
    snprintf(out->msg, sizeof out->msg, "the grader could not %s: %s (%s)", what,
             cudaGetErrorName(err), cudaGetErrorString(err));
    return -1;
}

static int ensure(patch_set *p, check_outcome *out)
{
    if (load(out) != 0)
        return -1;
    if (p->d_idx)
        return 0;
    cudaError_t err = cudaMalloc((void **)&p->d_idx, PATCH_MAX * sizeof(uint64_t));
    if (err == cudaSuccess)
        err = cudaMalloc((void **)&p->d_val, PATCH_MAX * sizeof(uint32_t));
    if (err == cudaSuccess)
        err = cudaMalloc((void **)&p->d_res, 2 * sizeof(unsigned long long));
    if (err == cudaSuccess)
        err = cudaMallocHost((void **)&p->h_res, 2 * sizeof(unsigned long long));
    if (err != cudaSuccess)
        return fail(out, err, "allocate the buffers that patch the inputs");
    return 0;
}

int patch_apply(patch_set *p, void *d_buf, cudaStream_t s, check_outcome *out)
{
    if (p->n == 0)
        return 0;
    if (ensure(p, out) != 0)
        return -1;
    /* Pageable sources: the copies are staged before the call returns, so the
     * host arrays may change afterwards. */
    cudaError_t err =
        cudaMemcpyAsync(p->d_idx, p->idx, (size_t)p->n * sizeof p->idx[0], cudaMemcpyHostToDevice, s);
    if (err == cudaSuccess)
        err = cudaMemcpyAsync(p->d_val, p->val, (size_t)p->n * sizeof p->val[0],
                              cudaMemcpyHostToDevice, s);
    if (err == cudaSuccess)
        err = (cudaError_t)scatter(d_buf, p->d_idx, p->d_val, p->n, s);
    if (err != cudaSuccess)
        return fail(out, err, "patch the inputs");
    return 0;
}

long long patch_unchanged(patch_set *p, const void *d_now, const void *d_orig, size_t words,
                          cudaStream_t s, check_outcome *out)
{
    if (ensure(p, out) != 0)
        return -2;
    cudaError_t err =
        (cudaError_t)verify(d_now, d_orig, words, p->d_idx, p->d_val, p->n, p->d_res, s);
    if (err == cudaSuccess)
        err = cudaMemcpyAsync(p->h_res, p->d_res, 2 * sizeof(unsigned long long),
                              cudaMemcpyDeviceToHost, s);
    if (err == cudaSuccess)
        err = cudaStreamSynchronize(s);
    if (err != cudaSuccess) {
        fail(out, err, "check that the inputs are unchanged");
        return -2;
    }
    return p->h_res[0] == 0 ? -1 : (long long)p->h_res[1];
}

int patch_find(const patch_set *p, size_t i)
{
    int lo = 0, hi = p->n - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        if (p->idx[mid] == i)
            return mid;
        if (p->idx[mid] < i)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return -1;
}

uint32_t patch_word(const patch_set *p, const uint32_t *h, size_t i)
{
    int k = patch_find(p, i);
    return k >= 0 ? p->val[k] : h[i];
}

void patch_free(patch_set *p)
{
    if (p->d_idx)
        cudaFree(p->d_idx);
    if (p->d_val)
        cudaFree(p->d_val);
    if (p->d_res)
        cudaFree(p->d_res);
    if (p->h_res)
        cudaFreeHost(p->h_res);
    memset(p, 0, sizeof *p);
}

/* ---- outputs compared on the GPU ---- */

int expect_override(expect_patch *e, uint64_t i, uint32_t word)
{
    for (int k = 0; k < e->no; k++)
        if (e->opos[k] == i) {
            e->oval[k] = word;
            return 0;
        }
    if (e->no >= EXPECT_MAX)
        return -1;
    e->opos[e->no] = i;
    e->oval[e->no++] = word;
    return 0;
}

int expect_delta(expect_patch *e, uint64_t i, uint32_t delta)
{
    for (int k = 0; k < e->nd; k++)
        if (e->dpos[k] == i) {
            e->delta[k] += delta;
            return 0;
        }
    if (e->nd >= EXPECT_MAX)
        return -1;
    e->dpos[e->nd] = i;
    e->delta[e->nd++] = delta;
    return 0;
}

/* Insertion sort of (pos, word) pairs: at most EXPECT_MAX of them. */
static void sort_pairs(uint64_t *pos, uint32_t *w, int n)
{
    for (int i = 1; i < n; i++) {
        uint64_t p = pos[i];
        uint32_t x = w[i];
        int j = i - 1;
        for (; j >= 0 && pos[j] > p; j--) {
            pos[j + 1] = pos[j];
            w[j + 1] = w[j];
        }
        pos[j + 1] = p;
        w[j + 1] = x;
    }
}

void expect_sort(expect_patch *e)
{
    sort_pairs(e->opos, e->oval, e->no);
    sort_pairs(e->dpos, e->delta, e->nd);
}

uint32_t expect_word(const expect_patch *e, const uint32_t *expect, uint64_t i)
{
    uint32_t w = expect[i];
    for (int k = 0; k < e->no; k++)
        if (e->opos[k] == i)
            w = e->oval[k];
    uint64_t start = e->seg ? i - i % e->seg : 0;
    for (int k = 0; k < e->nd; k++)
        if (e->dpos[k] >= start && e->dpos[k] <= i)
            w += e->delta[k];
    return w;
}

long long expect_compare(expect_patch *e, const void *d_out, const void *d_expect, size_t words,
                         cudaStream_t s, check_outcome *out)
{
    if (load(out) != 0)
        return -2;
    cudaError_t err = cudaSuccess;
    if (!e->d_opos) {
        err = cudaMalloc((void **)&e->d_opos, EXPECT_MAX * sizeof(uint64_t));
        if (err == cudaSuccess)
            err = cudaMalloc((void **)&e->d_dpos, EXPECT_MAX * sizeof(uint64_t));
        if (err == cudaSuccess)
            err = cudaMalloc((void **)&e->d_oval, EXPECT_MAX * sizeof(uint32_t));
        if (err == cudaSuccess)
            err = cudaMalloc((void **)&e->d_dcum, EXPECT_MAX * sizeof(uint32_t));
        if (err == cudaSuccess)
            err = cudaMalloc((void **)&e->d_res, 2 * sizeof(unsigned long long));
        if (err == cudaSuccess)
            err = cudaMallocHost((void **)&e->h_res, 2 * sizeof(unsigned long long));
        if (err != cudaSuccess) {
            fail(out, err, "allocate the buffers that compare outputs");
            return -2;
        }
    }
    expect_sort(e);
    uint32_t cum[EXPECT_MAX];
    uint32_t run = 0;
    for (int k = 0; k < e->nd; k++)
        cum[k] = run += e->delta[k];
    if (e->no > 0)
        err = cudaMemcpyAsync(e->d_opos, e->opos, (size_t)e->no * sizeof e->opos[0],
                              cudaMemcpyHostToDevice, s);
    if (err == cudaSuccess && e->no > 0)
        err = cudaMemcpyAsync(e->d_oval, e->oval, (size_t)e->no * sizeof e->oval[0],
                              cudaMemcpyHostToDevice, s);
    if (err == cudaSuccess && e->nd > 0)
        err = cudaMemcpyAsync(e->d_dpos, e->dpos, (size_t)e->nd * sizeof e->dpos[0],
                              cudaMemcpyHostToDevice, s);
    if (err == cudaSuccess && e->nd > 0)
        err = cudaMemcpyAsync(e->d_dcum, cum, (size_t)e->nd * sizeof cum[0],
                              cudaMemcpyHostToDevice, s);
    if (err == cudaSuccess)
        err = (cudaError_t)compare(d_out, d_expect, words, e->seg, e->d_opos, e->d_oval, e->no,
                                   e->d_dpos, e->d_dcum, e->nd, e->d_res, s);
    if (err == cudaSuccess)
        err = cudaMemcpyAsync(e->h_res, e->d_res, 2 * sizeof(unsigned long long),
                              cudaMemcpyDeviceToHost, s);
    if (err == cudaSuccess)
        err = cudaStreamSynchronize(s);
    if (err != cudaSuccess) {
        fail(out, err, "compare the output on the GPU");
        return -2;
    }
    return e->h_res[0] == 0 ? -1 : (long long)e->h_res[1];
}

void expect_free(expect_patch *e)
{
    if (e->d_opos)
        cudaFree(e->d_opos);
    if (e->d_dpos)
        cudaFree(e->d_dpos);
    if (e->d_oval)
        cudaFree(e->d_oval);
    if (e->d_dcum)
        cudaFree(e->d_dcum);
    if (e->d_res)
        cudaFree(e->d_res);
    if (e->h_res)
        cudaFreeHost(e->h_res);
    memset(e, 0, sizeof *e);
}

/* ---- outputs checked against the input on the GPU ---- */

static unsigned long long *check_res_d, *check_res_h;

static long long run_check(int err, cudaStream_t s, check_outcome *out)
{
    cudaError_t e = (cudaError_t)err;
    if (e == cudaSuccess)
        e = cudaMemcpyAsync(check_res_h, check_res_d, 2 * sizeof(unsigned long long),
                            cudaMemcpyDeviceToHost, s);
    if (e == cudaSuccess)
        e = cudaStreamSynchronize(s);
    if (e != cudaSuccess) {
        fail(out, e, "check the output on the GPU");
        return -2;
    }
    return check_res_h[0] == 0 ? -1 : (long long)check_res_h[1];
}

static int check_ready(check_outcome *out)
{
    if (load(out) != 0)
        return -1;
    if (check_res_d)
        return 0;
    cudaError_t err = cudaMalloc((void **)&check_res_d, 2 * sizeof(unsigned long long));
    if (err == cudaSuccess)
        err = cudaMallocHost((void **)&check_res_h, 2 * sizeof(unsigned long long));
    if (err != cudaSuccess)
        return fail(out, err, "allocate the buffers that check outputs");
    return 0;
}

long long devcheck_transpose_on_gpu(const void *d_out, const void *d_in, size_t rows, size_t cols,
                                    int copy, cudaStream_t s, check_outcome *out)
{
    if (check_ready(out) != 0)
        return -2;
    return run_check(transpose_check(d_out, d_in, rows, cols, copy, check_res_d, s), s, out);
}

long long devcheck_scan_on_gpu(const void *d_out, const void *d_in, size_t n, size_t seg,
                               cudaStream_t s, check_outcome *out)
{
    if (check_ready(out) != 0)
        return -2;
    return run_check(scan_check(d_out, d_in, n, seg, check_res_d, s), s, out);
}

long long devcheck_within_on_gpu(const float *d_got, const double *d_exact, const double *d_scale,
                                 size_t rows, size_t cols, double t1, double t2,
                                 const within_overrides *o, cudaStream_t s, check_outcome *out)
{
    if (check_ready(out) != 0)
        return -2;
    return run_check(within_check(d_got, d_exact, d_scale, rows, cols, t1, t2, o->row, o->row_exact,
                                  o->row_scale, o->n_rows, o->col, o->col_exact, o->col_scale,
                                  o->n_cols, check_res_d, s),
                     s, out);
}

long long devcheck_gemm_on_gpu(const float *d_C, const float *d_A, const float *d_B, size_t M,
                               size_t N, size_t K, double t1, double t2, const uint32_t *rows,
                               int nr, const uint32_t *cols, int nc, cudaStream_t s,
                               check_outcome *out)
{
    if (check_ready(out) != 0)
        return -2;
    return run_check(gemm_check(d_C, d_A, d_B, M, N, K, t1, t2, rows, nr, cols, nc, check_res_d, s),
                     s, out);
}

long long devcheck_gemm_bf16_on_gpu(const float *d_C, const void *d_A, const void *d_Bt, size_t M,
                                    size_t N, size_t K, double t1, double t2,
                                    const uint32_t *rows, int nr, const uint32_t *cols, int nc,
                                    cudaStream_t s, check_outcome *out)
{
    if (check_ready(out) != 0)
        return -2;
    return run_check(gemm_bf16_check(d_C, d_A, d_Bt, M, N, K, t1, t2, rows, nr, cols, nc,
                                     check_res_d, s),
                     s, out);
}

long long devcheck_conv_on_gpu(const float *d_y, const float *d_x, const float *d_w,
                               const int shape[9], double t1, const uint32_t *chans, int nk,
                               const uint32_t *pixels, int np, cudaStream_t s, check_outcome *out)
{
    if (check_ready(out) != 0)
        return -2;
    return run_check(conv_check(d_y, d_x, d_w, shape, t1, chans, nk, pixels, np, check_res_d, s), s,
                     out);
}

int devcheck_sum_on_gpu(const float *d_in, size_t n, double *sum, double *sum_abs, cudaStream_t s,
                        check_outcome *out)
{
    static double *d_res, *h_res;
    if (check_ready(out) != 0)
        return -1;
    cudaError_t e = cudaSuccess;
    if (!d_res) {
        e = cudaMalloc((void **)&d_res, 2 * sizeof(double));
        if (e == cudaSuccess)
            e = cudaMallocHost((void **)&h_res, 2 * sizeof(double));
        if (e != cudaSuccess) {
            cudaFree(d_res);
            d_res = NULL;
            return fail(out, e, "allocate the buffers that check a sum");
        }
    }
    e = (cudaError_t)sum_check(d_in, n, d_res, s);
    if (e == cudaSuccess)
        e = cudaMemcpyAsync(h_res, d_res, 2 * sizeof(double), cudaMemcpyDeviceToHost, s);
    if (e == cudaSuccess)
        e = cudaStreamSynchronize(s);
    if (e != cudaSuccess)
        return fail(out, e, "sum the input on the GPU");
    *sum = h_res[0];
    *sum_abs = h_res[1];
    return 0;
}

long long devcheck_compact_on_gpu(const int *d_out, const int *d_in, size_t n, size_t *kept,
                                  cudaStream_t s, check_outcome *out)
{
    static uint32_t *d_kept, *h_kept;
    static uint64_t *d_first, *h_first;
    static size_t room; /* chunks the buffers hold */
    if (check_ready(out) != 0)
        return -2;
    size_t chunks = (n + DEVCHECK_COMPACT_CHUNK - 1) / DEVCHECK_COMPACT_CHUNK;
    cudaError_t e = cudaSuccess;
    if (chunks > room) {
        cudaFree(d_kept);
        cudaFree(d_first);
        cudaFreeHost(h_kept);
        cudaFreeHost(h_first);
        d_kept = h_kept = NULL;
        d_first = h_first = NULL;
        room = 0;
        e = cudaMalloc((void **)&d_kept, chunks * sizeof *d_kept);
        if (e == cudaSuccess)
            e = cudaMalloc((void **)&d_first, chunks * sizeof *d_first);
        if (e == cudaSuccess)
            e = cudaMallocHost((void **)&h_kept, chunks * sizeof *h_kept);
        if (e == cudaSuccess)
            e = cudaMallocHost((void **)&h_first, chunks * sizeof *h_first);
        if (e != cudaSuccess) {
            fail(out, e, "allocate the buffers that check a compaction");
            return -2;
        }
        room = chunks;
    }
    e = (cudaError_t)compact_count(d_in, n, DEVCHECK_COMPACT_CHUNK, d_kept, s);
    if (e == cudaSuccess && chunks)
        e = cudaMemcpyAsync(h_kept, d_kept, chunks * sizeof *h_kept, cudaMemcpyDeviceToHost, s);
    if (e == cudaSuccess)
        e = cudaStreamSynchronize(s);
    if (e != cudaSuccess) {
        fail(out, e, "count the kept elements on the GPU");
        return -2;
    }
    size_t run = 0;
    for (size_t c = 0; c < chunks; c++) {
        h_first[c] = run;
        run += h_kept[c];
    }
    *kept = run;
    if (chunks)
        e = cudaMemcpyAsync(d_first, h_first, chunks * sizeof *h_first, cudaMemcpyHostToDevice, s);
    if (e != cudaSuccess) {
        fail(out, e, "check the compaction on the GPU");
        return -2;
    }
    return run_check(compact_check(d_out, d_in, n, DEVCHECK_COMPACT_CHUNK, d_first, check_res_d, s),
                     s, out);
}
