/* check_witness.c: the parent's judgement of a speed test against its timing
 * witness (grader/witness.h), on made-up records: no GPU, no child. The
 * witness itself needs two CUDA contexts and runs on a GPU only
 * (the adversarial cases that forge a speed test's record). */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "../decide.h"
#include "../witness.h"
#include "tests.h"

/* A made-up lab: stage 2 held to 1.2x over stage 1, stage 3 to 1.2x over
 * the faster of stages 1 and 2; a gigabyte a call. */
static double gigabyte(int stage, int size)
{
    (void)stage, (void)size;
    return 1.0;
}

static const lab_stage stages[] = {
    {.title = "a", .symbol = "a"},
    {.title = "b", .symbol = "b"},
    {.title = "c", .symbol = "c", .points_speed = 5, .min_speedup = 1.2, LAB_BASES(1)},
    {.title = "d", .symbol = "d", .points_speed = 5, .min_speedup = 1.2, LAB_BASES(1, 2)},
};
static const lab_spec spec = {
    .number = 9, .name = "made-up", .n_stages = 4, .stages = stages, .unit = "GB/s",
    .ceiling_name = "copy", .work = gigabyte,
};

/* What an honest child records of stage 2: its median, its base's (stage 1)
 * and the ceiling's, and the speedup those give. */
static test_record rec_of(double stage_ms, double base_ms, double ceiling_ms)
{
    test_record r;
    memset(&r, 0, sizeof r);
    r.state = STATE_FINISHED;
    r.graded = 1;
    r.v = V_PASS;
    r.timed = 1;
    r.reps = 20;
    r.median_ms = r.wall_ms = stage_ms;
    r.base = 1;
    r.base_ms = base_ms;
    r.speedup = base_ms / stage_ms;
    r.ceiling_ms = ceiling_ms;
    return r;
}

/* What its witness saw of the same calls: 2 warm-ups (slow) and 20 windows,
 * each the call plus a hand-off of 0.2870 to 0.2900 ms. */
static void saw(witness_record *w, int role, double call_ms, int calls)
{
    for (int i = 0; i < calls; i++) {
        double ms = i < 2 ? 5 * call_ms + 1 : call_ms + 0.2885 + 0.001 * ((i % 3) - 1);
        if (w->calls[role] < WITNESS_SAMPLES)
            w->ms[role][w->calls[role]] = (float)ms;
        w->calls[role]++;
    }
}

static witness_record witness_of(double stage_ms, double base_ms, double ceiling_ms)
{
    witness_record w;
    memset(&w, 0, sizeof w);
    w.state = WITNESS_READY;
    w.expected_calls = 22;
    w.warmups = 2;
    w.handoff_lo_ms = 0.2870;
    w.handoff_hi_ms = 0.2900;
    saw(&w, 2, stage_ms, 22);
    saw(&w, 1, base_ms, 22);
    saw(&w, WITNESS_CEILING, ceiling_ms, 22);
    return w;
}

START_TEST(honest_records_stand)
{
    char msg[VERDICT_MSG];
    /* From 20 us to 20 ms a call, the record as the witness saw it. */
    const double ms[] = {0.020, 0.140, 1.0, 2.7, 20.0};
    for (size_t i = 0; i < sizeof ms / sizeof ms[0]; i++) {
        test_record r = rec_of(ms[i], 1.6 * ms[i], 0.9 * ms[i]);
        witness_record w = witness_of(ms[i], 1.6 * ms[i], 0.9 * ms[i]);
        ck_assert_int_eq(witness_judge(&spec, 2, &r, &w, msg, sizeof msg), V_PASS);
        ck_assert_str_eq(msg, "");
        /* A hand-off 10 us longer or shorter in the timed calls than when
         * measured (the H200's spread is 4 us) still stands. */
        double d = 0.010;
        witness_record longer = witness_of(ms[i] + d, 1.6 * ms[i] + d, 0.9 * ms[i] + d);
        ck_assert_int_eq(witness_judge(&spec, 2, &r, &longer, msg, sizeof msg), V_PASS);
        witness_record shorter = witness_of(ms[i] - d, 1.6 * ms[i] - d, 0.9 * ms[i] - d);
        ck_assert_int_eq(witness_judge(&spec, 2, &r, &shorter, msg, sizeof msg), V_PASS);
    }
}
END_TEST

