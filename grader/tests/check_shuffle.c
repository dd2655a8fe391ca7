/* check_shuffle.c: lab 3's inputs, expected outputs and judgements, on the CPU. */
#include <stdlib.h>
#include <string.h>

#include "../lab.h"
#include "../labs/shuffle_lab.h"
#include "../patch.h"
#include "tests.h"

extern const lab_spec lab_shuffle;

START_TEST(expected_scans)
{
    int x[70], out[70];
    for (int i = 0; i < 70; i++)
        x[i] = (i % 3) - 1; /* -1 0 1 -1 0 1 ... */
    shuffle_expected_scan(x, 70, 0, out);
    int sum = 0;
    for (int i = 0; i < 70; i++) {
        sum += x[i];
        ck_assert_int_eq(out[i], sum);
    }
    shuffle_expected_scan(x, 70, 32, out);
    ck_assert_int_eq(out[31], -1 + 0 + 1 + -1 + 0 + 1 + -1 + 0 + 1 + -1 + 0 + 1 + -1 + 0 + 1 + -1 +
                                  0 + 1 + -1 + 0 + 1 + -1 + 0 + 1 + -1 + 0 + 1 + -1 + 0 + 1 + -1 + 0);
    ck_assert_int_eq(out[32], x[32]); /* a new segment starts from zero */
    ck_assert_int_eq(out[33], x[32] + x[33]);
    int kept[70];
    size_t k = shuffle_expected_compact(x, 70, kept);
    ck_assert_uint_eq(k, 23); /* the 1s at 2, 5, ..., 68 */
    for (size_t j = 0; j < k; j++)
        ck_assert_int_eq(kept[j], 1);
}
END_TEST

/* The fast checks agree with the expected outputs: over several blocks (so
 * several threads), with every kind of mistake moved around. */
START_TEST(fast_checks)
{
    size_t n = 3 * SHUFFLE_BLOCK + 77;
    int *x = malloc(n * sizeof(int)), *got = malloc(n * sizeof(int));
    size_t *plan = malloc((n / SHUFFLE_BLOCK + 2) * sizeof(size_t));
    ck_assert_ptr_nonnull(x);
    ck_assert_ptr_nonnull(got);
    ck_assert_ptr_nonnull(plan);
    for (int v = 0; v < 2; v++) {
        shuffle_make_ints(x, n, v, 42);
        for (size_t seg = 0; seg <= 1024; seg += 1024) {
            shuffle_expected_scan(x, n, seg, got);
            ck_assert(shuffle_scan_ok(x, got, n, seg));
            ck_assert(!shuffle_scan_ok(x, got, n, seg ? 0 : 1024)); /* other segments */
            size_t at[] = {0, 1, SHUFFLE_BLOCK - 1, SHUFFLE_BLOCK, 2 * SHUFFLE_BLOCK + 5, n - 1};
            for (size_t i = 0; i < sizeof at / sizeof at[0]; i++) {
                got[at[i]] += 1;
                ck_assert_msg(!shuffle_scan_ok(x, got, n, seg), "missed at %zu", at[i]);
                got[at[i]] -= 1;
            }
        }
        size_t k = shuffle_compact_plan(x, n, plan);
        ck_assert_uint_eq(k, shuffle_expected_compact(x, n, got));
        ck_assert(shuffle_compact_ok(x, n, plan, got));
        int t = got[k - 1]; /* the last two kept elements swapped, where they differ */
        size_t j = k - 2;
        while (j > 0 && got[j] == t)
            j--;
        got[k - 1] = got[j];
        got[j] = t;
        ck_assert(!shuffle_compact_ok(x, n, plan, got));
    }
    free(x);
    free(got);
    free(plan);
}
END_TEST

START_TEST(inputs)
{
    size_t n = 100000;
    int *x = malloc(n * sizeof(int)), *y = malloc(n * sizeof(int));
    shuffle_make_ints(x, n, 0, 5);
    int lo = 99, hi = -99, positive = 0;
    for (size_t i = 0; i < n; i++) {
        lo = x[i] < lo ? x[i] : lo;
        hi = x[i] > hi ? x[i] : hi;
        positive += x[i] > 0;
    }
    ck_assert_int_eq(lo, -4);
    ck_assert_int_eq(hi, 5);
    ck_assert(positive > 45000 && positive < 55000);
    /* The runs set: long stretches kept or dropped, so few sign changes. */
    shuffle_make_ints(y, n, 1, 5);
    size_t changes = 0;
    for (size_t i = 1; i < n; i++)
        changes += (y[i] > 0) != (y[i - 1] > 0);
    ck_assert(changes > 10 && changes < 200);
    for (size_t i = 0; i < n; i++)
        ck_assert(y[i] >= -4 && y[i] <= 5);
    shuffle_make_ints(y, n, 0, 6);
    ck_assert(memcmp(x, y, n * sizeof(int)) != 0); /* another seed, other data */
    free(x);
    free(y);
}
END_TEST

