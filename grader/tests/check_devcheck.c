/* check_devcheck.c: the grader's own kernels for timed calls
 * (grader/ceilings/devcheck.cu through grader/patch.h), on a GPU: a patch
 * lands where it should, the input check finds any other change and a
 * changed patched word, and the output comparison finds any word that
 * differs from the expected scan of patched inputs. */
#include <dlfcn.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "../../common/rng.h"
#include "../lab.h"
#include "../verdict.h"
#include "../ceilings/ceilings.h"
#include "../labs/conv_lab.h"
#include "../labs/gemm_lab.h"
#include "../labs/hopper_lab.h"
#include "../patch.h"
#include "tests.h"

enum { N = 300007, SEG = 1024 };

static void load_kernels(void)
{
    char err[512];
    ck_assert_msg(patch_load_library("build/ceilings/devcheck.so", err, sizeof err) == 0, "%s",
                  err);
}

static uint32_t *device_copy(const uint32_t *h, size_t n)
{
    void *d = NULL;
    ck_assert_int_eq(cudaMalloc(&d, n * 4), cudaSuccess);
    ck_assert_int_eq(cudaMemcpy(d, h, n * 4, cudaMemcpyHostToDevice), cudaSuccess);
    return d;
}

static void poke(uint32_t *d, size_t i, uint32_t w)
{
    ck_assert_int_eq(cudaMemcpy(d + i, &w, 4, cudaMemcpyHostToDevice), cudaSuccess);
}

START_TEST(patch_and_input_check)
{
    load_kernels();
    uint32_t *h = malloc(N * 4), *back = malloc(N * 4);
    rng r;
    rng_seed(&r, 21);
    for (size_t i = 0; i < N; i++)
        h[i] = (uint32_t)rng_next(&r);
    uint32_t *orig = device_copy(h, N), *now = device_copy(h, N);
    patch_set p;
    memset(&p, 0, sizeof p);
    check_outcome out = {0};
    patch_pick(&p, 32, N, &r);
    for (int k = 0; k < p.n; k++)
        p.val[k] = ~h[p.idx[k]];
    ck_assert_int_eq(patch_apply(&p, now, 0, &out), 0);
    ck_assert_int_eq(cudaMemcpy(back, now, N * 4, cudaMemcpyDeviceToHost), cudaSuccess);
    for (size_t i = 0; i < N; i++)
        ck_assert_uint_eq(back[i], patch_word(&p, h, i));
    ck_assert_int_eq(patch_unchanged(&p, now, orig, N, 0, &out), -1);
    size_t other = p.idx[3] + 1 == p.idx[4] ? p.idx[3] + 2 : p.idx[3] + 1;
    poke(now, other, h[other] + 1); /* an unpatched word changed */
    ck_assert_int_eq(patch_unchanged(&p, now, orig, N, 0, &out), (long long)other);
    poke(now, other, h[other]);
    poke(now, p.idx[7], h[p.idx[7]]); /* a patched word put back */
    ck_assert_int_eq(patch_unchanged(&p, now, orig, N, 0, &out), (long long)p.idx[7]);
    poke(now, p.idx[7], p.val[7]);
    poke(now, N - 1, h[N - 1] ^ 1u); /* the last word */
    long long got = patch_unchanged(&p, now, orig, N, 0, &out);
    ck_assert(got == (long long)(N - 1) || patch_find(&p, N - 1) >= 0);
    patch_free(&p);
    cudaFree(orig);
    cudaFree(now);
    free(h);
    free(back);
}
END_TEST

START_TEST(outputs_compared_on_gpu)
{
    load_kernels();
    uint32_t *in = malloc(N * 4), *scan = malloc(N * 4), *want = malloc(N * 4);
    rng r;
    rng_seed(&r, 22);
    for (size_t i = 0; i < N; i++)
        in[i] = (uint32_t)rng_below(&r, 1000);
    for (size_t i = 0; i < N; i++)
        scan[i] = in[i] + (i % SEG ? scan[i - 1] : 0u);
    expect_patch e;
    memset(&e, 0, sizeof e);
    expect_clear(&e, SEG);
    for (int k = 0; k < 40; k++) {
        size_t i = (size_t)rng_below(&r, N);
        uint32_t d = (uint32_t)rng_next(&r);
        in[i] += d;
        expect_delta(&e, i, d);
    }
    for (size_t i = 0; i < N; i++)
        want[i] = in[i] + (i % SEG ? want[i - 1] : 0u);
    expect_override(&e, 12345, 99u); /* and one word set outright */
    want[12345] = 99u + (want[12345] - scan[12345]);
    uint32_t *d_expect = device_copy(scan, N), *d_out = device_copy(want, N);
    check_outcome out = {0};
    ck_assert_int_eq(expect_compare(&e, d_out, d_expect, N, 0, &out), -1);
    poke(d_out, 200000, want[200000] + 1);
    poke(d_out, 250000, want[250000] - 1);
    ck_assert_int_eq(expect_compare(&e, d_out, d_expect, N, 0, &out), 200000);
    poke(d_out, 200000, want[200000]);
    poke(d_out, 250000, want[250000]);
    expect_patch none; /* the stale output: every delta's segment differs */
    memset(&none, 0, sizeof none);
    expect_clear(&none, SEG);
    ck_assert_int_ge(expect_compare(&none, d_out, d_expect, N, 0, &out), 0);
    expect_clear(&e, 0); /* one segment: a delta reaches the end */
    expect_delta(&e, 0, 5u);
    for (size_t i = 0; i < N; i++)
        want[i] = scan[i] + 5u;
    ck_assert_int_eq(cudaMemcpy(d_out, want, N * 4, cudaMemcpyHostToDevice), cudaSuccess);
    ck_assert_int_eq(expect_compare(&e, d_out, d_expect, N, 0, &out), -1);
    expect_free(&e);
    expect_free(&none);
    cudaFree(d_expect);
    cudaFree(d_out);
    free(in);
    free(scan);
    free(want);
}
END_TEST

