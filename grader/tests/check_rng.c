#include <math.h>
#include <string.h>

#include "../../common/rng.h"
#include "../patch.h"
#include "tests.h"

START_TEST(same_seed_same_sequence)
{
    rng a, b;
    rng_seed(&a, 42);
    rng_seed(&b, 42);
    for (int i = 0; i < 1000; i++)
        ck_assert_uint_eq(rng_next(&a), rng_next(&b));
}
END_TEST

START_TEST(different_seeds_differ)
{
    rng a, b;
    rng_seed(&a, 1);
    rng_seed(&b, 2);
    int same = 0;
    for (int i = 0; i < 100; i++)
        same += rng_next(&a) == rng_next(&b);
    ck_assert_int_eq(same, 0);
}
END_TEST

START_TEST(known_first_value)
{
    /* splitmix64 from state 0: the published first output. */
    rng a;
    rng_seed(&a, 0);
    ck_assert_uint_eq(rng_next(&a), 0xe220a8397b1dcdafULL);
}
END_TEST

START_TEST(derive_separates_streams)
{
    ck_assert_uint_ne(rng_derive(7, 0), rng_derive(7, 1));
    ck_assert_uint_ne(rng_derive(7, 0), rng_derive(8, 0));
    ck_assert_uint_eq(rng_derive(7, 3), rng_derive(7, 3));
}
END_TEST

START_TEST(uniform_in_range_and_spread)
{
    rng a;
    rng_seed(&a, 123);
    float lo = 1e9f, hi = -1e9f;
    double sum = 0;
    int neg = 0;
    for (int i = 0; i < 100000; i++) {
        float x = rng_uniform(&a, -1.0f, 1.0f);
        ck_assert(x >= -1.0f && x < 1.0f);
        lo = x < lo ? x : lo;
        hi = x > hi ? x : hi;
        sum += x;
        neg += x < 0;
    }
    ck_assert(lo < -0.99f && hi > 0.99f);
    ck_assert(fabs(sum / 100000) < 0.02);
    ck_assert(neg > 48000 && neg < 52000);
}
END_TEST

START_TEST(fill_is_distinct)
{
    rng a;
    rng_seed(&a, 5);
    float x[4096];
    rng_fill_uniform(&a, x, 4096, -1, 1);
    int dup = 0;
    for (int i = 1; i < 4096; i++)
        dup += x[i] == x[i - 1];
    ck_assert_int_le(dup, 1);
}
END_TEST

START_TEST(below_bound)
{
    rng a;
    rng_seed(&a, 9);
    int hist[3] = {0, 0, 0};
    for (int i = 0; i < 30000; i++) {
        uint64_t v = rng_below(&a, 3);
        ck_assert_uint_lt(v, 3);
        hist[v]++;
    }
    for (int k = 0; k < 3; k++)
        ck_assert(hist[k] > 9000 && hist[k] < 11000);
    ck_assert_uint_eq(rng_below(&a, 1), 0);
}
END_TEST

START_TEST(os_seed_varies)
{
    uint64_t a = 0, b = 0;
    ck_assert_int_eq(rng_os_seed(&a), 0);
    ck_assert_int_eq(rng_os_seed(&b), 0);
    ck_assert_uint_ne(a, b);
}
END_TEST


/* A patch: distinct ascending positions in range, as many as asked (or as
 * the range holds), found again by patch_find, different from one call to
 * the next. */
START_TEST(patch_positions)
{
    rng r;
    rng_seed(&r, 11);
    patch_set p = {0};
    patch_pick(&p, 16, 1000, &r);
    ck_assert_int_eq(p.n, 16);
    for (int k = 0; k < p.n; k++) {
        ck_assert_uint_lt(p.idx[k], 1000);
        if (k)
            ck_assert_uint_lt(p.idx[k - 1], p.idx[k]);
        ck_assert_int_eq(patch_find(&p, p.idx[k]), k);
        p.val[k] = 1000u + (uint32_t)k;
    }
    uint32_t h[1000];
    for (int i = 0; i < 1000; i++)
        h[i] = (uint32_t)i;
    int patched = 0;
    for (size_t i = 0; i < 1000; i++) {
        uint32_t w = patch_word(&p, h, i);
        patched += w != h[i];
        if (patch_find(&p, i) < 0)
            ck_assert_uint_eq(w, h[i]);
    }
    ck_assert_int_eq(patched, 16);
    uint64_t first[16];
    memcpy(first, p.idx, sizeof first);
    patch_pick(&p, 16, 1000, &r);
    ck_assert(memcmp(first, p.idx, sizeof first) != 0);
    patch_pick(&p, 16, 3, &r); /* fewer words than asked */
    ck_assert_int_eq(p.n, 3);
    ck_assert_uint_eq(p.idx[0], 0);
    ck_assert_uint_eq(p.idx[2], 2);
    patch_pick(&p, PATCH_MAX + 10, 1u << 20, &r);
    ck_assert_int_eq(p.n, PATCH_MAX);
}
END_TEST

