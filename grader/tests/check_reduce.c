/* check_reduce.c: lab 2's judgement of a sum, on the CPU. Sums in the orders
 * a GPU reduction uses must pass; a sum missing one element, zero, NaN, the
 * unwritten pattern and the other input set's sum must not. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/compare.h"
#include "../lab.h"
#include "../labs/reduce_lab.h"
#include "../patch.h"
#include "tests.h"

extern const lab_spec lab_reduce;

/* Float sums in the orders a reduction kernel uses. */
static float pairwise(const float *x, size_t n)
{
    if (n == 1)
        return x[0];
    size_t h = n / 2;
    return pairwise(x, h) + pairwise(x + h, n - h);
}

/* T threads each add every T-th element (a grid-stride loop), then a tree. */
static float grid_stride(const float *x, size_t n, size_t T)
{
    float *part = calloc(T, sizeof(float));
    for (size_t t = 0; t < T; t++)
        for (size_t i = t; i < n; i += T)
            part[t] += x[i];
    float r = pairwise(part, T);
    free(part);
    return r;
}

/* Blocks of 512 summed as trees, then the block sums added one by one in a
 * scrambled order, as atomicAdd would. */
static float atomic_blocks(const float *x, size_t n)
{
    size_t nb = (n + 511) / 512;
    float acc = 0;
    for (size_t k = 0; k < nb; k++) {
        size_t b = (k * 7919) % nb;
        size_t len = n - b * 512 < 512 ? n - b * 512 : 512;
        acc += pairwise(x + b * 512, len);
    }
    return acc;
}

static float reversed(const float *x, size_t n)
{
    float acc = 0;
    for (size_t i = n; i-- > 0;)
        acc += x[i];
    return acc;
}

static const size_t judged_sizes[] = {1, 2, 33, 1000, 65536, 1000003};

START_TEST(gpu_orders_pass)
{
    size_t n = judged_sizes[_i];
    float *x = malloc(n * sizeof(float));
    char msg[VERDICT_MSG];
    for (uint64_t seed = 1; seed <= 3; seed++)
        for (int v = 0; v < 2; v++) {
            double sum, sum_abs;
            reduce_make_input(x, n, v, seed * 0x9e37u, &sum, &sum_abs);
            float got[] = {pairwise(x, n), grid_stride(x, n, 1024), grid_stride(x, n, 33792),
                           atomic_blocks(x, n), n <= 1000 ? reversed(x, n) : pairwise(x, n)};
            for (size_t k = 0; k < sizeof got / sizeof got[0]; k++)
                ck_assert_msg(reduce_judge(sum, sum_abs, n, got[k], msg, sizeof msg) == V_PASS,
                              "n %zu set %d seed %llu order %zu: %s", n, v,
                              (unsigned long long)seed, k, msg);
        }
    free(x);
}
END_TEST

START_TEST(wrong_sums_fail)
{
    size_t n = judged_sizes[_i];
    float *x = malloc(n * sizeof(float));
    char msg[VERDICT_MSG];
    double sum[2], sum_abs[2];
    for (int v = 0; v < 2; v++) {
        reduce_make_input(x, n, v, 42, &sum[v], &sum_abs[v]);
        /* Leave out the element of largest magnitude. */
        size_t big = 0;
        for (size_t i = 1; i < n; i++)
            if (fabsf(x[i]) > fabsf(x[big]))
                big = i;
        double without = sum[v] - x[big];
        ck_assert_int_eq(reduce_judge(sum[v], sum_abs[v], n, (float)without, msg, sizeof msg),
                         V_WRONG);
        ck_assert_int_eq(reduce_judge(sum[v], sum_abs[v], n, 0.0f, msg, sizeof msg), V_WRONG);
        ck_assert_ptr_nonnull(strstr(msg, "A zero"));
        ck_assert_int_eq(reduce_judge(sum[v], sum_abs[v], n, NAN, msg, sizeof msg), V_NAN);
        ck_assert_int_eq(reduce_judge(sum[v], sum_abs[v], n, INFINITY, msg, sizeof msg), V_NAN);
        uint32_t bits = COMPARE_UNWRITTEN;
        float unwritten;
        memcpy(&unwritten, &bits, sizeof unwritten);
        ck_assert_int_eq(reduce_judge(sum[v], sum_abs[v], n, unwritten, msg, sizeof msg),
                         V_NOT_WRITTEN);
        ck_assert_int_eq(reduce_judge(sum[v], sum_abs[v], n, (float)(2.0 * sum[v]), msg, sizeof msg),
                         V_WRONG);
        ck_assert_ptr_nonnull(strstr(msg, "added twice"));
    }
    /* One constant cannot be right for both input sets. */
    ck_assert_int_eq(reduce_judge(sum[1], sum_abs[1], n, (float)sum[0], msg, sizeof msg), V_WRONG);
    ck_assert_int_eq(reduce_judge(sum[0], sum_abs[0], n, (float)sum[1], msg, sizeof msg), V_WRONG);
    free(x);
}
END_TEST