/* Outputs checked against their input on the GPU: a transpose (and a
 * copy) bit for bit, a scan (segmented or not) by its differences. */
START_TEST(outputs_checked_against_inputs)
{
    load_kernels();
    enum { R = 333, C = 517 };
    size_t n = (size_t)R * C;
    uint32_t *in = malloc(n * 4), *t = malloc(n * 4), *scan = malloc(n * 4);
    rng r;
    rng_seed(&r, 23);
    for (size_t i = 0; i < n; i++)
        in[i] = (uint32_t)rng_next(&r);
    for (size_t i = 0; i < R; i++)
        for (size_t j = 0; j < C; j++)
            t[j * R + i] = in[i * C + j];
    uint32_t *d_in = device_copy(in, n), *d_t = device_copy(t, n);
    check_outcome out = {0};
    ck_assert_int_eq(devcheck_transpose_on_gpu(d_t, d_in, R, C, 0, 0, &out), -1);
    ck_assert_int_eq(devcheck_transpose_on_gpu(d_in, d_in, R, C, 1, 0, &out), -1);
    ck_assert_int_ge(devcheck_transpose_on_gpu(d_in, d_in, R, C, 0, 0, &out), 0); /* not a transpose */
    poke(d_t, 4321, t[4321] ^ 0x80000000u); /* a sign flipped */
    ck_assert_int_eq(devcheck_transpose_on_gpu(d_t, d_in, R, C, 0, 0, &out), 4321);
    for (size_t seg = 0; seg <= 1024; seg += 1024) {
        for (size_t i = 0; i < n; i++)
            scan[i] = in[i] + ((seg ? i % seg : i) ? scan[i - 1] : 0u);
        uint32_t *d_scan = device_copy(scan, n);
        ck_assert_int_eq(devcheck_scan_on_gpu(d_scan, d_in, n, seg, 0, &out), -1);
        poke(d_scan, n - 1, scan[n - 1] + 1);
        ck_assert_int_eq(devcheck_scan_on_gpu(d_scan, d_in, n, seg, 0, &out), (long long)(n - 1));
        poke(d_scan, n - 1, scan[n - 1]);
        poke(d_scan, 2048, scan[2048] + 1); /* breaks two differences: the first is reported */
        ck_assert_int_eq(devcheck_scan_on_gpu(d_scan, d_in, n, seg, 0, &out), 2048);
        cudaFree(d_scan);
    }
    cudaFree(d_in);
    cudaFree(d_t);
    free(in);
    free(t);
    free(scan);
}
END_TEST

/* The host's copy of devcheck_fill's rule: word i of a call's input. */
static uint32_t fill_word(uint64_t seed, uint64_t i, int kind, float lo, float hi)
{
    uint64_t z = seed + (i + 1) * 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    if (kind == DEVCHECK_FILL_INTS)
        return (uint32_t)((int)lo + (int)((z >> 32) % (uint32_t)(hi - lo + 1)));
    float u = (float)(uint32_t)(z & 0xffffff) * (1.0f / 16777216.0f), v = lo + (hi - lo) * u;
    v = v < hi ? v : lo;
    if (kind == DEVCHECK_FILL_BF16) { /* two, rounded as lab 7's own inputs are */
        float u2 = (float)(uint32_t)((z >> 32) & 0xffffff) * (1.0f / 16777216.0f),
              v2 = lo + (hi - lo) * u2;
        v2 = v2 < hi ? v2 : lo;
        return (uint32_t)hopper_bf16_bits(v) | (uint32_t)hopper_bf16_bits(v2) << 16;
    }
    uint32_t w;
    memcpy(&w, &v, 4);
    return w;
}

/* The timing witness's inputs and its checks of a sum and a compaction
 * (grader/witness.h, labs 2 and 3). */
