#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/compare.h"
#include "../../common/par.h"
#include "../gbuf.h"
#include "tests.h"

static float unwritten(void)
{
    float f;
    uint32_t bits = COMPARE_UNWRITTEN;
    memcpy(&f, &bits, sizeof f);
    return f;
}

START_TEST(exact_match)
{
    float e[] = {1, -2, 3.5f, 0};
    float g[] = {1, -2, 3.5f, -0.0f};
    compare_report r;
    ck_assert_int_eq(compare_floats(e, g, 4, 0, 0, &r), 1);
    ck_assert_uint_eq(r.mismatches, 0);
    ck_assert_uint_eq(r.n, 4);
}
END_TEST

START_TEST(abs_and_rel_tolerance)
{
    float e[] = {100, 0};
    float g[] = {100.5f, 0.25f};
    compare_report r;
    ck_assert_int_eq(compare_floats(e, g, 2, 0.3, 0.0, &r), 0); /* 0.5 > 0.3 */
    ck_assert_uint_eq(r.first, 0);
    ck_assert_int_eq(compare_floats(e, g, 2, 0.3, 0.01, &r), 1); /* 0.5 <= 0.3 + 1.0 */
    ck_assert_double_eq_tol(r.max_abs_err, 0.5, 1e-6);
}
END_TEST

START_TEST(nan_never_matches)
{
    float e[] = {NAN, 1};
    float g[] = {NAN, NAN};
    compare_report r;
    ck_assert_int_eq(compare_floats(e, g, 2, 1e30, 1e30, &r), 0);
    ck_assert_uint_eq(r.mismatches, 2);
    ck_assert_uint_eq(r.nans, 2);
    float inf[] = {INFINITY};
    float one[] = {1};
    ck_assert_int_eq(compare_floats(one, inf, 1, 1e30, 1e30, &r), 0);
}
END_TEST

START_TEST(unwritten_is_told_apart)
{
    float e[] = {1, 2, 3, 4};
    float g[] = {1, 5, unwritten(), NAN};
    compare_report r;
    ck_assert_int_eq(compare_floats(e, g, 4, 0, 0, &r), 0);
    ck_assert_uint_eq(r.mismatches, 3);
    ck_assert_uint_eq(r.unwritten, 1);
    ck_assert_uint_eq(r.nans, 1);
    ck_assert_uint_eq(r.first, 1);
    ck_assert_float_eq(r.expected, 2);
    ck_assert_float_eq(r.got, 5);
    ck_assert_int_eq(r.first_unwritten, 0);
    ck_assert(compare_is_unwritten(g[2]));
    ck_assert(!compare_is_unwritten(g[3]));
}
END_TEST

START_TEST(all_zero_output_fails)
{
    float e[64], g[64];
    for (int i = 0; i < 64; i++) {
        e[i] = (float)(i + 1) / 64.0f;
        g[i] = 0;
    }
    compare_report r;
    ck_assert_int_eq(compare_floats(e, g, 64, 1e-6, 1e-6, &r), 0);
    ck_assert_uint_eq(r.mismatches, 64);
}
END_TEST

START_TEST(first_diff_word)
{
    static float a[100000], b[100000];
    for (int i = 0; i < 100000; i++)
        a[i] = b[i] = (float)i;
    ck_assert_int_eq(compare_first_diff_word(a, b, sizeof a), -1);
    b[77777] = -1;
    ck_assert_int_eq(compare_first_diff_word(a, b, sizeof a), 77777);
    b[3] = -1;
    ck_assert_int_eq(compare_first_diff_word(a, b, sizeof a), 3);
}
END_TEST

START_TEST(first_diff_word_large)
{
    /* Above the size where several threads share the work. */
    size_t n = (size_t)40 << 20;
    unsigned char *a = calloc(n, 1), *b = calloc(n, 1);
    ck_assert(a && b);
    ck_assert_int_eq(compare_first_diff_word(a, b, n), -1);
    b[n - 1] = 1; /* the last slice */
    ck_assert_int_eq(compare_first_diff_word(a, b, n), (long long)((n - 1) / 4));
    b[n / 3 + 5] = 1; /* an inner slice */
    ck_assert_int_eq(compare_first_diff_word(a, b, n), (long long)((n / 3 + 5) / 4));
    free(a);
    free(b);
}
END_TEST

START_TEST(guard_first_diff)
{
    unsigned char a[64] = {0}, b[64] = {0};
    ck_assert_int_eq(gbuf_first_diff(a, b, 64), -1);
    b[40] = 1;
    ck_assert_int_eq(gbuf_first_diff(a, b, 64), 40);
}
END_TEST

/* par_for visits every index once, in slices of whole grains, and OR-s what
 * the slices report; par_memcpy and par_memset cover every byte. */
static int mark(void *ctx, size_t begin, size_t end)
{
    unsigned char *seen = ctx;
    for (size_t i = begin; i < end; i++)
        seen[i]++;
    return begin % 1000 != 0 ? 4 : begin != 0 ? 2 : 0; /* 2 from every slice but the first */
}

START_TEST(parallel_for)
{
    size_t n = 10 * 1000 + 7;
    unsigned char *seen = calloc(n, 1);
    ck_assert_ptr_nonnull(seen);
    int r = par_for(n, 1000, mark, seen);
    for (size_t i = 0; i < n; i++)
        ck_assert_msg(seen[i] == 1, "index %zu seen %d times", i, seen[i]);
    ck_assert_int_eq(r, par_threads() > 1 ? 2 : 0);
    ck_assert_int_eq(par_for(0, 1000, mark, seen), 0);
    size_t bytes = ((size_t)9 << 20) + 3;
    unsigned char *a = malloc(bytes), *b = malloc(bytes);
    ck_assert_ptr_nonnull(a);
    ck_assert_ptr_nonnull(b);
    for (size_t i = 0; i < bytes; i++)
        a[i] = (unsigned char)(i * 7 + 1);
    par_memcpy(b, a, bytes);
    ck_assert_int_eq(memcmp(a, b, bytes), 0);
    par_memset(b, 0x5a, bytes);
    ck_assert_int_eq(b[0], 0x5a);
    ck_assert_int_eq(b[bytes - 1], 0x5a);
    ck_assert_int_eq(b[bytes / 2], 0x5a);
    free(a);
    free(b);
    free(seen);
}
END_TEST

Suite *make_compare_suite(void)
{
    Suite *s = suite_create("compare");
    TCase *tc = tcase_create("compare");
    tcase_add_test(tc, exact_match);
    tcase_add_test(tc, parallel_for);
    tcase_add_test(tc, abs_and_rel_tolerance);
    tcase_add_test(tc, nan_never_matches);
    tcase_add_test(tc, unwritten_is_told_apart);
    tcase_add_test(tc, all_zero_output_fails);
    tcase_add_test(tc, first_diff_word);
    tcase_add_test(tc, first_diff_word_large);
    tcase_add_test(tc, guard_first_diff);
    suite_add_tcase(s, tc);
    return s;
}
