#define _GNU_SOURCE
#include <string.h>

#include "../report.h"
#include "tests.h"

extern const lab_spec lab_transpose;

static lab_results res;

static void fill(void) { fixture_results(&res); }

static char buf[16384];

static FILE *open_buf(void)
{
    memset(buf, 0, sizeof buf);
    return fmemopen(buf, sizeof buf - 1, "w");
}

START_TEST(score_counts_only_passes)
{
    fill();
    int got, max;
    report_score(&lab_transpose, &res, &got, &max);
    /* correct: s0 0 + s1 10 + s3 10 + s4 10 + s5 0 of 10; speed: s3 10, s4 0 of 10, s5 0 of 10 */
    ck_assert_int_eq(got, 40);
    ck_assert_int_eq(max, 70);
    ck_assert_int_eq(report_failed_tests(&lab_transpose, &res), 3);
}
END_TEST

START_TEST(replay_command)
{
    char b[256];
    report_replay(b, sizeof b, &lab_transpose, 3, 0xabcULL, 0, NULL);
    ck_assert_str_eq(b, "./grade lab1 --stage 3 --seed 0xabc");
    report_replay(b, sizeof b, &lab_transpose, 3, 0xabcULL, 1, NULL);
    ck_assert_str_eq(b, "./grade lab1 --stage 3 --seed 0xabc --solutions");
    report_replay(b, sizeof b, &lab_transpose, 0, 1, 0, "/x/y.so");
    ck_assert_str_eq(b, "./grade lab1 --stage 0 --seed 0x1 --lib /x/y.so");
}
END_TEST

START_TEST(table_rows)
{
    fill();
    FILE *f = open_buf();
    report_table(f, &lab_transpose, &res);
    fclose(f);
    ck_assert_ptr_nonnull(strstr(buf, "shared-memory tile"));
    ck_assert_ptr_nonnull(strstr(buf, "2.50x over 2"));
    ck_assert_ptr_nonnull(strstr(buf, "20/20"));
    ck_assert_ptr_nonnull(strstr(buf, "10/20")); /* stage 4: correct, too slow */
    ck_assert_ptr_nonnull(strstr(buf, "WRONG RESULT"));
    ck_assert_ptr_nonnull(strstr(buf, "3900"));
    ck_assert_ptr_nonnull(strstr(buf, "ceiling: cudaMemcpy D2D at 4216 GB/s"));
    ck_assert_ptr_null(strstr(buf, "naive, writes")); /* stage 2 was not graded */
}
END_TEST

START_TEST(failures_carry_replay)
{
    fill();
    FILE *f = open_buf();
    report_failures(f, &lab_transpose, &res, 0x99, 0, NULL);
    fclose(f);
    ck_assert_ptr_nonnull(strstr(buf, "stage 5 (4x4 per thread, float4 access), correctness: WRONG RESULT"));
    ck_assert_ptr_nonnull(strstr(buf, "12 of 2145"));
    ck_assert_ptr_nonnull(strstr(buf, "replay: ./grade lab1 --stage 5 --seed 0x99"));
    ck_assert_ptr_nonnull(strstr(buf, "stage 4 (padded tile (no bank conflicts)), speed: TOO SLOW"));
    ck_assert_ptr_nonnull(strstr(buf, "hint: Padding removes the conflict only where a warp reads a column"));
    ck_assert_ptr_null(strstr(buf, "stage 3 ("));
}
END_TEST

/* A fresh skeleton: the first unwritten stage in full, the rest on one line,
 * no redundant "speed skipped" entries, nothing to replay. */
START_TEST(failures_of_a_skeleton_are_short)
{
    memset(&res, 0, sizeof res);
    for (int s = 1; s <= 5; s++) {
        test_record *c = &res.t[s][TEST_CORRECT];
        c->graded = 1;
        c->state = STATE_FINISHED;
        c->v = V_TODO;
        strcpy(c->msg, "not implemented yet");
        if (s >= 3) {
            test_record *p = &res.t[s][TEST_PERF];
            p->graded = 1;
            p->state = STATE_FINISHED;
            p->v = V_SKIPPED;
        }
    }
    FILE *f = open_buf();
    report_failures(f, &lab_transpose, &res, 1, 0, NULL);
    fclose(f);
    ck_assert_ptr_nonnull(strstr(buf, "stage 1 (naive, reads coalesced), correctness: NOT IMPLEMENTED"));
    ck_assert_ptr_nonnull(strstr(buf, "stages 2, 3, 4, 5: not implemented yet either"));
    ck_assert_ptr_null(strstr(buf, "SKIPPED"));
    ck_assert_ptr_null(strstr(buf, "replay"));
    ck_assert_ptr_null(strstr(buf, "stage 2 ("));
}
END_TEST

