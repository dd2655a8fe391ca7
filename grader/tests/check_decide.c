/* check_decide.c: the grader's verdicts (grader/decide.h), each branch, on
 * made-up measurements and records: no GPU, no child. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../decide.h"
#include "tests.h"

/* A lab of four stages: 0 a yardstick, 1 held to 1.5x over stage 0, 2 held
 * to 1.2x over stage 1 and 60% of its own ceiling, 3 held to 80% of the
 * lab's ceiling alone. */
static const lab_stage stages[] = {
    {.title = "copy", .symbol = "s0", .points_correct = 5, .given = 1},
    {.title = "tiled", .symbol = "s1", .points_correct = 5, .points_speed = 5,
     .min_speedup = 1.5, LAB_BASES(0)},
    {.title = "padded", .symbol = "s2", .points_correct = 5, .points_speed = 5,
     .min_speedup = 1.2, LAB_BASES(1), .min_ceiling = 0.6, .ceiling = "CUB"},
    {.title = "vector", .symbol = "s3", .points_correct = 5, .points_speed = 5,
     .min_ceiling = 0.8, .min_cc = 90},
};
static lab_spec spec = {
    .number = 9, .name = "made-up", .n_stages = 4, .stages = stages, .unit = "GB/s",
    .ceiling_name = "cudaMemcpy D2D",
};

/* A believable measurement: 2 ms by events and by the clock, 500 GB/s
 * against a ceiling of 1000 GB/s. */
static test_record measured(double speedup, double pct_ceiling, int base)
{
    test_record r;
    memset(&r, 0, sizeof r);
    r.median_ms = 2.0;
    r.wall_ms = 2.0;
    r.throughput = 500;
    r.ceiling_throughput = 1000;
    r.speedup = speedup;
    r.pct_ceiling = pct_ceiling;
    r.base = base;
    return r;
}

START_TEST(perf_waits_for_a_correct_stage)
{
    test_record corr;
    memset(&corr, 0, sizeof corr);
    char msg[VERDICT_MSG];
    corr.state = STATE_RUNNING;
    ck_assert_int_eq(decide_perf_start(&corr, 2, msg, sizeof msg), V_SKIPPED);
    ck_assert_str_eq(msg, "not timed: the correctness test of stage 2 did not finish");
    corr.state = STATE_FINISHED;
    corr.v = V_WRONG;
    ck_assert_int_eq(decide_perf_start(&corr, 2, msg, sizeof msg), V_SKIPPED);
    ck_assert_str_eq(msg, "not timed: stage 2 is not correct yet (WRONG RESULT)");
    corr.v = V_PASS;
    ck_assert_int_eq(decide_perf_start(&corr, 2, msg, sizeof msg), V_PASS);
}
END_TEST

START_TEST(timing_anomaly_bound)
{
    char msg[VERDICT_MSG];
    test_record r = measured(2, 50, 0);
    ck_assert_double_eq(decide_anomaly_bound(2.0), 4.0);
    r.wall_ms = 4.0; /* at the bound: believed */
    ck_assert_int_eq(decide_timing(&spec, 1, &r, 0, msg, sizeof msg), V_PASS);
    r.wall_ms = 4.001;
    ck_assert_int_eq(decide_timing(&spec, 1, &r, 0, msg, sizeof msg), V_TIMING_ANOMALY);
    ck_assert_ptr_nonnull(strstr(msg, "4.001 ms by the clock but only 2.000 ms by CUDA events"));
    ck_assert_ptr_nonnull(strstr(msg, "Launch every kernel on the stream you are given."));
}
END_TEST