START_TEST(witness_inputs_and_checks)
{
    load_kernels();
    void *lib = dlopen("build/ceilings/devcheck.so", RTLD_NOW | RTLD_LOCAL);
    ck_assert_ptr_nonnull(lib);
    devcheck_fill_fn *fill = (devcheck_fill_fn *)dlsym(lib, "devcheck_fill");
    ck_assert_ptr_nonnull(fill);
    uint32_t *h = malloc(N * 4), *h2 = malloc(N * 4);
    void *d = NULL, *d2 = NULL;
    ck_assert_int_eq(cudaMalloc(&d, N * 4), cudaSuccess);
    ck_assert_int_eq(cudaMalloc(&d2, N * 4), cudaSuccess);
    /* Floats as rng_uniform makes them, ints in [-4, 5]: the host's rule,
     * word for word; another seed, other words. */
    ck_assert_int_eq(fill(d, N, 77, DEVCHECK_FILL_UNIFORM, -0.9, 1.1, 0), 0);
    ck_assert_int_eq(cudaMemcpy(h, d, N * 4, cudaMemcpyDeviceToHost), cudaSuccess);
    double host_sum = 0, host_abs = 0;
    for (size_t i = 0; i < N; i++) {
        ck_assert_uint_eq(h[i], fill_word(77, i, DEVCHECK_FILL_UNIFORM, -0.9f, 1.1f));
        float x;
        memcpy(&x, &h[i], 4);
        ck_assert(x >= -0.9f && x < 1.1f);
        host_sum += x;
        host_abs += fabs(x);
    }
    ck_assert_int_eq(fill(d2, N, 78, DEVCHECK_FILL_UNIFORM, -0.9, 1.1, 0), 0);
    ck_assert_int_eq(cudaMemcpy(h2, d2, N * 4, cudaMemcpyDeviceToHost), cudaSuccess);
    size_t same = 0;
    for (size_t i = 0; i < N; i++)
        same += h[i] == h2[i];
    ck_assert_uint_lt(same, N / 1000);
    /* BF16 pairs (lab 7): the host's rounding, word for word; both halves
     * in [-1, 1] (rounding may reach 1) and drawn apart. */
    ck_assert_int_eq(fill(d2, N, 80, DEVCHECK_FILL_BF16, -1, 1, 0), 0);
    ck_assert_int_eq(cudaMemcpy(h2, d2, N * 4, cudaMemcpyDeviceToHost), cudaSuccess);
    size_t halves_same = 0;
    for (size_t i = 0; i < N; i++) {
        ck_assert_uint_eq(h2[i], fill_word(80, i, DEVCHECK_FILL_BF16, -1.0f, 1.0f));
        float lo = hopper_bf16_float((uint16_t)h2[i]), hi = hopper_bf16_float((uint16_t)(h2[i] >> 16));
        ck_assert(fabsf(lo) <= 1.0f && fabsf(hi) <= 1.0f);
        halves_same += (h2[i] & 0xffff) == h2[i] >> 16;
    }
    ck_assert_uint_lt(halves_same, N / 100);

    /* The sum in double, whatever order the GPU adds in. */
    check_outcome out = {0};
    double sum = 0, sum_abs = 0;
    ck_assert_int_eq(devcheck_sum_on_gpu(d, N, &sum, &sum_abs, 0, &out), 0);
    ck_assert_double_eq_tol(sum, host_sum, 1e-9 * host_abs);
    ck_assert_double_eq_tol(sum_abs, host_abs, 1e-9 * host_abs);

    /* A compaction: right, then one kept element wrong (reported where it
     * is), then one left out. */
    ck_assert_int_eq(fill(d, N, 79, DEVCHECK_FILL_INTS, -4, 5, 0), 0);
    ck_assert_int_eq(cudaMemcpy(h, d, N * 4, cudaMemcpyDeviceToHost), cudaSuccess);
    int seen[10] = {0};
    size_t k = 0;
    for (size_t i = 0; i < N; i++) {
        int x = (int)h[i];
        ck_assert_uint_eq(h[i], fill_word(79, i, DEVCHECK_FILL_INTS, -4, 5));
        ck_assert(x >= -4 && x <= 5);
        seen[x + 4] = 1;
        if (x > 0)
            h2[k++] = (uint32_t)x;
    }
    for (int v = 0; v < 10; v++)
        ck_assert_msg(seen[v], "%d never drawn", v - 4);
    ck_assert_int_eq(cudaMemcpy(d2, h2, k * 4, cudaMemcpyHostToDevice), cudaSuccess);
    size_t kept = 0;
    ck_assert_int_eq(devcheck_compact_on_gpu(d2, d, N, &kept, 0, &out), -1);
    ck_assert_uint_eq(kept, k);
    poke(d2, k - 1, h2[k - 1] + 1);
    ck_assert_int_eq(devcheck_compact_on_gpu(d2, d, N, &kept, 0, &out), (long long)(k - 1));
    poke(d2, k - 1, h2[k - 1]);
    ck_assert_int_eq(cudaMemcpy(d2, h2 + 1, (k - 1) * 4, cudaMemcpyHostToDevice), cudaSuccess);
    ck_assert_int_ge(devcheck_compact_on_gpu(d2, d, N, &kept, 0, &out), 0); /* the first one lost */
    cudaFree(d);
    cudaFree(d2);
    free(h);
    free(h2);
    dlclose(lib);
}
END_TEST

/* Lab 4's witness check: C = A B in the sampled rows and columns, found
 * wrong there (a value off, a NaN), and not read elsewhere. K is over the
 * column kernel's chunk of B (2048), so a column takes two chunks. */
