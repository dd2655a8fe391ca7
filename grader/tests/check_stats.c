#include <math.h>

#include "../../common/stats.h"
#include "tests.h"

START_TEST(median_odd_even)
{
    double odd[] = {5, 1, 3};
    double even[] = {4, 1, 3, 2};
    ck_assert_double_eq(stats_median(odd, 3), 3);
    ck_assert_double_eq(stats_median(even, 4), 2.5);
    ck_assert_double_eq(odd[0], 5); /* input untouched */
}
END_TEST

START_TEST(quantiles)
{
    double x[11];
    for (int i = 0; i < 11; i++)
        x[i] = 10 - i;
    ck_assert_double_eq(stats_quantile(x, 11, 0.0), 0);
    ck_assert_double_eq(stats_quantile(x, 11, 1.0), 10);
    ck_assert_double_eq_tol(stats_quantile(x, 11, 0.1), 1.0, 1e-12);
    ck_assert_double_eq_tol(stats_quantile(x, 11, 0.9), 9.0, 1e-12);
    ck_assert_double_eq(stats_quantile(x, 11, 2.0), 10); /* clamped */
}
END_TEST

START_TEST(empty_is_nan)
{
    ck_assert(isnan(stats_median(NULL, 0)));
}
END_TEST

START_TEST(median_of_paired_ratios)
{
    double base[] = {10, 20, 30, 40, 50};
    double stage[] = {5, 10, 10, 20, 0};
    /* ratios 2, 2, 3, 2; the pair with a zero time is skipped */
    ck_assert_double_eq(stats_median_ratio(base, stage, 5), 2);
}
END_TEST

Suite *make_stats_suite(void)
{
    Suite *s = suite_create("stats");
    TCase *tc = tcase_create("stats");
    tcase_add_test(tc, median_odd_even);
    tcase_add_test(tc, quantiles);
    tcase_add_test(tc, empty_is_nan);
    tcase_add_test(tc, median_of_paired_ratios);
    suite_add_tcase(s, tc);
    return s;
}