START_TEST(impossible_above_the_ceiling)
{
    char msg[VERDICT_MSG];
    test_record r = measured(2, 50, 0);
    r.throughput = 1100; /* at 1.10 x the ceiling: noise, believed */
    ck_assert_int_eq(decide_timing(&spec, 1, &r, 0, msg, sizeof msg), V_PASS);
    r.throughput = 1101;
    ck_assert_int_eq(decide_timing(&spec, 2, &r, 0, msg, sizeof msg), V_IMPOSSIBLE);
    ck_assert_str_eq(msg, "1101 GB/s is more than the CUB ceiling measured in the same run "
                          "(1000 GB/s): the stage cannot be doing all of its work");
    /* A lab that allows more than noise names its factor. */
    lab_spec loose = spec;
    loose.impossible_over = 2.5;
    ck_assert_int_eq(decide_timing(&loose, 1, &r, 0, msg, sizeof msg), V_PASS);
    r.throughput = 2600;
    ck_assert_int_eq(decide_timing(&loose, 1, &r, 0, msg, sizeof msg), V_IMPOSSIBLE);
    ck_assert_ptr_nonnull(strstr(msg, "more than 2.5 times the cudaMemcpy D2D ceiling"));
    /* Cut to part of the GPU (--sms), the libraries' ceilings are no bound:
     * IMPOSSIBLE from twice the ceiling, or the lab's own factor if larger. */
    r.throughput = 1390; /* lab 3 stage 6 at 16 of the H200's SMs: 1.39 x CUB */
    ck_assert_int_eq(decide_timing(&spec, 1, &r, 0, msg, sizeof msg), V_IMPOSSIBLE);
    ck_assert_int_eq(decide_timing(&spec, 1, &r, 1, msg, sizeof msg), V_PASS);
    r.throughput = 2001;
    ck_assert_int_eq(decide_timing(&spec, 1, &r, 1, msg, sizeof msg), V_IMPOSSIBLE);
    ck_assert_ptr_nonnull(strstr(msg, "more than 2.0 times the"));
    ck_assert_double_eq(decide_impossible_over(&spec, 1), DECIDE_CUT_IMPOSSIBLE_OVER);
    ck_assert_double_eq(decide_impossible_over(&loose, 1), 2.5);
    ck_assert_double_eq(decide_impossible_over(&loose, 0), 2.5);
    ck_assert_int_eq(decide_timing(&loose, 1, &r, 1, msg, sizeof msg), V_PASS);
    r.throughput = 2600;
    /* The clock is looked at first. */
    r.wall_ms = 10;
    ck_assert_int_eq(decide_timing(&loose, 1, &r, 0, msg, sizeof msg), V_TIMING_ANOMALY);
}
END_TEST

START_TEST(speed_over_a_base)
{
    char msg[VERDICT_MSG];
    test_record r = measured(1.49, 50, 0);
    ck_assert_int_eq(decide_speed(&spec, 1, &r, msg, sizeof msg), V_SLOW);
    ck_assert_str_eq(msg, "1.49x over stage 0 (copy); this stage needs 1.50x. It runs at 500 "
                          "GB/s, 50% of cudaMemcpy D2D.");
    r.speedup = 1.5;
    ck_assert_int_eq(decide_speed(&spec, 1, &r, msg, sizeof msg), V_PASS);
    ck_assert_str_eq(msg, "1.50x over stage 0 (needs 1.50x)");
}
END_TEST

/* A speed test whose base ran far slower there than in the base's own test
 * is decided again on the base's own time; within DECIDE_BASE_DRIFT, or
 * with no own time to compare with, it stands. */
static lab_results drift;

static void drift_case(double own_ms, int own_timed, double base_ms, double median_ms)
{
    memset(&drift, 0, sizeof drift);
    test_record *own = &drift.t[0][TEST_CORRECT];
    own->state = STATE_FINISHED;
    own->v = V_PASS;
    own->timed = own_timed;
    own->median_ms = own_ms;
    test_record *r = &drift.t[1][TEST_PERF];
    *r = measured(base_ms / median_ms, 50, 0);
    r->state = STATE_FINISHED;
    r->v = V_PASS;
    r->timed = 1;
    r->base_ms = base_ms;
    r->median_ms = median_ms;
    snprintf(r->msg, sizeof r->msg, "as measured");
}