START_TEST(times_the_witness_did_not_see_are_rejected)
{
    char msg[VERDICT_MSG];
    /* The record says 1.0 ms, the witness saw 1.5 ms calls: a forged time. */
    test_record r = rec_of(1.0, 1.6, 0.9);
    witness_record w = witness_of(1.5, 1.6, 0.9);
    ck_assert_int_eq(witness_judge(&spec, 2, &r, &w, msg, sizeof msg), V_REJECTED);
    ck_assert_ptr_nonnull(strstr(msg, "says the stage took 1.0000 ms a call"));
    ck_assert_ptr_nonnull(strstr(msg, "measured 1.5000 ms"));
    /* Just outside the slack (8% and twice the hand-off's spread) and inside it. */
    w = witness_of(1.0 / 0.9, 1.6, 0.9);
    ck_assert_int_eq(witness_judge(&spec, 2, &r, &w, msg, sizeof msg), V_REJECTED);
    w = witness_of(1.05, 1.6, 0.9);
    ck_assert_int_eq(witness_judge(&spec, 2, &r, &w, msg, sizeof msg), V_PASS);
    /* Slower than seen is no better: a million milliseconds. */
    r.median_ms = 1e6;
    w = witness_of(1.0, 1.6, 0.9);
    ck_assert_int_eq(witness_judge(&spec, 2, &r, &w, msg, sizeof msg), V_REJECTED);
    /* The base or the ceiling made to look slow. */
    r = rec_of(1.0, 2.5, 0.9);
    w = witness_of(1.0, 1.6, 0.9);
    ck_assert_int_eq(witness_judge(&spec, 2, &r, &w, msg, sizeof msg), V_REJECTED);
    ck_assert_ptr_nonnull(strstr(msg, "says its base took 2.5000 ms"));
    r = rec_of(1.0, 1.6, 1.5);
    ck_assert_int_eq(witness_judge(&spec, 2, &r, &w, msg, sizeof msg), V_REJECTED);
    ck_assert_ptr_nonnull(strstr(msg, "says the ceiling took 1.5000 ms"));
}
END_TEST

START_TEST(the_verdict_is_decided_again)
{
    char msg[VERDICT_MSG];
    /* Honest times, a PASS and a speedup of 5 written over them. */
    test_record r = rec_of(1.0, 1.6, 0.9);
    r.speedup = 5;
    witness_record w = witness_of(1.0, 1.6, 0.9);
    ck_assert_int_eq(witness_judge(&spec, 2, &r, &w, msg, sizeof msg), V_REJECTED);
    ck_assert_ptr_nonnull(strstr(msg, "gives a speedup of 5.00x"));
    /* Honest times that fall short (1.10x of the 1.2x needed), and a PASS. */
    r = rec_of(1.0, 1.1, 0.9);
    w = witness_of(1.0, 1.1, 0.9);
    ck_assert_int_eq(witness_judge(&spec, 2, &r, &w, msg, sizeof msg), V_SLOW);
    ck_assert_ptr_nonnull(strstr(msg, "1.10x over stage 1"));
    /* A record moved to the edge of the slack, each time in the stage's
     * favour (the stage 7% faster, its base 8% slower): 1.33x on its own
     * numbers, but the witness's calls give 1.15x of the 1.2x needed. */
    r = rec_of(0.93, 1.24, 0.9);
    w = witness_of(1.0, 1.15, 0.9);
    ck_assert_int_eq(witness_judge(&spec, 2, &r, &w, msg, sizeof msg), V_SLOW);
    ck_assert_ptr_nonnull(strstr(msg, "by the times of the grader's timing witness (1.0000 ms"));
    ck_assert_ptr_nonnull(strstr(msg, "1.15x over stage 1"));
    /* The same record is a PASS where the witness saw that speedup. */
    w = witness_of(0.95, 1.22, 0.9);
    ck_assert_int_eq(witness_judge(&spec, 2, &r, &w, msg, sizeof msg), V_PASS);
    /* Lab 5's host witness: its window holds the waking of both processes
     * as well, so a record faster than it is no contradiction; the verdict
     * is the window's. A record slower than it still is. */
    lab_spec host = spec;
    host.host_timed = 1;
    r = rec_of(24.1, 33.0, 14.0);
    w = witness_of(30.6, 35.0, 20.0); /* 1.14x by the windows */
    ck_assert_int_eq(witness_judge(&host, 2, &r, &w, msg, sizeof msg), V_SLOW);
    ck_assert_ptr_nonnull(strstr(msg, "by the times of the grader's timing witness (30.6000 ms"));
    ck_assert_int_eq(witness_judge(&spec, 2, &r, &w, msg, sizeof msg), V_REJECTED);
    w = witness_of(24.5, 36.0, 15.0); /* 1.47x by the windows */
    ck_assert_int_eq(witness_judge(&host, 2, &r, &w, msg, sizeof msg), V_PASS);
    r = rec_of(30.0, 33.0, 14.0);
    ck_assert_int_eq(witness_judge(&host, 2, &r, &w, msg, sizeof msg), V_REJECTED);
    ck_assert_ptr_nonnull(strstr(msg, "says the stage took 30.0000 ms"));
    /* Faster than the ceiling by more than noise: IMPOSSIBLE. */
    r = rec_of(0.5, 1.6, 0.9);
    w = witness_of(0.5, 1.6, 0.9);
    ck_assert_int_eq(witness_judge(&spec, 2, &r, &w, msg, sizeof msg), V_IMPOSSIBLE);
}
END_TEST

