#include <math.h>

#include "../../common/rng.h"
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
    suite_add_tcase(s, tc);
    return s;
}