START_TEST(base_slower_only_as_a_base)
{
    test_record *r = &drift.t[1][TEST_PERF];
    drift_case(4.0, 1, 10.0, 3.0); /* 3.33x paired; 1.33x against the base's own 4 ms */
    ck_assert_int_eq(decide_base_drift(&spec, &drift), 1);
    ck_assert_int_eq(r->v, V_SLOW);
    ck_assert_double_eq_tol(r->speedup, 4.0 / 3.0, 1e-9);
    ck_assert_str_eq(r->msg,
                     "stage 0 (copy), this test's base, took 10 ms here but 4 ms in its own test "
                     "(2.50x as long), so the speedup measured here cannot be believed. Against "
                     "its own test's time this stage is 1.33x over it, and needs 1.50x. A stage "
                     "that runs slower only when a later stage is compared with it gains nothing; "
                     "if another program was using the GPU, grade again.");
    drift_case(4.0, 1, 6.0, 2.0); /* 1.5x drift, but 2.00x against the base's own time too */
    ck_assert_int_eq(decide_base_drift(&spec, &drift), 0);
    ck_assert_int_eq(r->v, V_PASS);
    ck_assert_str_eq(r->msg, "as measured");
    drift_case(4.0, 1, 4.0 * DECIDE_BASE_DRIFT_RAW, 3.0); /* noise up to the bound */
    ck_assert_int_eq(decide_base_drift(&spec, &drift), 0);
    ck_assert_int_eq(r->v, V_PASS);
    /* Both tests timed the ceiling: each time is taken against it, and the
     * tighter bound holds. A GPU 20% slower in this test moves both. */
    drift_case(4.0, 1, 4.8, 3.0);
    drift.t[0][TEST_CORRECT].ceiling_ms = 1.0;
    r->ceiling_ms = 1.2;
    ck_assert_int_eq(decide_base_drift(&spec, &drift), 0);
    ck_assert_int_eq(r->v, V_PASS);
    drift_case(4.0, 1, 4.0 * 1.2 * (DECIDE_BASE_DRIFT + 0.01), 3.6); /* past it: 1.45x, 1.33x */
    drift.t[0][TEST_CORRECT].ceiling_ms = 1.0;
    r->ceiling_ms = 1.2;
    ck_assert_int_eq(decide_base_drift(&spec, &drift), 1);
    ck_assert_int_eq(r->v, V_SLOW);
    ck_assert_double_eq_tol(r->speedup, 4.8 / 3.6, 1e-9);
    ck_assert_msg(strstr(r->msg, "(1.11x as long, each against the ceiling timed beside it)") &&
                      strstr(r->msg, "this stage is 1.33x over it, and needs 1.50x"),
                  "%s", r->msg);
    drift_case(4.0, 1, 10.0, 3.0); /* a base whose own speed test failed keeps its time */
    drift.t[0][TEST_PERF] = drift.t[0][TEST_CORRECT];
    drift.t[0][TEST_PERF].v = V_WRONG;
    ck_assert_int_eq(decide_base_drift(&spec, &drift), 1);
    ck_assert_int_eq(r->v, V_SLOW);
    drift_case(4.0, 0, 10.0, 3.0); /* the base has no time of its own */
    ck_assert_int_eq(decide_base_drift(&spec, &drift), 0);
    ck_assert_int_eq(r->v, V_PASS);
    drift_case(4.0, 1, 10.0, 3.0);
    drift.t[0][TEST_PERF] = drift.t[0][TEST_CORRECT]; /* its speed test's time comes first */
    drift.t[0][TEST_PERF].median_ms = 9.0;
    ck_assert_int_eq(decide_base_drift(&spec, &drift), 0);
    ck_assert_int_eq(r->v, V_PASS);
    drift_case(4.0, 1, 10.0, 3.0); /* only a pass is decided again */
    r->v = V_SLOW;
    ck_assert_int_eq(decide_base_drift(&spec, &drift), 0);
    ck_assert_str_eq(r->msg, "as measured");
}
END_TEST

START_TEST(speed_over_a_base_and_a_share_of_the_ceiling)
{
    char msg[VERDICT_MSG];
    test_record r = measured(1.1, 70, 1);
    ck_assert_int_eq(decide_speed(&spec, 2, &r, msg, sizeof msg), V_SLOW); /* the speedup first */
    ck_assert_ptr_nonnull(strstr(msg, "1.10x over stage 1 (tiled); this stage needs 1.20x"));
    ck_assert_ptr_nonnull(strstr(msg, "70% of CUB."));
    r.speedup = 1.3;
    r.pct_ceiling = 59;
    ck_assert_int_eq(decide_speed(&spec, 2, &r, msg, sizeof msg), V_SLOW);
    ck_assert_str_eq(msg, "59% of CUB (500 GB/s); this stage needs 60% as well as 1.20x over "
                          "stage 1 (it has 1.30x)");
    r.pct_ceiling = 60;
    ck_assert_int_eq(decide_speed(&spec, 2, &r, msg, sizeof msg), V_PASS);
    ck_assert_str_eq(msg, "1.30x over stage 1 (needs 1.20x) and 60% of CUB (needs 60%)");
}
END_TEST