START_TEST(calls_around_the_witness_are_rejected)
{
    char msg[VERDICT_MSG];
    test_record r = rec_of(1.0, 1.6, 0.9);
    /* A PASS written before any call (from the library's constructor). */
    witness_record none;
    memset(&none, 0, sizeof none);
    none.state = WITNESS_READY;
    none.expected_calls = 22;
    none.warmups = 2;
    test_record early = r;
    early.reps = 0;
    early.base = -1;
    early.ceiling_ms = 0;
    ck_assert_int_eq(witness_judge(&spec, 2, &early, &none, msg, sizeof msg), V_REJECTED);
    ck_assert_ptr_nonnull(strstr(msg, "only 0 of the stage's 22 timed calls"));
    /* Fewer witnessed calls than the test makes. */
    witness_record w = witness_of(1.0, 1.6, 0.9);
    w.calls[2] = 5;
    ck_assert_int_eq(witness_judge(&spec, 2, &r, &w, msg, sizeof msg), V_REJECTED);
    /* An audited call made again (checked, not timed) does not stand for a
     * timed one. */
    w.calls[2] = 21;
    w.audited = 1;
    ck_assert_int_eq(witness_judge(&spec, 2, &r, &w, msg, sizeof msg), V_REJECTED);
    ck_assert_ptr_nonnull(strstr(msg, "only 21 of the stage's 22 timed calls"));
    w.audited = 0;
    /* More: windows asked for from the test's process, slow ones of the base
     * (its median moves to 5 ms), and a record that agrees with them. */
    w = witness_of(1.0, 1.6, 0.9);
    saw(&w, 1, 5.0, 30);
    test_record padded = rec_of(1.0, witness_median(&w, 1) - 0.2885, 0.9);
    ck_assert_int_eq(witness_judge(&spec, 2, &padded, &w, msg, sizeof msg), V_REJECTED);
    ck_assert_ptr_nonnull(strstr(msg, "timed 52 calls of stage 1, and the test makes 22"));
    /* Calls of a stage the test does not call, even as many as it makes:
     * stage 2's test calls stage 2, its base 1 and the ceiling. */
    w = witness_of(1.0, 1.6, 0.9);
    saw(&w, 3, 0.1, 22);
    ck_assert_int_eq(witness_judge(&spec, 2, &r, &w, msg, sizeof msg), V_REJECTED);
    ck_assert_ptr_nonnull(strstr(msg, "timed 22 calls of stage 3, which this test does not call"));
    w = witness_of(1.0, 1.6, 0.9);
    saw(&w, 0, 0.1, 22);
    ck_assert_int_eq(witness_judge(&spec, 2, &r, &w, msg, sizeof msg), V_REJECTED);
    /* Of the ceiling, one more is enough. */
    w = witness_of(1.0, 1.6, 0.9);
    saw(&w, WITNESS_CEILING, 0.9, 1);
    ck_assert_int_eq(witness_judge(&spec, 2, &r, &w, msg, sizeof msg), V_REJECTED);
    ck_assert_ptr_nonnull(strstr(msg, "calls of the ceiling"));
    /* A base that is none of the stage's, or none at all. */
    w = witness_of(1.0, 1.6, 0.9);
    test_record other = r;
    other.base = 0;
    ck_assert_int_eq(witness_judge(&spec, 2, &other, &w, msg, sizeof msg), V_REJECTED);
    ck_assert_ptr_nonnull(strstr(msg, "against stage 0, which is not one of its bases"));
    other.base = -1;
    ck_assert_int_eq(witness_judge(&spec, 2, &other, &w, msg, sizeof msg), V_REJECTED);
    /* The ceiling's calls not witnessed. */
    w.calls[WITNESS_CEILING] = 2;
    ck_assert_int_eq(witness_judge(&spec, 2, &r, &w, msg, sizeof msg), V_REJECTED);
    /* Of two bases, the slower one named. */
    test_record d = rec_of(1.0, 2.0, 0.9);
    d.base = 2;
    witness_record w3 = witness_of(1.0, 1.3, 0.9); /* stage 1 at 1.3 ms */
    w3.calls[2] = 0;
    saw(&w3, 2, 2.0, 22); /* stage 2 at 2.0 ms */
    saw(&w3, 3, 1.0, 22); /* the stage itself */
    ck_assert_int_eq(witness_judge(&spec, 3, &d, &w3, msg, sizeof msg), V_REJECTED);
    ck_assert_ptr_nonnull(strstr(msg, "timed stage 1 faster"));
    d.base = 1;
    d.base_ms = 1.3;
    d.speedup = 1.3;
    ck_assert_int_eq(witness_judge(&spec, 3, &d, &w3, msg, sizeof msg), V_PASS);
}
END_TEST