START_TEST(gemm_checked_in_rows_and_columns)
{
    load_kernels();
    enum { M = 70, NC = 45, K = 2100 };
    float *A = malloc((size_t)M * K * 4), *B = malloc((size_t)K * NC * 4), *C = malloc(M * NC * 4);
    rng r;
    rng_seed(&r, 4242);
    rng_fill_uniform(&r, A, (size_t)M * K, -1.0f, 1.0f);
    rng_fill_uniform(&r, B, (size_t)K * NC, -1.0f, 1.0f);
    for (int i = 0; i < M; i++)
        for (int j = 0; j < NC; j++) {
            double x = 0;
            for (int k = 0; k < K; k++)
                x += (double)A[(size_t)i * K + k] * B[(size_t)k * NC + j];
            C[i * NC + j] = (float)x;
        }
    float *dA, *dB, *dC;
    ck_assert_int_eq(cudaMalloc((void **)&dA, (size_t)M * K * 4), cudaSuccess);
    ck_assert_int_eq(cudaMalloc((void **)&dB, (size_t)K * NC * 4), cudaSuccess);
    ck_assert_int_eq(cudaMalloc((void **)&dC, M * NC * 4), cudaSuccess);
    ck_assert_int_eq(cudaMemcpy(dA, A, (size_t)M * K * 4, cudaMemcpyHostToDevice), cudaSuccess);
    ck_assert_int_eq(cudaMemcpy(dB, B, (size_t)K * NC * 4, cudaMemcpyHostToDevice), cudaSuccess);
    ck_assert_int_eq(cudaMemcpy(dC, C, M * NC * 4, cudaMemcpyHostToDevice), cudaSuccess);
    double t1, t2;
    gemm_tolerance_factors(K, GEMM_FP32, &t1, &t2);
    const uint32_t rows[2] = {3, 69}, cols[2] = {0, 44};
    check_outcome out = {0};
    ck_assert_int_eq(devcheck_gemm_on_gpu(dC, dA, dB, M, NC, K, t1, t2, rows, 2, cols, 2, 0, &out),
                     -1);
    /* Off by 0.1 (about 17 times the float32 bound here, 0.006) in a sampled row. */
    uint32_t w;
    float v = C[69 * NC + 10] + 0.1f;
    memcpy(&w, &v, 4);
    poke((uint32_t *)dC, 69 * NC + 10, w);
    ck_assert_int_eq(devcheck_gemm_on_gpu(dC, dA, dB, M, NC, K, t1, t2, rows, 2, cols, 2, 0, &out),
                     69 * NC + 10);
    /* With other rows sampled, that element is not read. */
    const uint32_t other[1] = {5};
    ck_assert_int_eq(devcheck_gemm_on_gpu(dC, dA, dB, M, NC, K, t1, t2, other, 1, cols, 2, 0, &out),
                     -1);
    memcpy(&w, &C[69 * NC + 10], 4);
    poke((uint32_t *)dC, 69 * NC + 10, w);
    /* A NaN in a sampled column, two chunks of K deep, in a row not sampled. */
    poke((uint32_t *)dC, 5 * NC + 44, 0x7fc00000u);
    ck_assert_int_eq(devcheck_gemm_on_gpu(dC, dA, dB, M, NC, K, t1, t2, rows, 2, cols, 2, 0, &out),
                     5 * NC + 44);
    /* Picks outside C: the check itself fails. */
    const uint32_t outside[1] = {M};
    ck_assert_int_eq(devcheck_gemm_on_gpu(dC, dA, dB, M, NC, K, t1, t2, outside, 1, cols, 2, 0, &out),
                     -2);
    cudaFree(dA);
    cudaFree(dB);
    cudaFree(dC);
    free(A);
    free(B);
    free(C);
}
END_TEST

/* Lab 7's witness check: C = A Bt^T with BF16 A and Bt, in the sampled
 * rows and columns, found wrong there and not read elsewhere. K is odd in
 * words (K / 2 = 1025), so lanes end unevenly. */
