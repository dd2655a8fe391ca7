#include <math.h>
#include <time.h>

#include "../../common/stats.h"
#include "../runner.h"
#include "../timings.h"
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

/* The phase clock charges each interval to the phase it was in: a sleep
 * lands in its own phase (at least its length), nothing in phases never
 * entered, and the totals add up to the time since the start. */
START_TEST(phase_clock)
{
    double t0 = tm_now();
    tm_start(TM_STARTUP);
    struct timespec nap = {0, 20 * 1000 * 1000};
    nanosleep(&nap, NULL);
    int left = tm_enter(TM_TIMED);
    ck_assert_int_eq(left, TM_STARTUP);
    nanosleep(&nap, NULL);
    ck_assert_int_eq(tm_enter(left), TM_TIMED);
    double secs[TM_COUNT];
    tm_totals(secs);
    double elapsed = tm_now() - t0, sum = 0;
    for (int p = 0; p < TM_COUNT; p++)
        sum += secs[p];
    ck_assert_double_ge(secs[TM_STARTUP], 0.020);
    ck_assert_double_ge(secs[TM_TIMED], 0.020);
    ck_assert_double_eq(secs[TM_CEILING], 0.0);
    ck_assert_double_le(sum, elapsed);
    ck_assert_double_ge(sum, 0.040);
    ck_assert_str_eq(tm_phase_key(TM_TIMED_CHECKS), "timed_checks");
    ck_assert_str_eq(tm_phase_name(TM_REFERENCE), "CPU reference");
    tm_start(TM_OTHER); /* a restart forgets what came before */
    tm_totals(secs);
    ck_assert_double_lt(secs[TM_STARTUP], 0.001);
}
END_TEST

/* Timing stops early only when every pair so far decides every verdict with
 * room to spare; a close call, or too few pairs, goes on. */
START_TEST(settled_repetitions)
{
    enum { K = RUNNER_MIN_REPS };
    double stage[K], wall[K], base[K], ceil[K];
    for (int i = 0; i < K; i++) {
        stage[i] = 1.0 + 0.01 * i;
        wall[i] = stage[i] + 0.05;
        base[i] = 2.0 * stage[i]; /* 2x over the base */
        ceil[i] = 0.5 * stage[i]; /* 50% of the ceiling */
    }
    const double *bases[1] = {base};
    ck_assert(runner_settled(K, stage, wall, bases, 1, ceil, 1.4, 0.0, 1.1));
    ck_assert(!runner_settled(K - 1, stage, wall, bases, 1, ceil, 1.4, 0.0, 1.1));
    ck_assert(runner_settled(K, stage, wall, bases, 1, ceil, 2.5, 0.0, 1.1)); /* clearly slow */
    ck_assert(!runner_settled(K, stage, wall, bases, 1, ceil, 1.9, 0.0, 1.1)); /* within 10% */
    ck_assert(runner_settled(K, stage, wall, bases, 1, ceil, 1.4, 0.4, 1.1));
    ck_assert(!runner_settled(K, stage, wall, bases, 1, ceil, 1.4, 0.47, 1.1));
    ck_assert(runner_settled(K, stage, wall, NULL, 0, ceil, 0.0, 0.0, 1.1)); /* reported only */
    base[3] = 1.45 * stage[3]; /* one pair close to the threshold */
    ck_assert(!runner_settled(K, stage, wall, bases, 1, ceil, 1.4, 0.0, 1.1));
    base[3] = 2.0 * stage[3];
    ceil[5] = 1.05 * stage[5]; /* one pair at 95% of the ceiling: still clear */
    ck_assert(runner_settled(K, stage, wall, bases, 1, ceil, 1.4, 0.0, 1.1));
    ceil[5] = 1.2 * stage[5]; /* one pair past IMPOSSIBLE */
    ck_assert(!runner_settled(K, stage, wall, bases, 1, ceil, 1.4, 0.0, 1.1));
    ceil[5] = 0.5 * stage[5];
    wall[7] = 1.5 * stage[7] + 1.05; /* one pair past TIMING ANOMALY */
    ck_assert(!runner_settled(K, stage, wall, bases, 1, ceil, 1.4, 0.0, 1.1));
    for (int i = 0; i < K; i++)
        wall[i] = 10.0 * stage[i] + 5.0; /* clearly an anomaly: settled too */
    ck_assert(runner_settled(K, stage, wall, bases, 1, ceil, 1.4, 0.0, 1.1));
}
END_TEST

/* Five pairs are enough only when every decision is 50% away. */
START_TEST(settled_far_from_every_threshold)
{
    enum { K = RUNNER_FAR_REPS };
    double stage[K], wall[K], base[K], ceil[K];
    for (int i = 0; i < K; i++) {
        stage[i] = 1.0 + 0.01 * i;
        wall[i] = stage[i] + 0.05;
        base[i] = 280.0 * stage[i]; /* 280x over the base */
        ceil[i] = 0.66 * stage[i];  /* 66% of the ceiling */
    }
    const double *bases[1] = {base};
    ck_assert(runner_settled(K, stage, wall, bases, 1, ceil, 5.0, 0.0, 1.1));
    ck_assert(!runner_settled(K - 1, stage, wall, bases, 1, ceil, 5.0, 0.0, 1.1));
    ck_assert(!runner_settled(K, stage, wall, bases, 1, ceil, 200.0, 0.0, 1.1)); /* 1.4x away */
    ck_assert(runner_settled(K, stage, wall, bases, 1, ceil, 150.0, 0.0, 1.1));  /* 1.87x away */
    ck_assert(runner_settled(K, stage, wall, bases, 1, ceil, 600.0, 0.0, 1.1));  /* clearly slow */
    ck_assert(!runner_settled(K, stage, wall, bases, 1, ceil, 5.0, 0.5, 1.1));   /* 66% vs 50% */
    for (int i = 0; i < K; i++)
        ceil[i] = 0.9 * stage[i]; /* 90% of the ceiling: IMPOSSIBLE not 50% away */
    ck_assert(!runner_settled(K, stage, wall, bases, 1, ceil, 5.0, 0.0, 1.1));
    double stage10[2 * K], wall10[2 * K], base10[2 * K], ceil10[2 * K];
    for (int i = 0; i < 2 * K; i++) {
        stage10[i] = 1.0;
        wall10[i] = 1.05;
        base10[i] = 280.0;
        ceil10[i] = 0.9;
    }
    const double *bases10[1] = {base10}; /* at 10 pairs, 90% of the ceiling is clear */
    ck_assert(runner_settled(2 * K, stage10, wall10, bases10, 1, ceil10, 5.0, 0.0, 1.1));
    for (int i = 0; i < K; i++) {
        ceil[i] = 0.5 * stage[i];
        wall[i] = 1.5 * stage[i] + 1.0 - 0.1; /* just under the anomaly bound: not far */
    }
    ck_assert(!runner_settled(K, stage, wall, bases, 1, ceil, 5.0, 0.0, 1.1));
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
    tcase_add_test(tc, phase_clock);
    tcase_add_test(tc, settled_repetitions);
    tcase_add_test(tc, settled_far_from_every_threshold);
    suite_add_tcase(s, tc);
    return s;
}