START_TEST(scan_judgements)
{
    enum { N = 5000 };
    static int x[N], expect[N], got[N];
    char msg[VERDICT_MSG];
    shuffle_make_ints(x, N, 0, 9);
    shuffle_expected_scan(x, N, 0, expect);
    memcpy(got, expect, sizeof got);
    ck_assert_int_eq(shuffle_judge_scan(x, expect, got, N, SHUFFLE_SCAN, msg, sizeof msg), V_PASS);
    /* An exclusive scan is recognised. */
    for (int i = 0; i < N; i++)
        got[i] = expect[i] - x[i];
    int first = 0;
    while (x[first] == 0)
        first++;
    ck_assert_int_eq(shuffle_judge_scan(x, expect, got, N, SHUFFLE_SCAN, msg, sizeof msg), V_WRONG);
    ck_assert_ptr_nonnull(strstr(msg, "an exclusive scan"));
    /* A tile that misses the prefix of the tiles before it. */
    memcpy(got, expect, sizeof got);
    for (int i = 4096; i < N; i++)
        got[i] = expect[i] - expect[4095];
    if (expect[4095] != 0) {
        ck_assert_int_eq(shuffle_judge_scan(x, expect, got, N, SHUFFLE_SCAN, msg, sizeof msg),
                         V_WRONG);
        ck_assert_ptr_nonnull(strstr(msg, "d_out[4096]"));
    }
    /* Never written. */
    memset(got, 0x80, sizeof got);
    ck_assert_int_eq(shuffle_judge_scan(x, expect, got, N, SHUFFLE_SCAN, msg, sizeof msg),
                     V_NOT_WRITTEN);
    /* A segmented scan that did not restart at a segment. */
    shuffle_expected_scan(x, N, 32, expect);
    shuffle_expected_scan(x, N, 64, got);
    ck_assert_int_eq(shuffle_judge_scan(x, expect, got, N, SHUFFLE_SCAN32, msg, sizeof msg),
                     V_WRONG);
    ck_assert_ptr_nonnull(strstr(msg, "starts again from zero"));
}
END_TEST

START_TEST(compact_judgements)
{
    int expect[] = {3, 1, 4, 1, 5, 9, 2, 6};
    int got[8];
    char msg[VERDICT_MSG];
    memcpy(got, expect, sizeof got);
    ck_assert_int_eq(shuffle_judge_compact(expect, 8, got, 8, msg, sizeof msg), V_PASS);
    ck_assert_int_eq(shuffle_judge_compact(expect, 8, got, 7, msg, sizeof msg), V_WRONG);
    ck_assert_ptr_nonnull(strstr(msg, "d_count[0] = 7, expected 8"));
    ck_assert_int_eq(shuffle_judge_compact(expect, 8, got, (int)0x80808080u, msg, sizeof msg),
                     V_NOT_WRITTEN);
    int swapped[] = {1, 3, 4, 1, 5, 9, 2, 6};
    ck_assert_int_eq(shuffle_judge_compact(expect, 8, swapped, 8, msg, sizeof msg), V_WRONG);
    ck_assert_ptr_nonnull(strstr(msg, "in another order"));
    int lost[] = {3, 1, 4, 1, 5, 9, 2, 7};
    ck_assert_int_eq(shuffle_judge_compact(expect, 8, lost, 8, msg, sizeof msg), V_WRONG);
    ck_assert_ptr_null(strstr(msg, "another order"));
}
END_TEST

/* Replays: every timed call's input is patched. The fast checks accept the
 * output of the patched input, and reject the output of the unpatched one
 * and of the call before (what a stage that keeps its results returns). The
 * patch keeps inputs in range, and a compaction's kept elements kept. */