START_TEST(speed_against_the_ceiling_alone)
{
    char msg[VERDICT_MSG];
    test_record r = measured(0, 79, -1);
    ck_assert_int_eq(decide_speed(&spec, 3, &r, msg, sizeof msg), V_SLOW);
    ck_assert_str_eq(msg, "79% of cudaMemcpy D2D (500 GB/s); this stage needs 80%");
    r.pct_ceiling = 80;
    ck_assert_int_eq(decide_speed(&spec, 3, &r, msg, sizeof msg), V_PASS);
    ck_assert_str_eq(msg, "80% of cudaMemcpy D2D (needs 80%)");
}
END_TEST

static test_record running(int phase)
{
    test_record t;
    memset(&t, 0, sizeof t);
    t.state = STATE_RUNNING;
    t.phase = phase;
    return t;
}

/* A stage whose base runs on one SM (lab 2 stage 1): its threshold follows
 * the SM count up to the table's, and on too few SMs it is not graded. */
START_TEST(speedup_that_follows_the_sm_count)
{
    const lab_stage one_block = {.min_speedup = 3.0, .min_speedup_per_sm = 0.07};
    ck_assert_double_eq_tol(decide_min_speedup(&one_block, 132), 3.0, 1e-12);
    ck_assert_double_eq_tol(decide_min_speedup(&one_block, 43), 3.0, 1e-12);
    ck_assert_double_eq_tol(decide_min_speedup(&one_block, 42), 2.94, 1e-9);
    ck_assert_double_eq_tol(decide_min_speedup(&one_block, 40), 2.8, 1e-9);
    ck_assert_double_eq_tol(decide_min_speedup(&one_block, 16), 1.12, 1e-9);
    /* 15 x 0.07 = 1.05: below the floor, where a copy of the base could pass. */
    ck_assert_double_eq(decide_min_speedup(&one_block, 15), 0);
    ck_assert_double_eq(decide_min_speedup(&one_block, 1), 0);
    ck_assert_int_eq(decide_min_sms(&one_block), 16);
    /* The whole 3.0x from 43 SMs up (42 x 0.07 = 2.94), as the header says. */
    ck_assert_int_eq(decide_full_sms(&one_block), 43);
    /* Any other stage: its threshold on any count; an unknown count changes nothing. */
    ck_assert_double_eq_tol(decide_min_speedup(&stages[1], 4), 1.5, 1e-12);
    ck_assert_int_eq(decide_min_sms(&stages[1]), 1);
    ck_assert_int_eq(decide_full_sms(&stages[1]), 1);
    ck_assert_double_eq_tol(decide_min_speedup(&one_block, 0), 3.0, 1e-12);
}
END_TEST

START_TEST(after_check_keeps_checks_word)
{
    test_record t = running(PHASE_RUN);
    t.state = STATE_FINISHED;
    t.v = V_PASS;
    decide_after_check(&t, CK_PASS, "Passed", 10, "");
    ck_assert_int_eq(t.v, V_PASS);
    ck_assert_int_eq(t.graded, 1);
    ck_assert_int_eq(t.check_result, CK_PASS);
    /* A record the grader finished as failed that Check saw pass: the child
     * ended itself with the pass code after the verdict was written. */
    t.v = V_WRONG;
    decide_after_check(&t, CK_PASS, "Passed", 10, "");
    ck_assert_int_eq(t.v, V_EARLY_EXIT);
    /* A failure Check saw that the grader did not finish: Check's own text. */
    test_record u = running(PHASE_SETUP);
    decide_after_check(&u, CK_ERROR, "something else", 10, "");
    ck_assert_int_eq(u.v, V_CRASH);
    ck_assert_str_eq(u.msg, "the test stopped while setting up the data: something else");
    ck_assert_int_eq(u.check_result, CK_ERROR);
    test_record w = running(PHASE_LOAD);
    decide_after_check(&w, CK_ERROR, NULL, 10, NULL);
    ck_assert_str_eq(w.msg, "the test stopped while loading the lab library: ");
}
END_TEST

/* A finished record holding a verdict that only the parent gives was
 * written by the stage's code, not by the grader: REJECTED, whatever Check
 * saw. NOT AVAILABLE would take the test's points out of the total. */