START_TEST(wrong_outputs_and_a_broken_exchange)
{
    char msg[VERDICT_MSG];
    test_record r = rec_of(1.0, 1.6, 0.9);
    witness_record w = witness_of(1.0, 1.6, 0.9);
    w.wrong[2] = 3;
    snprintf(w.wrong_msg, sizeof w.wrong_msg, "out[0][1] (element 1) does not hold its input's value.");
    ck_assert_int_eq(witness_judge(&spec, 2, &r, &w, msg, sizeof msg), V_WRONG);
    ck_assert_ptr_nonnull(strstr(msg, "3 of the stage's 22 calls in this test"));
    ck_assert_ptr_nonnull(strstr(msg, "kept from an earlier call"));
    /* An audited call made again, which the witness checks but does not
     * time, counts among the calls checked, and not among the timed ones. */
    w.audited = 1;
    ck_assert_int_eq(witness_judge(&spec, 2, &r, &w, msg, sizeof msg), V_WRONG);
    ck_assert_ptr_nonnull(strstr(msg, "3 of the stage's 23 calls in this test"));
    /* Outputs never written, or NaN, in the stage's own call: those verdicts. */
    w.wrong_role = 2;
    w.wrong_v = V_NOT_WRITTEN;
    ck_assert_int_eq(witness_judge(&spec, 2, &r, &w, msg, sizeof msg), V_NOT_WRITTEN);
    w.wrong_v = V_NAN;
    ck_assert_int_eq(witness_judge(&spec, 2, &r, &w, msg, sizeof msg), V_NAN);
    w.wrong_role = WITNESS_CEILING; /* a finding of another call's: WRONG RESULT */
    ck_assert_int_eq(witness_judge(&spec, 2, &r, &w, msg, sizeof msg), V_WRONG);
    w.wrong_role = 0;
    w.wrong_v = 0;
    w.wrong[2] = 0;
    ck_assert_int_eq(witness_judge(&spec, 2, &r, &w, msg, sizeof msg), V_PASS);
    w.audited = 0;
    /* An input changed in a timed call (counted as wrong too): INPUT
     * MODIFIED, before any wrong output, and over TOO SLOW. */
    w.wrong[2] = 5;
    w.modified[2] = 2;
    snprintf(w.modified_msg, sizeof w.modified_msg,
             "the input d_in was changed during a timed call, first at element 7.");
    ck_assert_int_eq(witness_judge(&spec, 2, &r, &w, msg, sizeof msg), V_INPUT_MODIFIED);
    ck_assert_ptr_nonnull(strstr(msg, "changed during a timed call, first at element 7"));
    ck_assert_ptr_nonnull(strstr(msg, "in 2 of the stage's 22 calls in this test"));
    test_record slow = r;
    slow.v = V_SLOW;
    ck_assert_int_eq(witness_judge(&spec, 2, &slow, &w, msg, sizeof msg), V_INPUT_MODIFIED);
    /* Wrong outputs explain times that cannot be right: WRONG RESULT over
     * IMPOSSIBLE and TIMING ANOMALY, and no verdict of another kind moved. */
    w.modified[2] = 0;
    test_record fast = r;
    fast.v = V_IMPOSSIBLE;
    ck_assert_int_eq(witness_judge(&spec, 2, &fast, &w, msg, sizeof msg), V_WRONG);
    fast.v = V_TIMING_ANOMALY;
    ck_assert_int_eq(witness_judge(&spec, 2, &fast, &w, msg, sizeof msg), V_WRONG);
    fast.v = V_GPU_FAULT;
    ck_assert_int_eq(witness_judge(&spec, 2, &fast, &w, msg, sizeof msg), V_PASS);
    w = witness_of(1.0, 1.6, 0.9);
    w.wrong[1] = 1;
    ck_assert_int_eq(witness_judge(&spec, 2, &r, &w, msg, sizeof msg), V_SKIPPED);
    ck_assert_ptr_nonnull(strstr(msg, "Fix stage 1 first"));
    w = witness_of(1.0, 1.6, 0.9);
    w.wrong[WITNESS_CEILING] = 1;
    ck_assert_int_eq(witness_judge(&spec, 2, &r, &w, msg, sizeof msg), V_REJECTED);
    w = witness_of(1.0, 1.6, 0.9);
    w.broken = 1;
    snprintf(w.why, sizeof w.why, "a message the grader does not send (7)");
    ck_assert_int_eq(witness_judge(&spec, 2, &r, &w, msg, sizeof msg), V_REJECTED);
    ck_assert_ptr_nonnull(strstr(msg, "a message the grader does not send (7)"));
}
END_TEST