START_TEST(gemm_bf16_checked_in_rows_and_columns)
{
    load_kernels();
    enum { M = 70, NC = 45, K = 2050 };
    uint16_t *A = malloc((size_t)M * K * 2), *Bt = malloc((size_t)NC * K * 2);
    float *C = malloc(M * NC * 4);
    rng r;
    rng_seed(&r, 4343);
    for (size_t e = 0; e < (size_t)M * K; e++)
        A[e] = hopper_bf16_bits(rng_uniform(&r, -1.0f, 1.0f));
    for (size_t e = 0; e < (size_t)NC * K; e++)
        Bt[e] = hopper_bf16_bits(rng_uniform(&r, -1.0f, 1.0f));
    for (int i = 0; i < M; i++)
        for (int j = 0; j < NC; j++) {
            double x = 0;
            for (int k = 0; k < K; k++)
                x += (double)hopper_bf16_float(A[(size_t)i * K + k]) *
                     hopper_bf16_float(Bt[(size_t)j * K + k]);
            C[i * NC + j] = (float)x;
        }
    void *dA, *dB;
    float *dC;
    ck_assert_int_eq(cudaMalloc(&dA, (size_t)M * K * 2), cudaSuccess);
    ck_assert_int_eq(cudaMalloc(&dB, (size_t)NC * K * 2), cudaSuccess);
    ck_assert_int_eq(cudaMalloc((void **)&dC, M * NC * 4), cudaSuccess);
    ck_assert_int_eq(cudaMemcpy(dA, A, (size_t)M * K * 2, cudaMemcpyHostToDevice), cudaSuccess);
    ck_assert_int_eq(cudaMemcpy(dB, Bt, (size_t)NC * K * 2, cudaMemcpyHostToDevice), cudaSuccess);
    ck_assert_int_eq(cudaMemcpy(dC, C, M * NC * 4, cudaMemcpyHostToDevice), cudaSuccess);
    double t1, t2;
    gemm_tolerance_factors(K, GEMM_TC_SUM, &t1, &t2);
    const uint32_t rows[2] = {3, 69}, cols[2] = {0, 44};
    check_outcome out = {0};
    ck_assert_int_eq(devcheck_gemm_bf16_on_gpu(dC, dA, dB, M, NC, K, t1, t2, rows, 2, cols, 2, 0,
                                               &out),
                     -1);
    /* Off by 0.1 (the bound here is below 0.02) in a sampled row. */
    uint32_t w;
    float v = C[69 * NC + 10] + 0.1f;
    memcpy(&w, &v, 4);
    poke((uint32_t *)dC, 69 * NC + 10, w);
    ck_assert_int_eq(devcheck_gemm_bf16_on_gpu(dC, dA, dB, M, NC, K, t1, t2, rows, 2, cols, 2, 0,
                                               &out),
                     69 * NC + 10);
    const uint32_t other[1] = {5};
    ck_assert_int_eq(devcheck_gemm_bf16_on_gpu(dC, dA, dB, M, NC, K, t1, t2, other, 1, cols, 2, 0,
                                               &out),
                     -1);
    memcpy(&w, &C[69 * NC + 10], 4);
    poke((uint32_t *)dC, 69 * NC + 10, w);
    /* A NaN in a sampled column, in a row not sampled. */
    poke((uint32_t *)dC, 5 * NC + 44, 0x7fc00000u);
    ck_assert_int_eq(devcheck_gemm_bf16_on_gpu(dC, dA, dB, M, NC, K, t1, t2, rows, 2, cols, 2, 0,
                                               &out),
                     5 * NC + 44);
    /* Picks outside C, or an odd K: the check itself fails. */
    const uint32_t outside[1] = {NC};
    ck_assert_int_eq(devcheck_gemm_bf16_on_gpu(dC, dA, dB, M, NC, K, t1, t2, rows, 2, outside, 1,
                                               0, &out),
                     -2);
    ck_assert_int_eq(devcheck_gemm_bf16_on_gpu(dC, dA, dB, M, NC, K - 1, t1, t2, rows, 2, cols, 2,
                                               0, &out),
                     -2);
    cudaFree(dA);
    cudaFree(dB);
    cudaFree(dC);
    free(A);
    free(Bt);
    free(C);
}
END_TEST

/* Lab 6's witness check: the convolution in the sampled output channels
 * and pixels, against the grader's CPU reference (conv_ref.c) on a layer
 * with a stride of 2 and padding, deeper (C R S = 81) than a warp's lanes;
 * found wrong there (a value off, a NaN), and not read elsewhere. */
