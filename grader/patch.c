/* patch.c: see patch.h. */
#include "patch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ceiling.h"

typedef int (*scatter_fn)(void *, const uint64_t *, const uint32_t *, int, cudaStream_t);
typedef int (*verify_fn)(const void *, const void *, uint64_t, const uint64_t *, const uint32_t *,
                         int, unsigned long long *, cudaStream_t);
static scatter_fn scatter;
static verify_fn verify;

static int load(check_outcome *out)
{
    if (scatter && verify)
        return 0;
    static const char *const syms[] = {"devcheck_scatter", "devcheck_verify"};
    void *fns[2];
    if (ceiling_load("devcheck", syms, fns, 2, out->msg, sizeof out->msg) != 0) {
        out->v = V_SETUP_ERROR;
        return -1;
    }
    scatter = (scatter_fn)fns[0];
    verify = (verify_fn)fns[1];
    return 0;
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