START_TEST(after_check_rejects_a_verdict_only_the_parent_gives)
{
    static const int forged[] = {V_NOT_AVAILABLE, V_TIMEOUT,    V_CRASH,  V_EARLY_EXIT,
                                 V_SANITIZER,     V_NO_TECHNIQUE, V_NOT_RUN, V_COUNT,
                                 -3};
    for (size_t i = 0; i < sizeof forged / sizeof *forged; i++)
        for (int ck = 0; ck < 3; ck++) {
            const int rtype[] = {CK_PASS, CK_FAILURE, CK_ERROR};
            test_record t = running(PHASE_RUN);
            t.state = STATE_FINISHED;
            t.v = (verdict)forged[i];
            snprintf(t.msg, sizeof t.msg, "needs compute capability 9.9: no points lost");
            decide_after_check(&t, rtype[ck], "Early exit with return value 1", 10, "");
            ck_assert_int_eq(t.v, V_REJECTED);
            ck_assert_int_eq(t.graded, 1);
            ck_assert_ptr_nonnull(strstr(t.msg, "only the grader's parent"));
        }
    test_record t = running(PHASE_RUN);
    t.state = STATE_FINISHED;
    t.v = V_NOT_AVAILABLE;
    decide_after_check(&t, CK_FAILURE, "", 10, "");
    ck_assert_ptr_nonnull(strstr(t.msg, "saying NOT AVAILABLE"));
    /* What the child does write stands: a failing verdict of its own. */
    static const int own[] = {V_WRONG, V_SETUP_ERROR, V_SKIPPED, V_REJECTED, V_SLOW, V_TODO};
    for (size_t i = 0; i < sizeof own / sizeof *own; i++) {
        test_record u = running(PHASE_RUN);
        u.state = STATE_FINISHED;
        u.v = (verdict)own[i];
        decide_after_check(&u, CK_FAILURE, "", 10, "");
        ck_assert_int_eq(u.v, own[i]);
    }
    /* The parent's own NOT AVAILABLE (a stage this GPU cannot grade) never
     * passes through here: its test is not run. */
}
END_TEST

/* A record read back before the parent reads it: texts ended inside their
 * arrays; a size, base, phase or state out of what the grader writes is
 * REJECTED with those fields reset (the parent indexes the lab's tables with
 * them); an honest record is left as it is. */
