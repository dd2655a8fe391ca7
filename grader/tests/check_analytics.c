#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../analytics.h"
#include "../json.h"
#include "../report.h"
#include "tests.h"

extern const lab_spec lab_transpose;
extern const lab_spec lab_conv;

START_TEST(json_values)
{
    char err[128];
    json *j = json_parse(" {\"a\": [1, -2.5e3, true, null], \"b\": \"x\\\"y\\\\z\\n\\u0041\", \"c\": {}}",
                         err, sizeof err);
    ck_assert_msg(j != NULL, "%s", err);
    const json *a = json_get(j, "a");
    ck_assert_int_eq(a->type, JSON_ARRAY);
    ck_assert_int_eq(a->n, 4);
    ck_assert_double_eq(a->items[1].number, -2500);
    ck_assert_int_eq(a->items[2].type, JSON_BOOL);
    ck_assert_int_eq(a->items[3].type, JSON_NULL);
    ck_assert_str_eq(json_string(json_get(j, "b"), ""), "x\"y\\z\nA");
    ck_assert_int_eq(json_get(j, "c")->n, 0);
    ck_assert_ptr_null(json_get(j, "d"));
    ck_assert_double_eq(json_number(json_get(j, "d"), 7), 7);
    json_free(j);
}
END_TEST

START_TEST(json_errors)
{
    char err[128];
    const char *bad[] = {"", "{", "{\"a\" 1}", "[1, 2", "\"open", "{\"a\": tru}", "[1] x", "{1: 2}"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        json *j = json_parse(bad[i], err, sizeof err);
        ck_assert_msg(j == NULL, "'%s' was accepted", bad[i]);
        ck_assert_ptr_nonnull(strstr(err, "at byte"));
    }
}
END_TEST

/* The grader's own JSON reads back with every value it wrote. */
START_TEST(json_reads_grader_output)
{
    static lab_results res;
    fixture_results(&res);
    const lab_spec *specs[] = {&lab_transpose};
    const char *libs[] = {"/x/lab1.so"};
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    ck_assert_int_eq(report_json(f, specs, &res, 1, NULL, 0x42, libs), 0);
    fclose(f);
    char err[128];
    json *j = json_parse(text, err, sizeof err);
    ck_assert_msg(j != NULL, "%s", err);
    ck_assert_double_eq(json_number(json_get(j, "score"), -1), 40);
    ck_assert_double_eq_tol(json_number(json_get(&json_get(j, "labs")->items[0], "impossible_over"), 0),
                            1.10, 1e-9);
    const json *stages = json_get(&json_get(j, "labs")->items[0], "stages");
    ck_assert_int_eq(stages->n, 5);
    const json *s3 = &stages->items[2];
    ck_assert_double_eq(json_number(json_get(s3, "stage"), -1), 3);
    ck_assert_double_eq_tol(json_number(json_get(json_get(json_get(s3, "speed"), "timing"), "speedup"), 0), 2.5, 1e-9);
    json_free(j);
    free(text);
}
END_TEST

static void write_student(const char *dir, const char *name, lab_results *res)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s.json", dir, name);
    FILE *f = fopen(path, "w");
    const lab_spec *specs[] = {&lab_transpose};
    const char *libs[] = {"lab1.so"};
    ck_assert_int_eq(report_json(f, specs, res, 1, NULL, 1, libs), 0);
    fclose(f);
}

/* What ./grade --analyze prints for the class folder dir (to free). */
static char *class_report(const char *dir)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    ck_assert_ptr_nonnull(out);
    char err[256];
    ck_assert_msg(analytics_report(dir, out, err, sizeof err) == 0, "%s", err);
    fclose(out);
    return text;
}