/* Lab 5 (a host witness): a record faster than the witness's windows is no
 * contradiction, so a pass keeps the witness's times. A base slowed only in
 * this test (1.6 ms against 1.0 in its own), under a forged record that
 * gives its own-test time, is then caught by the drift check. */
START_TEST(host_pass_keeps_the_witness_times)
{
    static lab_results res;
    memset(&res, 0, sizeof res);
    lab_spec host = spec;
    host.host_timed = 1;
    res.t[1][TEST_PERF] = rec_of(1.0, 0, 0.9); /* stage 1's own test, not witnessed */
    res.t[1][TEST_PERF].base = -1;
    res.t[1][TEST_PERF].speedup = 0;
    res.t[2][TEST_PERF] = rec_of(0.7, 1.0, 0.9);   /* forged: 1.43x */
    res.witness[2] = witness_of(1.0, 1.6, 0.9); /* seen: its base slowed to 1.6 ms */
    char why[200];
    ck_assert_int_eq(witness_settle(&host, &res, why, sizeof why), 0);
    test_record *r = &res.t[2][TEST_PERF];
    ck_assert_int_eq(r->v, V_PASS);
    ck_assert_double_eq_tol(r->median_ms, 1.0, 1e-3);
    ck_assert_double_eq_tol(r->base_ms, 1.6, 1e-3);
    ck_assert_double_eq_tol(r->speedup, 1.6, 1e-3);
    ck_assert_double_eq_tol(r->throughput, 1000.0, 1.0); /* a gigabyte in 1.0 ms */
    ck_assert_int_eq(decide_base_drift(&host, &res), 1);
    ck_assert_int_eq(r->v, V_SLOW);
    ck_assert_ptr_nonnull(strstr(r->msg, "took 1.6 ms here but 1 ms in its own test"));
    /* The speedup is the median of each repetition's ratio, not the ratio of
     * the medians: half the repetitions 1.0 ms against 3.0 (3x), half 2.0
     * against 2.0 (1x): 2.0x, where the medians (1.5 and 2.5 ms) give 1.67x. */
    witness_record w = witness_of(1.5, 2.5, 0.9);
    for (int i = 2; i < 22; i++) {
        w.ms[2][i] = (float)((i % 2 ? 2.0 : 1.0) + 0.2885);
        w.ms[1][i] = (float)((i % 2 ? 2.0 : 3.0) + 0.2885);
    }
    memset(&res, 0, sizeof res);
    res.t[2][TEST_PERF] = rec_of(1.5, 2.5, 0.9);
    res.witness[2] = w;
    ck_assert_int_eq(witness_settle(&host, &res, why, sizeof why), 0);
    ck_assert_int_eq(res.t[2][TEST_PERF].v, V_PASS);
    ck_assert_double_eq_tol(res.t[2][TEST_PERF].median_ms, 1.5, 1e-3);
    ck_assert_double_eq_tol(res.t[2][TEST_PERF].speedup, 2.0, 1e-3);
}
END_TEST