START_TEST(replays_are_caught)
{
    static const int ops[] = {SHUFFLE_SCAN32, SHUFFLE_SCAN1K, SHUFFLE_SCAN, SHUFFLE_COMPACT};
    int op = ops[_i];
    size_t n = 3 * SHUFFLE_BLOCK + 77, seg = op == SHUFFLE_SCAN32 ? 32 : op == SHUFFLE_SCAN1K ? 1024 : 0;
    int *x = malloc(n * sizeof(int)), *y = malloc(n * sizeof(int));
    int *now = malloc(n * sizeof(int)), *before = malloc(n * sizeof(int));
    size_t *plan = malloc((n / SHUFFLE_BLOCK + 2) * sizeof(size_t));
    ck_assert(x && y && now && before && plan);
    rng r;
    rng_seed(&r, 11 + (uint64_t)op);
    patch_set p = {0};
    for (int v = 0; v < 2; v++) {
        shuffle_make_ints(x, n, v, 77);
        size_t kept = shuffle_compact_plan(x, n, plan);
        if (op == SHUFFLE_COMPACT)
            shuffle_expected_compact(x, n, before);
        else
            shuffle_expected_scan(x, n, seg, before);
        for (int call = 0; call < 12; call++) {
            patch_pick(&p, 16, n, &r);
            shuffle_patch_ints(x, n, op, p.idx, &p.n, &r, p.val);
            ck_assert_int_ge(p.n, op == SHUFFLE_COMPACT ? 8 : 16);
            memcpy(y, x, n * sizeof(int));
            for (int k = 0; k < p.n; k++) {
                int w = (int)p.val[k], old = x[p.idx[k]];
                ck_assert(k == 0 || p.idx[k] > p.idx[k - 1]);
                ck_assert(w != old && w >= -4 && w <= 5);
                if (op == SHUFFLE_COMPACT)
                    ck_assert(w > 0 && old > 0);
                y[p.idx[k]] = w;
            }
            if (op == SHUFFLE_COMPACT) {
                ck_assert_uint_eq(shuffle_expected_compact(y, n, now), kept);
                ck_assert(shuffle_compact_ok_patched(x, n, plan, now, p.idx, p.val, p.n));
                ck_assert(!shuffle_compact_ok_patched(x, n, plan, before, p.idx, p.val, p.n));
                ck_assert(!shuffle_compact_ok(x, n, plan, now)); /* the patch is what tells */
            } else {
                shuffle_expected_scan(y, n, seg, now);
                ck_assert(shuffle_scan_ok_patched(x, now, n, seg, p.idx, p.val, p.n));
                ck_assert(!shuffle_scan_ok_patched(x, before, n, seg, p.idx, p.val, p.n));
                ck_assert(!shuffle_scan_ok(x, now, n, seg));
            }
            /* One patched element wrong is seen too. */
            size_t o = op == SHUFFLE_COMPACT ? 0 : (size_t)p.idx[p.n / 2];
            now[o] += 1;
            ck_assert(op == SHUFFLE_COMPACT
                          ? !shuffle_compact_ok_patched(x, n, plan, now, p.idx, p.val, p.n)
                          : !shuffle_scan_ok_patched(x, now, n, seg, p.idx, p.val, p.n));
            now[o] -= 1;
            memcpy(before, now, n * sizeof(int));
        }
    }
    free(x);
    free(y);
    free(now);
    free(before);
    free(plan);
}
END_TEST

START_TEST(stages_and_sizes)
{
    ck_assert_int_eq(lab_shuffle.n_stages, 8);
    ck_assert_int_eq(shuffle_stage_op(1), SHUFFLE_SUM);
    ck_assert_int_eq(shuffle_stage_op(3), SHUFFLE_SCAN32);
    ck_assert_int_eq(shuffle_stage_op(4), SHUFFLE_SCAN1K);
    ck_assert_int_eq(shuffle_stage_op(6), SHUFFLE_SCAN);
    ck_assert_int_eq(shuffle_stage_op(7), SHUFFLE_COMPACT);
    ck_assert_int_eq(shuffle_stage_op(8), -1);
    ck_assert_str_eq(lab_ceiling_name(&lab_shuffle, 2), "CUB DeviceReduce::Sum");
    ck_assert_str_eq(lab_ceiling_name(&lab_shuffle, 6), "CUB DeviceScan::InclusiveSum");
    ck_assert_str_eq(lab_ceiling_name(&lab_shuffle, 7), "CUB DeviceSelect::If");
    const char *want[] = {"n = 1", "n = 31", "n = 32", "n = 33", "n = 1000", "n = 2^20 + 7",
                          "n = 1000003", "n = 2^28"};
    ck_assert_int_eq(lab_shuffle.n_sizes, 8);
    for (int i = 0; i < 8; i++) {
        char t[64];
        lab_shuffle.size_text(i, t, sizeof t);
        ck_assert_str_eq(t, want[i]);
    }
    /* A scan reads and writes 4 bytes per element, a sum and a compaction read them. */
    ck_assert_double_eq_tol(lab_shuffle.work(6, 7), 2.147483648, 1e-9);
    ck_assert_double_eq_tol(lab_shuffle.work(2, 7), 1.073741824, 1e-9);
    ck_assert_double_eq_tol(lab_shuffle.work(7, 7), 1.073741824, 1e-9);
}
END_TEST

Suite *make_shuffle_suite(void)
{
    Suite *s = suite_create("shuffle");
    TCase *tc = tcase_create("shuffle");
    tcase_add_test(tc, expected_scans);
    tcase_add_test(tc, inputs);
    tcase_add_test(tc, fast_checks);
    tcase_add_test(tc, scan_judgements);
    tcase_add_test(tc, compact_judgements);
    tcase_add_test(tc, stages_and_sizes);
    tcase_add_loop_test(tc, replays_are_caught, 0, 4);
    suite_add_tcase(s, tc);
    return s;
}