START_TEST(conv_checked_in_channels_and_pixels)
{
    load_kernels();
    const conv_layer l = {2, 9, 7, 9, 5, 3, 3, 2, 1}; /* P = 4, Q = 5 */
    const int P = conv_out_h(&l), Q = conv_out_w(&l);
    const size_t nx = (size_t)l.N * l.C * l.H * l.W, nw = (size_t)l.K * l.C * l.R * l.S,
                 ny = conv_out_elems(&l);
    ck_assert_int_eq(P, 4);
    ck_assert_int_eq(Q, 5);
    float *x = malloc(nx * 4), *w = malloc(nw * 4), *y = malloc(ny * 4);
    double *exact = malloc(ny * sizeof *exact), *scale = malloc(ny * sizeof *scale);
    rng r;
    rng_seed(&r, 6464);
    rng_fill_uniform(&r, x, nx, -1.0f, 1.0f);
    rng_fill_uniform(&r, w, nw, -1.0f, 1.0f);
    conv_problem p = {l, x, w};
    ck_assert_int_eq(conv_reference(&p, exact, scale), 0);
    for (size_t e = 0; e < ny; e++)
        y[e] = (float)exact[e];
    float *dx, *dw, *dy;
    ck_assert_int_eq(cudaMalloc((void **)&dx, nx * 4), cudaSuccess);
    ck_assert_int_eq(cudaMalloc((void **)&dw, nw * 4), cudaSuccess);
    ck_assert_int_eq(cudaMalloc((void **)&dy, ny * 4), cudaSuccess);
    ck_assert_int_eq(cudaMemcpy(dx, x, nx * 4, cudaMemcpyHostToDevice), cudaSuccess);
    ck_assert_int_eq(cudaMemcpy(dw, w, nw * 4, cudaMemcpyHostToDevice), cudaSuccess);
    ck_assert_int_eq(cudaMemcpy(dy, y, ny * 4, cudaMemcpyHostToDevice), cudaSuccess);
    const int shape[9] = {l.N, l.C, l.H, l.W, l.K, l.R, l.S, l.stride, l.pad};
    const double t1 = conv_tolerance(&l, 1.0);
    const uint32_t chans[2] = {0, 4}, pixels[2] = {0, 39}; /* pixel 39: n 1, p 3, q 4 */
    check_outcome out = {0};
    /* (Channels 0 and 4 whole: every border output the padding reaches, and
     * the stride, agree with the CPU's reference.) */
    ck_assert_int_eq(devcheck_conv_on_gpu(dy, dx, dw, shape, t1, chans, 2, pixels, 2, 0, &out), -1);
    /* Off by 0.01 in channel 4 (the bound is at most 2.2e-4 here), at n 0, p 1, q 2
     * (pixel 7, not sampled). */
    const size_t e = (((size_t)0 * l.K + 4) * P + 1) * Q + 2;
    uint32_t v;
    float off = y[e] + 0.01f;
    memcpy(&v, &off, 4);
    poke((uint32_t *)dy, e, v);
    ck_assert_int_eq(devcheck_conv_on_gpu(dy, dx, dw, shape, t1, chans, 2, pixels, 2, 0, &out),
                     (long long)e);
    /* With another channel and pixel sampled, that output is not read. */
    const uint32_t chan1[1] = {1}, pixel1[1] = {8};
    ck_assert_int_eq(devcheck_conv_on_gpu(dy, dx, dw, shape, t1, chan1, 1, pixel1, 1, 0, &out), -1);
    /* But pixel 7 sampled finds it in every channel's pass. */
    const uint32_t pixel7[1] = {7};
    ck_assert_int_eq(devcheck_conv_on_gpu(dy, dx, dw, shape, t1, chan1, 1, pixel7, 1, 0, &out),
                     (long long)e);
    memcpy(&v, &y[e], 4);
    poke((uint32_t *)dy, e, v);
    /* A NaN in sampled pixel 39, in channel 2 (not sampled). */
    const size_t e2 = (((size_t)1 * l.K + 2) * P + 3) * Q + 4;
    poke((uint32_t *)dy, e2, 0x7fc00000u);
    ck_assert_int_eq(devcheck_conv_on_gpu(dy, dx, dw, shape, t1, chans, 2, pixels, 2, 0, &out),
                     (long long)e2);
    memcpy(&v, &y[e2], 4);
    poke((uint32_t *)dy, e2, v);
    ck_assert_int_eq(devcheck_conv_on_gpu(dy, dx, dw, shape, t1, chans, 2, pixels, 2, 0, &out), -1);
    /* Picks outside the output: the check itself fails. */
    const uint32_t chan5[1] = {5}, pixel40[1] = {40};
    ck_assert_int_eq(devcheck_conv_on_gpu(dy, dx, dw, shape, t1, chan5, 1, pixels, 2, 0, &out), -2);
    ck_assert_int_eq(devcheck_conv_on_gpu(dy, dx, dw, shape, t1, chans, 2, pixel40, 1, 0, &out), -2);
    cudaFree(dx);
    cudaFree(dw);
    cudaFree(dy);
    free(x);
    free(w);
    free(y);
    free(exact);
    free(scale);
}
END_TEST

/* Lab 6's ceiling writes the product of two matrices of its own into the
 * output, and the witness checks it in every ceiling call (conv.c): on the
 * tiny layer (M = N P Q = 24 rows, N = K = 5 columns, all of them sampled)
 * a value off or a NaN anywhere is found; on the deep layer (a depth of
 * 18,432 equal products, whose float32 rounding errors do not cancel) the
 * ceiling's own output passes, and one off by 1% everywhere does not. */