START_TEST(only_a_witnessed_pass_is_judged)
{
    char msg[VERDICT_MSG];
    test_record r = rec_of(1.0, 1.6, 0.9);
    witness_record w = witness_of(1.5, 1.6, 0.9);
    w.state = WITNESS_UNAVAILABLE; /* no witness: timed as before */
    ck_assert_int_eq(witness_judge(&spec, 2, &r, &w, msg, sizeof msg), V_PASS);
    w.state = WITNESS_NONE;
    ck_assert_int_eq(witness_judge(&spec, 2, &r, &w, msg, sizeof msg), V_PASS);
    w.state = WITNESS_READY; /* a failed test stays as it failed */
    r.v = V_SLOW;
    ck_assert_int_eq(witness_judge(&spec, 2, &r, &w, msg, sizeof msg), V_PASS);
    w.wrong[2] = 1; /* unless the witness saw wrong outputs: a slow stage is wrong then */
    ck_assert_int_eq(witness_judge(&spec, 2, &r, &w, msg, sizeof msg), V_WRONG);
    r.v = V_TIMEOUT;
    ck_assert_int_eq(witness_judge(&spec, 2, &r, &w, msg, sizeof msg), V_PASS);
}
END_TEST

START_TEST(settle_demotes_and_reports)
{
    static lab_results res;
    memset(&res, 0, sizeof res);
    res.t[2][TEST_PERF] = rec_of(1.0, 1.6, 0.9);
    res.witness[2] = witness_of(1.5, 1.6, 0.9);
    res.t[1][TEST_PERF] = rec_of(1.6, 2.0, 0.9);
    res.witness[1].state = WITNESS_UNAVAILABLE;
    snprintf(res.witness[1].why, sizeof res.witness[1].why, "no interprocess events");
    char why[200];
    ck_assert_int_eq(witness_settle(&spec, &res, why, sizeof why), 1);
    ck_assert_str_eq(why, "no interprocess events");
    ck_assert_int_eq(res.t[2][TEST_PERF].v, V_REJECTED);
    ck_assert_int_eq(res.t[1][TEST_PERF].v, V_PASS);
}
END_TEST

/* A correctness test's checking witness that checked sizes 0, 2 and 3 of
 * stage 2, one call each, and found them right. */
static witness_record checked_all(void)
{
    witness_record w;
    memset(&w, 0, sizeof w);
    w.state = WITNESS_READY;
    w.sizes_expected = w.sizes_checked = 0xdu;
    w.expected_calls = w.calls[2] = 3;
    return w;
}

START_TEST(a_correctness_pass_needs_every_size_checked)
{
    char msg[VERDICT_MSG];
    test_record r;
    memset(&r, 0, sizeof r);
    r.state = STATE_FINISHED;
    r.graded = 1;
    r.v = V_PASS;
    witness_record w = checked_all();
    ck_assert_int_eq(witness_judge_check(2, &r, &w, msg, sizeof msg), V_PASS);
    ck_assert_str_eq(msg, "");
    /* A record written PASS before the last size's call (or instead of it). */
    w.sizes_checked = 0x5u;
    w.calls[2] = 2;
    ck_assert_int_eq(witness_judge_check(2, &r, &w, msg, sizeof msg), V_REJECTED);
    ck_assert_ptr_nonnull(strstr(msg, "checked 2 of the test's 3 sizes"));
    /* Every size, but a call more than the test makes. */
    w = checked_all();
    w.calls[2] = 4;
    ck_assert_int_eq(witness_judge_check(2, &r, &w, msg, sizeof msg), V_REJECTED);
    /* Audited tries are counted apart and change nothing. */
    w = checked_all();
    w.audited = 2;
    ck_assert_int_eq(witness_judge_check(2, &r, &w, msg, sizeof msg), V_PASS);
    /* A wrong output at a size outweighs the record's PASS, and names the
     * witness; NOT WRITTEN and NaN keep their verdicts. */
    w.wrong[2] = 1;
    w.wrong_role = 2;
    w.wrong_v = V_WRONG;
    snprintf(w.wrong_msg, sizeof w.wrong_msg, "at 33 x 65, out[1][2] is wrong.");
    ck_assert_int_eq(witness_judge_check(2, &r, &w, msg, sizeof msg), V_WRONG);
    ck_assert_ptr_nonnull(strstr(msg, "checking witness"));
    ck_assert_ptr_nonnull(strstr(msg, "at 33 x 65, out[1][2] is wrong."));
    w.wrong_v = V_NOT_WRITTEN;
    ck_assert_int_eq(witness_judge_check(2, &r, &w, msg, sizeof msg), V_NOT_WRITTEN);
    w = checked_all();
    w.modified[2] = 1;
    w.wrong[2] = 1;
    snprintf(w.modified_msg, sizeof w.modified_msg, "the input d_in was changed");
    ck_assert_int_eq(witness_judge_check(2, &r, &w, msg, sizeof msg), V_INPUT_MODIFIED);
    ck_assert_ptr_nonnull(strstr(msg, "the input d_in was changed"));
    w = checked_all();
    w.broken = 1;
    snprintf(w.why, sizeof w.why, "a call of stage 2 at a size whose buffers were not handed over");
    ck_assert_int_eq(witness_judge_check(2, &r, &w, msg, sizeof msg), V_REJECTED);
    /* Only a finished PASS is judged; a witness that could not start leaves
     * the record as it is (the report says so). */
    w.sizes_checked = 0;
    r.v = V_WRONG;
    ck_assert_int_eq(witness_judge_check(2, &r, &w, msg, sizeof msg), V_PASS);
    r.v = V_PASS;
    w.state = WITNESS_UNAVAILABLE;
    ck_assert_int_eq(witness_judge_check(2, &r, &w, msg, sizeof msg), V_PASS);
    w.state = WITNESS_NONE;
    ck_assert_int_eq(witness_judge_check(2, &r, &w, msg, sizeof msg), V_PASS);
}
END_TEST