START_TEST(class_summary)
{
    char dir[] = "/tmp/cudalabs-classXXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    static lab_results r;
    fixture_results(&r);
    write_student(dir, "alice", &r);
    fixture_results(&r);
    r.t[3][TEST_PERF].speedup = 2.4;
    r.t[5][TEST_PERF] = (test_record){.graded = 1, .state = STATE_FINISHED, .v = V_PASS,
                                      .timed = 1, .throughput = 4700, .pct_ceiling = 115,
                                      .speedup = 1.3, .base = 4, .min_speedup = 1.1};
    r.t[5][TEST_CORRECT].v = V_PASS;
    write_student(dir, "bob", &r);
    fixture_results(&r);
    r.t[3][TEST_PERF].speedup = 9.0;
    write_student(dir, "carol", &r);
    char path[512];
    snprintf(path, sizeof path, "%s/dave.json", dir);
    FILE *f = fopen(path, "w");
    fputs("{\"labs\": [", f); /* cut short */
    fclose(f);
    /* grader/batch's status files: erin's submission did not build (no
     * JSON), alice's graded (her JSON is there, so she is not listed). */
    snprintf(path, sizeof path, "%s/erin.status", dir);
    f = fopen(path, "w");
    fputs("build failed\n", f);
    fclose(f);
    snprintf(path, sizeof path, "%s/alice.status", dir);
    f = fopen(path, "w");
    fputs("all passed\n", f);
    fclose(f);

    char *text = class_report(dir);
    ck_assert_ptr_nonnull(strstr(text, "3 result files read from"));
    ck_assert_ptr_nonnull(strstr(text, "dave.json: "));
    ck_assert_ptr_nonnull(strstr(text, "Without results (from grader/batch; see their .log files):\n"
                                       "  erin: build failed\n"));
    ck_assert_ptr_null(strstr(text, "  alice: "));
    ck_assert_ptr_nonnull(strstr(text, "lab 1 (transpose), 3 students"));
    /* stage 3: all correct, all fast; speedups 2.5, 2.4, 9.0 -> median 2.5 */
    ck_assert_ptr_nonnull(strstr(text, "shared-memory tile                 3/3          3/3          2.50x"));
    /* stage 5: only bob correct and fast */
    ck_assert_ptr_nonnull(strstr(text, "4x4 per thread, float4 access      1/3          1/3"));
    ck_assert_ptr_nonnull(strstr(text, "bob, lab 1 stage 5: 4700 GB/s is 115% of cudaMemcpy D2D"));
    ck_assert_ptr_nonnull(strstr(text, "carol, lab 1 stage 3: 9.00x, over 3 times the class median (2.50x)"));
    ck_assert_ptr_null(strstr(text, "alice, lab 1"));
    ck_assert_ptr_nonnull(strstr(text, "to check by hand (2):"));
    ck_assert_ptr_nonnull(strstr(text, "#"));
    free(text);
    ck_assert_int_eq(remove_tree(dir), 0);
    char err[256];
    ck_assert_int_eq(analytics_report("/nonexistent-dir", stdout, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "cannot open the folder"));
}
END_TEST

/* A lab whose ceiling is a yardstick, not a bound (lab 6: impossible_over
 * 2.5 in its results) flags a stage only past that factor; results without
 * the field keep the 10% rule. */
START_TEST(flags_follow_the_lab_rule)
{
    ck_assert_double_eq(lab_impossible_over(&lab_transpose), 1.10);
    ck_assert_double_eq(lab_impossible_over(&lab_conv), 2.5);
    char dir[] = "/tmp/cudalabs-classXXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    static const struct {
        const char *name, *over;
        int pct;
    } students[] = {{"fay", ", \"impossible_over\": 2.50", 150},
                    {"gus", ", \"impossible_over\": 2.50", 260},
                    {"hal", "", 115}};
    for (int i = 0; i < 3; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/%s.json", dir, students[i].name);
        FILE *f = fopen(path, "w");
        ck_assert_ptr_nonnull(f);
        fprintf(f,
                "{\"labs\": [{\"lab\": 6, \"name\": \"conv\", \"unit\": \"TFLOP/s\", "
                "\"ceiling\": \"cuBLAS\"%s, \"stages\": [{\"stage\": 3, \"speed\": "
                "{\"verdict\": \"PASS\", \"timing\": {\"throughput\": 30, \"pct_ceiling\": %d, "
                "\"speedup\": 2}}}]}]}\n",
                students[i].over, students[i].pct);
        fclose(f);
    }
    char *text = class_report(dir);
    ck_assert_ptr_null(strstr(text, "fay, lab 6"));
    ck_assert_ptr_nonnull(strstr(text, "gus, lab 6 stage 3: 30 TFLOP/s is 260% of cuBLAS"));
    ck_assert_ptr_nonnull(strstr(text, "hal, lab 6 stage 3: 30 TFLOP/s is 115% of cuBLAS"));
    free(text);
    ck_assert_int_eq(remove_tree(dir), 0);
}
END_TEST