START_TEST(conv_ceiling_checked_by_the_witness)
{
    load_kernels();
    extern const lab_spec lab_conv;
    static const char *const syms[] = {"ceiling_conv_create", "ceiling_conv",
                                       "ceiling_conv_destroy"};
    void *fns[3], *lib = dlopen("build/ceilings/lab6.so", RTLD_NOW | RTLD_LOCAL);
    ck_assert_msg(lib != NULL, "%s", dlerror());
    for (int i = 0; i < 3; i++)
        ck_assert_ptr_nonnull(fns[i] = dlsym(lib, syms[i]));
    const int sizes[2] = {0, 10};
    for (int t = 0; t < 2; t++) {
        const conv_layer *l = &conv_layers[sizes[t]].l;
        const size_t ny = conv_out_elems(l);
        float *dy;
        ck_assert_int_eq(cudaMalloc((void **)&dy, ny * 4), cudaSuccess);
        ck_assert_int_eq(cudaMemset(dy, 0xff, ny * 4), cudaSuccess); /* NaN, as the witness */
        const int dims[9] = {l->N, l->C, l->H, l->W, l->K, l->R, l->S, l->stride, l->pad};
        void *h = NULL;
        ck_assert_int_eq(((ceiling_conv_create_fn *)fns[0])(&h, dims, NULL, NULL, dy), 0);
        ck_assert_int_eq(((ceiling_conv_fn *)fns[1])(h, NULL, NULL, dy, 0), 0);
        ck_assert_int_eq(cudaDeviceSynchronize(), cudaSuccess);
        const void *outs[2] = {dy, NULL}, *ins[2] = {NULL, NULL};
        check_outcome out = {0};
        ck_assert_int_eq(lab_conv.witness->check(WITNESS_CEILING, 3, sizes[t], outs, ins, 0, &out, 0),
                         -1);
        float *y = malloc(ny * 4);
        ck_assert_int_eq(cudaMemcpy(y, dy, ny * 4, cudaMemcpyDeviceToHost), cudaSuccess);
        if (t == 0) {
            /* All of row 17 off: the check draws 16 rows and 16 columns (with
             * replacement), and every column it draws crosses that row. */
            for (size_t j = 0; j < 5; j++) {
                uint32_t v;
                float off = y[17 * 5 + j] * 1.001f;
                memcpy(&v, &off, 4);
                poke((uint32_t *)dy, 17 * 5 + j, v);
            }
            long long bad = lab_conv.witness->check(WITNESS_CEILING, 3, sizes[t], outs, ins, 0, &out, 0);
            ck_assert_int_ge(bad, 17 * 5);
            ck_assert_int_lt(bad, 18 * 5);
            ck_assert_int_eq(out.v, V_WRONG);
            ck_assert_ptr_nonnull(strstr(out.msg, "24 x 5, held"));
            ck_assert_ptr_nonnull(strstr(out.msg, "at [17]["));
            for (size_t j = 0; j < 5; j++)
                poke((uint32_t *)dy, 17 * 5 + j, 0x7fc00000u);
            bad = lab_conv.witness->check(WITNESS_CEILING, 3, sizes[t], outs, ins, 0, &out, 0);
            ck_assert_int_ge(bad, 17 * 5);
            ck_assert_int_lt(bad, 18 * 5);
        } else {
            for (size_t e = 0; e < ny; e++)
                y[e] *= 1.01f;
            ck_assert_int_eq(cudaMemcpy(dy, y, ny * 4, cudaMemcpyHostToDevice), cudaSuccess);
            ck_assert_int_ge(
                lab_conv.witness->check(WITNESS_CEILING, 3, sizes[t], outs, ins, 0, &out, 0), 0);
        }
        ((ceiling_conv_destroy_fn *)fns[2])(h);
        cudaFree(dy);
        free(y);
    }
}
END_TEST

/* The test below: its element e, the override row and column, and the
 * CPU's rule for it (*x: the value expected there). */
typedef struct within_case {
    const float *got;
    const double *exact, *scale, *ov; /* ov: row exact, row scale, col exact, col scale */
    size_t R, C;
    uint64_t orow, ocol;
    int K;
} within_case;

static int cpu_rejects(const within_case *w, size_t e, int tf32, double *x)
{
    size_t i = e / w->C, j = e % w->C;
    double sc = w->scale[e];
    *x = w->exact[e];
    if (i == w->orow)
        *x = w->ov[j], sc = w->ov[w->C + j];
    if (j == w->ocol)
        *x = w->ov[2 * w->C + i], sc = w->ov[2 * w->C + w->R + i];
    return !isfinite(w->got[e]) || fabs((double)w->got[e] - *x) > gemm_tolerance(w->K, sc, tf32);
}

/* Lab 4's check on the GPU agrees with the CPU's rule on every element:
 * about half the elements lie outside their bound (by up to twice it), some are NaN or
 * infinite, and one row and one column take their expected values from the
 * overrides. The GPU must count exactly the elements the CPU rejects and
 * name the first. */