START_TEST(settle_takes_a_forged_correctness_pass_and_its_speed_points)
{
    static lab_results res;
    memset(&res, 0, sizeof res);
    test_record *corr = &res.t[2][TEST_CORRECT];
    corr->state = STATE_FINISHED;
    corr->graded = 1;
    corr->v = V_PASS;
    res.check_witness[2] = checked_all();
    res.check_witness[2].sizes_checked = 0x1u; /* the record forged after the first size */
    res.check_witness[2].calls[2] = 1;
    res.t[2][TEST_PERF] = rec_of(1.0, 1.6, 0.9);
    res.witness[2] = witness_of(1.0, 1.6, 0.9);
    /* Stage 1's correctness test, checked at every size, stands. */
    res.t[1][TEST_CORRECT] = *corr;
    res.check_witness[1] = checked_all();
    res.check_witness[1].calls[2] = 0;
    res.check_witness[1].calls[1] = 3;
    char why[200];
    ck_assert_int_eq(witness_settle(&spec, &res, why, sizeof why), 0);
    ck_assert_int_eq(res.t[2][TEST_CORRECT].v, V_REJECTED);
    ck_assert_int_eq(res.t[2][TEST_PERF].v, V_SKIPPED);
    ck_assert_ptr_nonnull(strstr(res.t[2][TEST_PERF].msg, "correctness test did not stand"));
    ck_assert_int_eq(res.t[1][TEST_CORRECT].v, V_PASS);
}
END_TEST

/* A speed test measured against a base whose correctness PASS did not
 * stand is not timed, as the test would have decided: stage 2 (base 1), and
 * stage 3 when its speedup is over stage 1; over stage 2 (which stands) it
 * is judged as before. */