/* One cause behind every failure (the grader cannot load its reference
 * library) is listed once, with the stages it hit on one line. */
START_TEST(failures_with_one_cause_are_listed_once)
{
    memset(&res, 0, sizeof res);
    const char *msg = "cannot load /x/build/ceilings/lab2.so (no such file): run make again";
    for (int s = 1; s <= 5; s++)
        for (int k = 0; k < TEST_KINDS; k++) {
            if (k == TEST_PERF && s < 3)
                continue;
            test_record *t = &res.t[s][k];
            t->graded = 1;
            t->state = STATE_FINISHED;
            t->v = V_SETUP_ERROR;
            strcpy(t->msg, msg);
        }
    /* A different message is its own entry. */
    strcpy(res.t[4][TEST_PERF].msg, "the grader could not allocate the input");
    FILE *f = open_buf();
    report_failures(f, &lab_transpose, &res, 1, 0, NULL);
    fclose(f);
    const char *first = strstr(buf, msg);
    ck_assert_ptr_nonnull(first);
    ck_assert_msg(strstr(first + 1, msg) == NULL, "the message is repeated:\n%s", buf);
    ck_assert_ptr_nonnull(strstr(buf, "stage 1 (naive, reads coalesced), correctness: SETUP ERROR"));
    ck_assert_ptr_nonnull(strstr(buf, "the same in stages 2, 3, 4, 5 (correctness) and 3, 5 (speed)\n"));
    ck_assert_ptr_nonnull(strstr(buf, "stage 4 (padded tile (no bank conflicts)), speed: SETUP ERROR\n"
                                      "      the grader could not allocate the input\n"));
    ck_assert_ptr_null(strstr(buf, "stage 2 ("));
}
END_TEST

/* Hints come from the stage and from what was measured. */
START_TEST(hints)
{
    fill();
    char h[1024];
    ck_assert_int_eq(report_hint(h, sizeof h, &lab_transpose, &res, 4, TEST_PERF), 1);
    ck_assert_ptr_nonnull(strstr(h, "float tile[32][33]"));
    ck_assert_ptr_null(strstr(h, "slower than the one it must beat"));
    res.t[4][TEST_PERF].speedup = 0.9;
    report_hint(h, sizeof h, &lab_transpose, &res, 4, TEST_PERF);
    ck_assert(strncmp(h, "This stage is slower than the one it must beat.", 47) == 0);
    /* No hint for a pass, a correctness failure, or a stage without one. */
    ck_assert_int_eq(report_hint(h, sizeof h, &lab_transpose, &res, 3, TEST_PERF), 0);
    ck_assert_int_eq(report_hint(h, sizeof h, &lab_transpose, &res, 5, TEST_CORRECT), 0);
    ck_assert_str_eq(h, "");
}
END_TEST

extern const lab_spec lab_shuffle;

/* A stage that misses its share of the ceiling (with no earlier stage to
 * beat, or after beating it) is told so, not that it is slower than a base. */
START_TEST(hints_for_a_share_of_the_ceiling)
{
    static lab_results r3;
    memset(&r3, 0, sizeof r3);
    test_record *t = &r3.t[7][TEST_PERF];
    t->graded = 1;
    t->timed = 1;
    t->v = V_SLOW;
    t->base = -1;
    t->pct_ceiling = 31.0;
    t->min_ceiling = 0.5;
    char h[1024];
    ck_assert_int_eq(report_hint(h, sizeof h, &lab_shuffle, &r3, 7, TEST_PERF), 1);
    ck_assert(strncmp(h, "This stage reaches 31% of CUB DeviceSelect::If and needs 50%.", 61) == 0);
    ck_assert_ptr_null(strstr(h, "slower than the one it must beat"));
}
END_TEST