START_TEST(within_tolerance_on_gpu)
{
    load_kernels();
    enum { R = 257, C = 389, K = 4096 };
    size_t n = (size_t)R * C;
    double *exact = malloc(n * 8), *scale = malloc(n * 8);
    double *ov = malloc(2 * (C + R) * sizeof(double)); /* row exact, row scale, col exact, col scale */
    float *got = malloc(n * 4);
    ck_assert(exact && scale && ov && got);
    rng r;
    rng_seed(&r, 4242);
    for (int tf32 = 0; tf32 <= 1; tf32++) {
        double t1, t2;
        gemm_tolerance_factors(K, tf32, &t1, &t2);
        const uint64_t orow = 100, ocol = 7;
        for (size_t e = 0; e < n; e++) {
            got[e] = rng_uniform(&r, -50.0f, 50.0f);
            scale[e] = rng_uniform(&r, 1.0f, 4096.0f);
            double tol = gemm_tolerance(K, scale[e], tf32);
            exact[e] = (double)got[e] + tol * rng_uniform(&r, -2.0f, 2.0f);
        }
        for (size_t j = 0; j < C; j++) { /* the override row: all within */
            ov[C + j] = scale[orow * C + j] * 2;
            ov[j] = (double)got[orow * C + j] + 0.5 * gemm_tolerance(K, ov[C + j], tf32);
        }
        for (size_t i = 0; i < R; i++) { /* the override column: all outside, but the row's */
            ov[2 * C + R + i] = scale[i * C + ocol];
            ov[2 * C + i] = (double)got[i * C + ocol] + 3 * gemm_tolerance(K, ov[2 * C + R + i], tf32);
        }
        got[5 * C + 11] = NAN;
        got[9 * C + 12] = INFINITY;
        const within_case w = {got, exact, scale, ov, R, C, orow, ocol, K};
        size_t bad = 0, first = n;
        for (size_t e = 0; e < n; e++) {
            double x;
            if (cpu_rejects(&w, e, tf32, &x)) {
                bad++;
                first = first < e ? first : e;
            }
        }
        ck_assert(bad > n / 4 && bad < 3 * n / 4); /* the test itself is not trivial */
        void *d_got, *d_exact, *d_scale, *d_ov, *d_idx;
        ck_assert_int_eq(cudaMalloc(&d_got, n * 4), cudaSuccess);
        ck_assert_int_eq(cudaMalloc(&d_exact, n * 8), cudaSuccess);
        ck_assert_int_eq(cudaMalloc(&d_scale, n * 8), cudaSuccess);
        ck_assert_int_eq(cudaMalloc(&d_ov, 2 * (C + R) * sizeof(double)), cudaSuccess);
        ck_assert_int_eq(cudaMalloc(&d_idx, 2 * sizeof(uint64_t)), cudaSuccess);
        uint64_t idx[2] = {orow, ocol};
        ck_assert_int_eq(cudaMemcpy(d_got, got, n * 4, cudaMemcpyHostToDevice), cudaSuccess);
        ck_assert_int_eq(cudaMemcpy(d_exact, exact, n * 8, cudaMemcpyHostToDevice), cudaSuccess);
        ck_assert_int_eq(cudaMemcpy(d_scale, scale, n * 8, cudaMemcpyHostToDevice), cudaSuccess);
        ck_assert_int_eq(cudaMemcpy(d_ov, ov, 2 * (C + R) * sizeof(double), cudaMemcpyHostToDevice),
                         cudaSuccess);
        ck_assert_int_eq(cudaMemcpy(d_idx, idx, sizeof idx, cudaMemcpyHostToDevice), cudaSuccess);
        const double *dov = d_ov;
        const uint64_t *didx = d_idx;
        within_overrides o = {1, 1, didx, didx + 1, dov, dov + C, dov + 2 * C, dov + 2 * C + R};
        check_outcome out = {0};
        ck_assert_int_eq(devcheck_within_on_gpu(d_got, d_exact, d_scale, R, C, t1, t2, &o, 0, &out),
                         (long long)first);
        /* Made right where the CPU rejects them, the elements pass on the
         * GPU too; put back one at a time, each is the one the GPU names. */
        float *orig = malloc(n * 4);
        size_t *bads = malloc(bad * sizeof *bads), nb = 0;
        ck_assert(orig && bads);
        memcpy(orig, got, n * 4);
        for (size_t e = 0; e < n; e++) {
            double x;
            if (cpu_rejects(&w, e, tf32, &x)) {
                got[e] = (float)x;
                bads[nb++] = e;
            }
        }
        ck_assert_int_eq(cudaMemcpy(d_got, got, n * 4, cudaMemcpyHostToDevice), cudaSuccess);
        ck_assert_int_eq(devcheck_within_on_gpu(d_got, d_exact, d_scale, R, C, t1, t2, &o, 0, &out),
                         -1);
        for (int t = 0; t < 8; t++) {
            size_t e = bads[rng_below(&r, nb)];
            ck_assert_int_eq(cudaMemcpy((float *)d_got + e, orig + e, 4, cudaMemcpyHostToDevice),
                             cudaSuccess);
            ck_assert_int_eq(
                devcheck_within_on_gpu(d_got, d_exact, d_scale, R, C, t1, t2, &o, 0, &out),
                (long long)e);
            ck_assert_int_eq(cudaMemcpy((float *)d_got + e, got + e, 4, cudaMemcpyHostToDevice),
                             cudaSuccess);
        }
        free(orig);
        free(bads);
        /* Without the overrides the override column's old values hold. */
        within_overrides none = {0};
        ck_assert_int_ge(devcheck_within_on_gpu(d_got, d_exact, d_scale, R, C, t1, t2, &none, 0,
                                                &out),
                         0);
        cudaFree(d_got);
        cudaFree(d_exact);
        cudaFree(d_scale);
        cudaFree(d_ov);
        cudaFree(d_idx);
    }
    free(exact);
    free(scale);
    free(ov);
    free(got);
}
END_TEST

int devcheck_gpu_test_count(void)
{
    return 9;
}

Suite *make_devcheck_gpu_suite(void)
{
    Suite *s = suite_create("devcheck-gpu");
    TCase *tc = tcase_create("devcheck");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, patch_and_input_check);
    tcase_add_test(tc, outputs_compared_on_gpu);
    tcase_add_test(tc, outputs_checked_against_inputs);
    tcase_add_test(tc, within_tolerance_on_gpu);
    tcase_add_test(tc, witness_inputs_and_checks);
    tcase_add_test(tc, gemm_checked_in_rows_and_columns);
    tcase_add_test(tc, gemm_bf16_checked_in_rows_and_columns);
    tcase_add_test(tc, conv_checked_in_channels_and_pixels);
    tcase_add_test(tc, conv_ceiling_checked_by_the_witness);
    suite_add_tcase(s, tc);
    return s;
}