START_TEST(read_back_makes_a_record_safe)
{
    test_record t = running(PHASE_RUN);
    t.state = STATE_FINISHED;
    t.v = V_WRONG;
    t.size = 3;
    t.base = 2;
    memset(t.msg, 'A', sizeof t.msg);
    memset(t.kernels, 'k', sizeof t.kernels);
    memset(t.missing_technique, 'm', sizeof t.missing_technique);
    decide_read_back(&t, 4, 3, 1);
    ck_assert_int_eq(t.v, V_WRONG);
    ck_assert_int_eq(t.size, 3);
    ck_assert_int_eq(t.base, 2);
    ck_assert_uint_eq(strlen(t.msg), sizeof t.msg - 1);
    ck_assert_uint_eq(strlen(t.kernels), sizeof t.kernels - 1);
    ck_assert_uint_eq(strlen(t.missing_technique), sizeof t.missing_technique - 1);
    const struct {
        int size, base, phase, state;
        const char *what;
    } bad[] = {
        {4, -1, PHASE_RUN, STATE_FINISHED, "a size"},
        {0x20000000, -1, PHASE_RUN, STATE_FINISHED, "a size"},
        {-2, -1, PHASE_RUN, STATE_FINISHED, "a size"},
        {0, 3, PHASE_RUN, STATE_FINISHED, "a base stage"},
        {0, -7, PHASE_RUN, STATE_FINISHED, "a base stage"},
        {0, -1, PHASE_TIMING + 1, STATE_FINISHED, "a phase"},
        {0, -1, PHASE_RUN, STATE_FINISHED + 1, "a state"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        test_record u = running(PHASE_RUN);
        u.state = bad[i].state;
        u.v = V_PASS;
        u.size = bad[i].size;
        u.base = bad[i].base;
        u.phase = bad[i].phase;
        u.timed = 1;
        decide_read_back(&u, 4, 3, 1);
        ck_assert_int_eq(u.v, V_REJECTED);
        ck_assert_int_eq(u.state, STATE_FINISHED);
        ck_assert_int_eq(u.size, -1);
        ck_assert_int_eq(u.base, -1);
        ck_assert_int_eq(u.timed, 0);
        ck_assert_msg(strstr(u.msg, bad[i].what) != NULL, "%zu: %s", i, u.msg);
        /* and it stays so, whatever Check saw */
        decide_after_check(&u, CK_PASS, "Passed", 10, "");
        ck_assert_int_eq(u.v, V_REJECTED);
    }
}
END_TEST

/* Times in a record that may have none (the correctness test of a stage
 * with speed points) are not the grader's: dropped. */
START_TEST(read_back_drops_times_a_test_does_not_take)
{
    test_record t = running(PHASE_RUN);
    t.state = STATE_FINISHED;
    t.v = V_WRONG;
    t.timed = 1;
    t.throughput = 2261635;
    decide_read_back(&t, 4, 3, 1);
    ck_assert_int_eq(t.timed, 1);
    decide_read_back(&t, 4, 3, 0);
    ck_assert_int_eq(t.timed, 0);
    ck_assert_int_eq(t.v, V_WRONG);
}
END_TEST

START_TEST(not_available_names_both_capabilities)
{
    test_record t;
    memset(&t, 0, sizeof t);
    devinfo dev;
    memset(&dev, 0, sizeof dev);
    snprintf(dev.name, sizeof dev.name, "Tesla T4");
    dev.cc_major = 7;
    dev.cc_minor = 5;
    decide_not_available(&t, &spec, 3, &dev);
    ck_assert_int_eq(t.v, V_NOT_AVAILABLE);
    ck_assert_int_eq(t.state, STATE_FINISHED);
    ck_assert_int_eq(t.graded, 1);
    ck_assert_str_eq(t.msg, "needs compute capability 9.0 (this GPU, Tesla T4, has 7.5): not "
                            "graded, no points lost");
}
END_TEST

/* A stage built for one architecture alone (lab 7: sm_90a) is not graded on
 * a newer GPU either, and says why. */
START_TEST(not_available_above_max_cc)
{
    static const lab_stage only90[] = {
        {.title = "wgmma", .symbol = "w", .points_correct = 5, .min_cc = 90, .max_cc = 90},
    };
    lab_spec one = spec;
    one.stages = only90;
    one.n_stages = 1;
    ck_assert(lab_stage_available(&only90[0], 9, 0));
    ck_assert(!lab_stage_available(&only90[0], 8, 9));
    ck_assert(!lab_stage_available(&only90[0], 10, 0));
    ck_assert(!lab_stage_available(&only90[0], 12, 0));
    test_record t;
    memset(&t, 0, sizeof t);
    devinfo dev;
    memset(&dev, 0, sizeof dev);
    snprintf(dev.name, sizeof dev.name, "NVIDIA B200");
    dev.cc_major = 10;
    dev.cc_minor = 0;
    decide_not_available(&t, &one, 0, &dev);
    ck_assert_int_eq(t.v, V_NOT_AVAILABLE);
    ck_assert_str_eq(t.msg, "needs compute capability 9.0, for which alone its code is built "
                            "(this GPU, NVIDIA B200, has 10.0): not graded, no points lost");
}
END_TEST

START_TEST(only_a_pass_is_demoted)
{
    test_record t;
    memset(&t, 0, sizeof t);
    t.v = V_SLOW;
    ck_assert_int_eq(decide_sanitizer_finding(&t, 2, 4), 0);
    ck_assert_int_eq(decide_no_technique(&t, 2, "warp shuffles"), 0);
    ck_assert_int_eq(t.v, V_SLOW);
    t.v = V_PASS;
    ck_assert_int_eq(decide_sanitizer_finding(&t, 2, 4), 1);
    ck_assert_int_eq(t.v, V_SANITIZER);
    ck_assert_ptr_nonnull(strstr(t.msg, "./grade lab2 --sanitize --stage 4 shows it again"));
    t.v = V_PASS;
    ck_assert_int_eq(decide_no_technique(&t, 3, "warp shuffles (SHFL)"), 1);
    ck_assert_int_eq(t.v, V_NO_TECHNIQUE);
    ck_assert_str_eq(t.msg, "correct, but its kernels have no warp shuffles (SHFL), and this "
                            "course requires the technique of this stage (cuobjdump -sass "
                            "build/lab3.so shows their code)");
}
END_TEST

START_TEST(inner_pass) { ck_assert(1); }
END_TEST
START_TEST(inner_fail) { ck_abort_msg("no"); }
END_TEST
START_TEST(inner_error) { abort(); }
END_TEST

START_TEST(summary_is_checks_line_from_the_records)
{
    /* Check's own counts of 3 passes, 2 failures and 1 error, and the same
     * tests as records: the same line. */
    Suite *s = suite_create("inner");
    TCase *tc = tcase_create("inner");
    tcase_add_loop_test(tc, inner_pass, 0, 3);
    tcase_add_loop_test(tc, inner_fail, 0, 2);
    tcase_add_test(tc, inner_error);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_set_fork_status(sr, CK_FORK);
    srunner_run(sr, "inner", "inner", CK_SILENT); /* whatever CK_RUN_SUITE says */
    char theirs[128], ours[128];
    check_summary_text(sr, theirs, sizeof theirs);
    theirs[strcspn(theirs, "\n")] = '\0';
    srunner_free(sr);

    static lab_results res[2];
    memset(res, 0, sizeof res);
    const int types[] = {CK_PASS, CK_PASS, CK_FAILURE, CK_FAILURE, CK_PASS, CK_ERROR};
    for (int i = 0; i < 6; i++) {
        test_record *t = &res[i / 3].t[i % 3][i % 2];
        t->check_result = types[i];
        t->v = types[i] == CK_PASS ? V_PASS : V_WRONG;
    }
    res[1].t[5][0].v = V_NOT_AVAILABLE; /* no Check test: not counted */
    decide_tally tally;
    decide_summary(res, 2, &tally);
    decide_summary_line(&tally, ours, sizeof ours);
    ck_assert_str_eq(ours, theirs);
    ck_assert_str_eq(ours, "50%: Checks: 6, Failures: 2, Errors: 1");

    /* A pass demoted after Check's run is a failure in the line too. */
    decide_sanitizer_finding(&res[0].t[0][0], 9, 0);
    decide_summary(res, 2, &tally);
    decide_summary_line(&tally, ours, sizeof ours);
    ck_assert_str_eq(ours, "33%: Checks: 6, Failures: 3, Errors: 1");
}
END_TEST

START_TEST(summary_of_all_passed_and_of_nothing)
{
    char line[128];
    decide_tally t = {4, 0, 0};
    decide_summary_line(&t, line, sizeof line);
    ck_assert_str_eq(line, "100%: Checks: 4, Failures: 0, Errors: 0");
    t = (decide_tally){0, 0, 0};
    decide_summary_line(&t, line, sizeof line);
    ck_assert_str_eq(line, "100%: Checks: 0, Failures: 0, Errors: 0");
    t = (decide_tally){0, 1, 0}; /* cannot happen; Check's rule all the same */
    decide_summary_line(&t, line, sizeof line);
    ck_assert_str_eq(line, "0%: Checks: 0, Failures: 1, Errors: 0");
}
END_TEST

Suite *make_decide_suite(void)
{
    Suite *s = suite_create("decide");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, perf_waits_for_a_correct_stage);
    tcase_add_test(tc, timing_anomaly_bound);
    tcase_add_test(tc, impossible_above_the_ceiling);
    tcase_add_test(tc, speed_over_a_base);
    tcase_add_test(tc, speed_over_a_base_and_a_share_of_the_ceiling);
    tcase_add_test(tc, speed_against_the_ceiling_alone);
    tcase_add_test(tc, speedup_that_follows_the_sm_count);
    tcase_add_test(tc, after_check_keeps_checks_word);
    tcase_add_test(tc, after_check_rejects_a_verdict_only_the_parent_gives);
    tcase_add_test(tc, read_back_makes_a_record_safe);
    tcase_add_test(tc, read_back_drops_times_a_test_does_not_take);
    tcase_add_test(tc, not_available_names_both_capabilities);
    tcase_add_test(tc, not_available_above_max_cc);
    tcase_add_test(tc, only_a_pass_is_demoted);
    tcase_add_test(tc, base_slower_only_as_a_base);
    tcase_add_test(tc, summary_is_checks_line_from_the_records);
    tcase_add_test(tc, summary_of_all_passed_and_of_nothing);
    suite_add_tcase(s, tc);
    return s;
}