/* Strided patches keep to their regions: here the interior columns 1..5 of
 * rows of 8 words starting at word 8 in a buffer of 8 x 10 words. */
START_TEST(patch_strided_regions)
{
    rng r;
    rng_seed(&r, 12);
    patch_set p = {0};
    for (int rep = 0; rep < 50; rep++) {
        patch_pick_strided(&p, 20, 80, 9, 8, 5, &r);
        ck_assert_int_eq(p.n, 20);
        for (int k = 0; k < p.n; k++) {
            ck_assert_uint_ge(p.idx[k], 9);
            ck_assert_uint_lt(p.idx[k], 80);
            ck_assert_uint_ge(p.idx[k] % 8, 1);
            ck_assert_uint_le(p.idx[k] % 8, 5);
        }
    }
    patch_pick_strided(&p, 4, 80, 80, 8, 5, &r); /* starts past the end */
    ck_assert_int_eq(p.n, 0);
}
END_TEST

/* What a patched output is expected to hold: overrides replace words,
 * deltas add to every later word of their segment (a scan), in wrapping
 * 32-bit arithmetic. Checked against the same scan recomputed. */
START_TEST(expect_rule)
{
    enum { N = 64, SEG = 16 };
    uint32_t in[N], out[N], again[N];
    rng r;
    rng_seed(&r, 13);
    for (int i = 0; i < N; i++)
        in[i] = (uint32_t)rng_next(&r);
    for (int i = 0; i < N; i++) /* segmented inclusive scan */
        out[i] = in[i] + (i % SEG ? out[i - 1] : 0u);
    expect_patch e;
    memset(&e, 0, sizeof e);
    expect_clear(&e, SEG);
    const int at[] = {40, 3, 17, 16, 63, 3}; /* unsorted, one twice */
    for (int k = 0; k < 6; k++) {
        uint32_t d = (uint32_t)rng_next(&r);
        in[at[k]] += d;
        ck_assert_int_eq(expect_delta(&e, (uint64_t)at[k], d), 0);
    }
    ck_assert_int_eq(e.nd, 5);
    for (int i = 0; i < N; i++)
        again[i] = in[i] + (i % SEG ? again[i - 1] : 0u);
    expect_sort(&e);
    for (int i = 0; i < N; i++)
        ck_assert_uint_eq(expect_word(&e, out, (uint64_t)i), again[i]);
    expect_override(&e, 5, 77u); /* an override, then the deltas of its segment */
    ck_assert_uint_eq(expect_word(&e, out, 5), 77u + (again[5] - out[5]));
    expect_clear(&e, 0); /* one segment: a delta reaches the end */
    expect_delta(&e, 10, 1u);
    ck_assert_uint_eq(expect_word(&e, out, 9), out[9]);
    ck_assert_uint_eq(expect_word(&e, out, 63), out[63] + 1u);
    for (int k = 0; k < EXPECT_MAX; k++)
        ck_assert_int_eq(expect_override(&e, 1000u + (uint64_t)k, 1u), 0);
    ck_assert_int_eq(expect_override(&e, 5000u, 1u), -1); /* full */
}
END_TEST

Suite *make_rng_suite(void)
{
    Suite *s = suite_create("rng");
    TCase *tc = tcase_create("rng");
    tcase_add_test(tc, same_seed_same_sequence);
    tcase_add_test(tc, different_seeds_differ);
    tcase_add_test(tc, known_first_value);
    tcase_add_test(tc, derive_separates_streams);
    tcase_add_test(tc, uniform_in_range_and_spread);
    tcase_add_test(tc, fill_is_distinct);
    tcase_add_test(tc, below_bound);
    tcase_add_test(tc, os_seed_varies);
    tcase_add_test(tc, patch_positions);
    tcase_add_test(tc, patch_strided_regions);
    tcase_add_test(tc, expect_rule);
    suite_add_tcase(s, tc);
    return s;
}