/* The tolerance grows with n and sum |x| as documented, and every graded
 * size keeps the exact sum far from zero. */
START_TEST(tolerance_and_inputs)
{
    double u = ldexp(1.0, -24);
    ck_assert_double_eq_tol(reduce_tolerance(1, 1.0), 8.0 * u, 1e-20);
    ck_assert_double_eq_tol(reduce_tolerance(1 << 20, 1.0), 18.0 * u, 1e-20);
    ck_assert(reduce_tolerance(1000, 2.0) == 2.0 * reduce_tolerance(1000, 1.0));
    float x[64];
    double sum, sum_abs;
    for (uint64_t seed = 0; seed < 200; seed++) {
        reduce_make_input(x, 2, (int)(seed % 2), seed, &sum, &sum_abs);
        ck_assert(fabs(sum) > 16.0 * reduce_tolerance(2, sum_abs));
        ck_assert_double_eq_tol(sum, (double)x[0] + x[1], 1e-12);
    }
    /* The same seed gives the same data; another seed other data. */
    float a[64], b[64], c[64];
    reduce_make_input(a, 64, 1, 7, &sum, &sum_abs);
    reduce_make_input(b, 64, 1, 7, &sum, &sum_abs);
    reduce_make_input(c, 64, 1, 8, &sum, &sum_abs);
    ck_assert(memcmp(a, b, sizeof a) == 0);
    ck_assert(memcmp(a, c, sizeof a) != 0);
    int negative = 0;
    for (int i = 0; i < 64; i++)
        negative += a[i] < 0;
    ck_assert(negative > 8 && negative < 56); /* signed values */
}
END_TEST

/* Replays: every timed call's input is patched. The judge accepts the
 * patched input's sum in the orders a GPU adds, and rejects what a stage that
 * keeps results would return: the unpatched sum, or any earlier call's. */
START_TEST(replays_are_caught)
{
    static const size_t sizes[] = {(size_t)1 << 20, 1000003};
    size_t n = sizes[_i];
    float *x = malloc(n * sizeof(float)), *y = malloc(n * sizeof(float));
    ck_assert(x && y);
    char msg[VERDICT_MSG];
    enum { CALLS = 24 };
    for (int v = 0; v < 2; v++) {
        double sum0, abs0;
        reduce_make_input(x, n, v, 5 + (uint64_t)v, &sum0, &abs0);
        reduce_seen seen = {0};
        reduce_seen_add(&seen, sum0);
        float earlier[CALLS + 1];
        earlier[0] = pairwise(x, n); /* what the correctness call returned */
        rng r;
        rng_seed(&r, 99 + (uint64_t)v);
        patch_set p = {0};
        for (int call = 1; call <= CALLS; call++) {
            patch_pick(&p, 16, n, &r);
            double sum = sum0, sum_abs = abs0;
            reduce_patch_values(x, n, p.idx, p.n, &seen, &r, p.val, &sum, &sum_abs);
            ck_assert_int_eq(seen.n, call + 1);
            memcpy(y, x, n * sizeof(float));
            for (int k = 0; k < p.n; k++) {
                memcpy(&y[p.idx[k]], &p.val[k], sizeof(float));
                ck_assert(isfinite(y[p.idx[k]]) && y[p.idx[k]] != x[p.idx[k]]);
            }
            double exact = 0, mags = 0;
            for (size_t i = 0; i < n; i++) {
                exact += y[i];
                mags += fabs(y[i]);
            }
            ck_assert(fabs(exact - sum) < 1e-9 * mags);
            ck_assert(fabs(mags - sum_abs) < 1e-9 * mags);
            ck_assert(fabs(sum - sum0) > 32 * reduce_tolerance(n, sum_abs));
            float now[] = {pairwise(y, n), grid_stride(y, n, 33792), atomic_blocks(y, n)};
            for (int k = 0; k < 3; k++)
                ck_assert_msg(reduce_judge(sum, sum_abs, n, now[k], msg, sizeof msg) == V_PASS,
                              "set %d call %d order %d: %s", v, call, k, msg);
            for (int e = 0; e < call; e++) /* every earlier result, replayed */
                ck_assert_msg(reduce_judge(sum, sum_abs, n, earlier[e], msg, sizeof msg) ==
                                  V_WRONG,
                              "set %d call %d: the result of call %d passes", v, call, e);
            earlier[call] = now[0];
        }
    }
    free(x);
    free(y);
}
END_TEST