START_TEST(settle_skips_speed_tests_over_an_overturned_base)
{
    static lab_results res;
    memset(&res, 0, sizeof res);
    test_record pass;
    memset(&pass, 0, sizeof pass);
    pass.state = STATE_FINISHED;
    pass.graded = 1;
    pass.v = V_PASS;
    for (int s = 1; s <= 3; s++) {
        res.t[s][TEST_CORRECT] = pass;
        res.check_witness[s] = checked_all();
        res.check_witness[s].calls[2] = 0;
        res.check_witness[s].calls[s] = 3;
    }
    res.check_witness[1].sizes_checked = 0x1u; /* stage 1's PASS forged */
    res.check_witness[1].calls[1] = 1;
    res.t[2][TEST_PERF] = rec_of(1.0, 1.6, 0.9);
    res.witness[2] = witness_of(1.0, 1.6, 0.9);
    res.t[3][TEST_PERF] = rec_of(1.0, 1.6, 0.9); /* over stage 1 */
    char why[200];
    witness_settle(&spec, &res, why, sizeof why);
    ck_assert_int_eq(res.t[1][TEST_CORRECT].v, V_REJECTED);
    ck_assert_int_eq(res.t[2][TEST_CORRECT].v, V_PASS);
    ck_assert_int_eq(res.t[2][TEST_PERF].v, V_SKIPPED);
    ck_assert_ptr_nonnull(strstr(res.t[2][TEST_PERF].msg,
                                 "measured against stage 1 (b), whose correctness test did not "
                                 "stand (REJECTED). Fix stage 1 first."));
    ck_assert_int_eq(res.t[3][TEST_PERF].v, V_SKIPPED);
    /* Stage 3 over stage 2, which stands: its record is judged as before
     * (no witness here: it stands). */
    memset(&res.t[3][TEST_PERF], 0, sizeof res.t[3][TEST_PERF]);
    res.t[3][TEST_PERF] = rec_of(1.0, 1.6, 0.9);
    res.t[3][TEST_PERF].base = 2;
    res.t[1][TEST_CORRECT] = pass;
    res.t[2][TEST_PERF] = rec_of(1.0, 1.6, 0.9);
    witness_settle(&spec, &res, why, sizeof why);
    ck_assert_int_eq(res.t[3][TEST_PERF].v, V_PASS);
    ck_assert_int_eq(res.t[2][TEST_PERF].v, V_SKIPPED);
    /* A speed test REJECTED for what it tried itself (a refused call, a
     * forged verdict) keeps that verdict under both rules: over a base
     * that did not stand, and after its own correctness test. */
    res.t[1][TEST_CORRECT] = pass;
    res.check_witness[1].sizes_checked = 0x1u;
    res.t[2][TEST_PERF] = rec_of(1.0, 1.6, 0.9);
    res.t[2][TEST_PERF].v = V_REJECTED;
    snprintf(res.t[2][TEST_PERF].msg, sizeof res.t[2][TEST_PERF].msg, "it tried to fork");
    res.t[1][TEST_PERF] = rec_of(1.0, 1.6, 0.9);
    res.t[1][TEST_PERF].v = V_REJECTED;
    witness_settle(&spec, &res, why, sizeof why);
    ck_assert_int_eq(res.t[1][TEST_CORRECT].v, V_REJECTED);
    ck_assert_int_eq(res.t[1][TEST_PERF].v, V_REJECTED);
    ck_assert_int_eq(res.t[2][TEST_PERF].v, V_REJECTED);
    ck_assert_str_eq(res.t[2][TEST_PERF].msg, "it tried to fork");
}
END_TEST

START_TEST(median_of_the_windows)
{
    witness_record w;
    memset(&w, 0, sizeof w);
    ck_assert_double_eq(witness_median(&w, 3), 0);
    const float v[] = {3, 1, 2, 10};
    for (int i = 0; i < 4; i++)
        w.ms[3][i] = v[i];
    w.calls[3] = 3;
    ck_assert_double_eq_tol(witness_median(&w, 3), 2, 1e-9);
    w.calls[3] = 4;
    ck_assert_double_eq_tol(witness_median(&w, 3), 2.5, 1e-9);
    w.warmups = 2; /* the first two left out: 2 and 10 */
    ck_assert_double_eq_tol(witness_median(&w, 3), 6, 1e-9);
    w.warmups = 0;
    w.calls[3] = 1000; /* more calls than samples kept: the samples kept */
    for (int i = 4; i < WITNESS_SAMPLES; i++)
        w.ms[3][i] = 5;
    ck_assert_double_eq_tol(witness_median(&w, 3), 5, 1e-9);
}
END_TEST

Suite *make_witness_suite(void)
{
    Suite *s = suite_create("witness");
    TCase *tc = tcase_create("judge");
    tcase_add_test(tc, honest_records_stand);
    tcase_add_test(tc, times_the_witness_did_not_see_are_rejected);
    tcase_add_test(tc, the_verdict_is_decided_again);
    tcase_add_test(tc, calls_around_the_witness_are_rejected);
    tcase_add_test(tc, wrong_outputs_and_a_broken_exchange);
    tcase_add_test(tc, host_pass_keeps_the_witness_times);
    tcase_add_test(tc, only_a_witnessed_pass_is_judged);
    tcase_add_test(tc, settle_demotes_and_reports);
    tcase_add_test(tc, a_correctness_pass_needs_every_size_checked);
    tcase_add_test(tc, settle_takes_a_forged_correctness_pass_and_its_speed_points);
    tcase_add_test(tc, settle_skips_speed_tests_over_an_overturned_base);
    tcase_add_test(tc, median_of_the_windows);
    suite_add_tcase(s, tc);
    return s;
}