START_TEST(live_lines)
{
    fill();
    FILE *f = open_buf();
    report_live_line(f, &lab_transpose, &res, 3);
    report_live_line(f, &lab_transpose, &res, 4);
    report_live_line(f, &lab_transpose, &res, 5);
    report_live_line(f, &lab_transpose, &res, 0);
    fclose(f);
    ck_assert_ptr_nonnull(strstr(buf, "correct, 2500 GB/s (59% of cudaMemcpy D2D), 2.50x over stage 2 -> fast enough"));
    ck_assert_ptr_nonnull(strstr(buf, "1.04x over stage 3 -> TOO SLOW"));
    ck_assert_ptr_nonnull(strstr(buf, "WRONG RESULT\n"));
    ck_assert_ptr_nonnull(strstr(buf, "correct, 3900 GB/s (92% of"));
}
END_TEST

/* The progress line names the running test, its size and phase; nothing
 * when no test runs. */
START_TEST(progress_text)
{
    fill();
    char line[300];
    int stage = -1, kind = -1;
    ck_assert_int_eq(report_progress_text(line, sizeof line, &lab_transpose, &res, &stage, &kind), 0);
    test_record *t = &res.t[4][TEST_PERF];
    t->state = STATE_RUNNING;
    t->size = lab_transpose.bench_size;
    t->phase = PHASE_TIMING;
    ck_assert_int_eq(report_progress_text(line, sizeof line, &lab_transpose, &res, &stage, &kind), 1);
    ck_assert_int_eq(stage, 4);
    ck_assert_int_eq(kind, TEST_PERF);
    ck_assert_str_eq(line, "  stage 4  padded tile (no bank conflicts): speed, 8192 x 8192: timing");
    t->size = -1;
    t->phase = PHASE_LOAD;
    report_progress_text(line, sizeof line, &lab_transpose, &res, &stage, &kind);
    ck_assert_str_eq(line, "  stage 4  padded tile (no bank conflicts): speed: loading the library");
}
END_TEST

START_TEST(json_document)
{
    fill();
    devinfo d;
    memset(&d, 0, sizeof d);
    strcpy(d.name, "Test \"GPU\"");
    d.cc_major = 9;
    const lab_spec *specs[] = {&lab_transpose};
    const char *libs[] = {"/tmp/lab1.so"};
    FILE *f = open_buf();
    ck_assert_int_eq(report_json(f, specs, &res, 1, &d, 0x10, libs), 0);
    fclose(f);
    ck_assert_ptr_nonnull(strstr(buf, "\"seed\": \"0x10\""));
    ck_assert_ptr_nonnull(strstr(buf, "\"name\": \"Test \\\"GPU\\\"\""));
    ck_assert_ptr_nonnull(strstr(buf, "\"score\": 40, \"max_score\": 70"));
    ck_assert_ptr_nonnull(strstr(buf, "{\"stage\": 5, "));
    ck_assert_ptr_nonnull(strstr(buf, "\"verdict\": \"WRONG RESULT\""));
    ck_assert_ptr_nonnull(strstr(buf, "\"speedup\": 2.5"));
    ck_assert(json_balanced(buf));
}
END_TEST

START_TEST(json_escape)
{
    char b[64];
    ck_assert_str_eq(report_json_escape("a\"b\\c\nd\te", b, sizeof b), "a\\\"b\\\\c\\nd\\u0009e");
    char tiny[8];
    report_json_escape("0123456789", tiny, sizeof tiny);
    ck_assert_uint_lt(strlen(tiny), sizeof tiny);
}
END_TEST

/* --timings: a stage's row adds both tests' phases; "other" is what the
 * children did not account for of the stage's wall time; the lab's total adds
 * the parent's inputs and the checks after the stages. */