/* At the benchmark size (2^28: only the patched words and the sums matter
 * here) the sum moves by far more than the tolerance, at most half of itself,
 * and away from every sum seen before, call after call. */
START_TEST(replay_margin_at_benchmark_size)
{
    size_t n = (size_t)1 << 28;
    float x[4096];
    rng r;
    rng_seed(&r, 3);
    for (int v = 0; v < 2; v++) {
        double sum0 = v ? 0.2 * (double)n : 0.1 * (double)n, abs0 = v ? 2.0 * n : 0.505 * n;
        for (int i = 0; i < 4096; i++)
            x[i] = v ? (float)(1.0 / sqrt(rng_uniform(&r, 1e-6f, 1.0f))) : rng_uniform(&r, -0.9f, 1.1f);
        reduce_seen seen = {0};
        reduce_seen_add(&seen, sum0);
        patch_set p = {0};
        for (int call = 0; call < 500; call++) {
            patch_pick(&p, 16, 4096, &r);
            double sum = sum0, sum_abs = abs0;
            reduce_patch_values(x, n, p.idx, p.n, &seen, &r, p.val, &sum, &sum_abs);
            double tol = reduce_tolerance(n, sum_abs);
            ck_assert(fabs(sum - sum0) > 64 * tol);
            ck_assert(fabs(sum - sum0) < 0.5 * fabs(sum0));
            for (int e = 0; e + 1 < seen.n; e++)
                ck_assert(fabs(sum - seen.sum[e]) > 8 * tol);
        }
    }
}
END_TEST

START_TEST(reduce_sizes)
{
    const char *want[] = {"n = 1",     "n = 2",          "n = 31",      "n = 32",
                          "n = 33",    "n = 1000",       "n = 2^20",    "n = 2^20 + 7",
                          "n = 1000003", "n = 2^28"};
    ck_assert_int_eq(lab_reduce.n_sizes, (int)(sizeof want / sizeof want[0]));
    for (int i = 0; i < lab_reduce.n_sizes; i++) {
        char t[64];
        lab_reduce.size_text(i, t, sizeof t);
        ck_assert_str_eq(t, want[i]);
    }
    ck_assert_int_eq(lab_reduce.bench_size, lab_reduce.n_sizes - 1);
    ck_assert_double_eq_tol(lab_reduce.work(7, lab_reduce.bench_size), 1.073741824, 1e-9);
    ck_assert_int_eq(lab_reduce.check_variants, 2);
}
END_TEST

Suite *make_reduce_suite(void)
{
    Suite *s = suite_create("reduce");
    TCase *tc = tcase_create("reduce");
    tcase_set_timeout(tc, 60);
    int n = (int)(sizeof judged_sizes / sizeof judged_sizes[0]);
    tcase_add_loop_test(tc, gpu_orders_pass, 0, n);
    tcase_add_loop_test(tc, wrong_sums_fail, 0, n);
    tcase_add_test(tc, tolerance_and_inputs);
    tcase_add_test(tc, reduce_sizes);
    tcase_add_loop_test(tc, replays_are_caught, 0, 2);
    tcase_add_test(tc, replay_margin_at_benchmark_size);
    suite_add_tcase(s, tc);
    return s;
}