/* make stability's table: per stage the runs, the failures, min/median/max,
 * and the worst run's margin over each threshold, '!' under 10%. */
static void write_run(const char *dir, int k, double speedup, const char *speed_verdict, double pct)
{
    char path[256];
    snprintf(path, sizeof path, "%s/run-%d.json", dir, k);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fprintf(f,
            "{\"seed\": \"0x%x\", \"gpu\": {\"name\": \"Test GPU\"}, \"labs\": [{\"lab\": 1, "
            "\"name\": \"transpose\", \"stages\": [{\"stage\": 4, \"title\": \"padded tile\", "
            "\"points_correct\": 10, \"points_speed\": 10, \"min_speedup\": 1.4, \"min_ceiling\": "
            "0, \"correctness\": {\"verdict\": \"PASS\"}, \"speed\": {\"verdict\": \"%s\", "
            "\"timing\": {\"base\": 3, \"speedup\": %g, \"pct_ceiling\": %g}}}, {\"stage\": 5, "
            "\"title\": \"float4\", \"points_correct\": 10, \"points_speed\": 10, \"min_speedup\": "
            "1.1, \"min_ceiling\": 0.5, \"correctness\": {\"verdict\": \"PASS\"}, \"speed\": "
            "{\"verdict\": \"PASS\", \"timing\": {\"base\": 4, \"speedup\": 2.0, \"pct_ceiling\": "
            "90}}}]}]}\n",
            k, speed_verdict, speedup, pct);
    fclose(f);
}

START_TEST(stability_table)
{
    char dir[] = "/tmp/cudalabs-stabilityXXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    write_run(dir, 1, 1.50, "PASS", 70);
    write_run(dir, 2, 1.45, "PASS", 71);
    write_run(dir, 3, 1.60, "PASS", 72);
    char *text = NULL, err[256] = "";
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    int rc = analytics_stability(dir, f, err, sizeof err);
    fclose(f);
    ck_assert_int_eq(rc, 0);
    ck_assert_msg(strstr(text, "3 result files read") != NULL, "%s", text);
    /* stage 4: min 1.45 over 1.40 is +4%, flagged */
    ck_assert_msg(strstr(text, "1.45 / 1.50 / 1.60      1.40x   +4% !") != NULL, "%s", text);
    /* stage 5: 2.0 over 1.1 (+82%), 90% over 50% (+80%) */
    ck_assert_msg(strstr(text, "1.10x    +82%") != NULL, "%s", text);
    ck_assert_msg(strstr(text, "50%    +80%") != NULL, "%s", text);
    ck_assert_msg(strstr(text, "0 failures in 3 files; 1 threshold with less than 10% to spare") != NULL,
                  "%s", text);
    free(text);
    write_run(dir, 4, 1.30, "TOO SLOW", 65);
    f = open_memstream(&text, &len);
    rc = analytics_stability(dir, f, err, sizeof err);
    fclose(f);
    ck_assert_int_eq(rc, 1);
    ck_assert_msg(strstr(text, "1 failure in 4 files") != NULL, "%s", text);
    free(text);
    for (int k = 1; k <= 4; k++) {
        char path[256];
        snprintf(path, sizeof path, "%s/run-%d.json", dir, k);
        unlink(path);
    }
    rmdir(dir);
    ck_assert_int_eq(analytics_stability(dir, stdout, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "cannot open"));
}
END_TEST

Suite *make_analytics_suite(void)
{
    Suite *s = suite_create("analytics");
    TCase *tc = tcase_create("analytics");
    tcase_add_test(tc, json_values);
    tcase_add_test(tc, json_errors);
    tcase_add_test(tc, json_reads_grader_output);
    tcase_add_test(tc, class_summary);
    tcase_add_test(tc, stability_table);
    tcase_add_test(tc, flags_follow_the_lab_rule);
    suite_add_tcase(s, tc);
    return s;
}