START_TEST(timings_table)
{
    fill();
    for (int s = 0; s < LAB_MAX_STAGES; s++)
        for (int k = 0; k < TEST_KINDS; k++)
            memset(res.t[s][k].tm, 0, sizeof res.t[s][k].tm);
    res.t[3][TEST_CORRECT].tm[TM_STARTUP] = 0.25;
    res.t[3][TEST_PERF].tm[TM_STARTUP] = 0.5;
    res.t[3][TEST_PERF].tm[TM_TIMED] = 2.0;
    res.t[3][TEST_PERF].tm[TM_OTHER] = 0.125;
    res.stage_wall[3] = 3.5;
    res.wall = 10.0;
    res.parent_tm[TM_INPUTS] = 1.5;
    res.parent_tm[TM_REFERENCE] = 0.5;
    res.after_wall = 0.75;
    FILE *f = open_buf();
    report_timings(f, &lab_transpose, &res);
    fclose(f);
    ck_assert_ptr_nonnull(strstr(buf, "Where the time went, lab 1 (transpose)"));
    /* start 0.75, timed 2.00, other 3.5 - 2.75 = 0.75, wall 3.50 */
    ck_assert_msg(strstr(buf, "  3        0.75    0.00    0.00    0.00    0.00    0.00    0.00    "
                              "2.00    0.00    0.00    0.75    3.50\n"),
                  "%s", buf);
    ck_assert_ptr_nonnull(strstr(buf, "inputs made once, shared by every test): 2.00 s (inputs "
                                      "1.50, CPU reference 0.50)"));
    ck_assert_ptr_nonnull(strstr(buf, "lab 1 in all: 12.8 s"));
}
END_TEST

/* A stage this GPU cannot grade: named in the table and under it, never a
 * failure, no points either way. */
START_TEST(not_available_is_neither)
{
    fill();
    int got0, max0;
    report_score(&lab_transpose, &res, &got0, &max0);
    int failed0 = report_failed_tests(&lab_transpose, &res);
    /* stage 1 (10 points, correctness only) gated: as main.c leaves it, no points */
    lab_stage stages[LAB_MAX_STAGES];
    for (int s = 0; s < lab_transpose.n_stages; s++)
        stages[s] = lab_transpose.stages[s];
    stages[1].points_correct = 0;
    lab_spec gated = lab_transpose;
    gated.stages = stages;
    test_record *t = &res.t[1][TEST_CORRECT];
    t->v = V_NOT_AVAILABLE;
    strcpy(t->msg, "needs compute capability 8.0 (this GPU, T4, has 7.5): not graded, no points lost");
    int got, max;
    report_score(&gated, &res, &got, &max);
    ck_assert_int_eq(got, got0 - 10); /* stage 1 had passed: its 10 points are out of both */
    ck_assert_int_eq(max, max0 - 10);
    ck_assert_int_eq(report_failed_tests(&gated, &res), failed0);
    /* The same with the table's points back (a config applied with --from): still out. */
    report_score(&lab_transpose, &res, &got, &max);
    ck_assert_int_eq(max, max0 - 10);
    FILE *f = open_buf();
    report_table(f, &gated, &res);
    report_failures(f, &gated, &res, 1, 0, NULL);
    fclose(f);
    ck_assert_msg(strstr(buf, "NOT AVAILABLE") != NULL, "%s", buf);
    ck_assert_msg(strstr(buf, "stage 1 not available on this GPU: needs compute capability 8.0") !=
                      NULL,
                  "%s", buf);
    ck_assert_msg(strstr(buf, "stage 1 (") == NULL || strstr(buf, "What to fix") == NULL ||
                      strstr(strstr(buf, "What to fix"), "stage 1 (") == NULL,
                  "listed as something to fix:\n%s", buf);
    ck_assert(verdict_neutral(V_NOT_AVAILABLE));
    ck_assert(!verdict_neutral(V_SKIPPED));
    ck_assert_str_eq(verdict_name(V_NOT_AVAILABLE), "NOT AVAILABLE");
}
END_TEST

Suite *make_report_suite(void)
{
    Suite *s = suite_create("report");
    TCase *tc = tcase_create("report");
    tcase_add_test(tc, score_counts_only_passes);
    tcase_add_test(tc, replay_command);
    tcase_add_test(tc, table_rows);
    tcase_add_test(tc, timings_table);
    tcase_add_test(tc, not_available_is_neither);
    tcase_add_test(tc, failures_carry_replay);
    tcase_add_test(tc, failures_of_a_skeleton_are_short);
    tcase_add_test(tc, failures_with_one_cause_are_listed_once);
    tcase_add_test(tc, hints);
    tcase_add_test(tc, live_lines);
    tcase_add_test(tc, progress_text);
    tcase_add_test(tc, hints_for_a_share_of_the_ceiling);
    tcase_add_test(tc, json_document);
    tcase_add_test(tc, json_escape);
    suite_add_tcase(s, tc);
    return s;
}
