#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "../config.h"
#include "tests.h"

extern const lab_spec lab_transpose;
extern const lab_spec lab_reduce;
extern const lab_spec lab_shuffle;

static grade_config cfg;
static char err[512];

static int parse_text(const char *text)
{
    FILE *f = fmemopen((void *)text, strlen(text), "r");
    int rc = config_parse(f, "test.cfg", &cfg, err, sizeof err);
    fclose(f);
    return rc;
}

START_TEST(settings_apply)
{
    ck_assert_int_eq(parse_text("# a comment\n\n  lab1.s3.min_speedup = 0.9   # tighter\n"
                                "transpose.4.points_speed=15\nlab1.s2.graded = no\n"
                                "lab1.s1.points_correct = 5\n"),
                     0);
    lab_stage st[LAB_MAX_STAGES];
    stage_rules rules[LAB_MAX_STAGES];
    config_apply(&cfg, &lab_transpose, st, rules);
    ck_assert_double_eq_tol(st[3].min_speedup, 0.9, 1e-12);
    ck_assert_int_eq(st[4].points_speed, 15);
    ck_assert_int_eq(st[1].points_correct, 5);
    ck_assert_int_eq(rules[2].graded, 0);
    ck_assert_int_eq(rules[3].graded, 1);
    /* Untouched settings keep the built-in table. */
    ck_assert_double_eq(st[5].min_speedup, lab_transpose.stages[5].min_speedup);
    ck_assert_str_eq(st[5].symbol, "transpose_vectorized");
    /* A threshold the config sets holds on any SM count. */
    ck_assert_int_eq(parse_text("lab2.s1.min_speedup = 2.5\n"), 0);
    config_apply(&cfg, &lab_reduce, st, rules);
    ck_assert_double_eq_tol(st[1].min_speedup, 2.5, 1e-12);
    ck_assert_double_eq(st[1].min_speedup_per_sm, 0);
    config_apply(NULL, &lab_reduce, st, rules);
    ck_assert(st[1].min_speedup_per_sm > 0);
    /* No config: the built-in table. */
    config_apply(NULL, &lab_transpose, st, rules);
    ck_assert_double_eq(st[3].min_speedup, lab_transpose.stages[3].min_speedup);
    ck_assert_int_eq(rules[2].graded, 1);
}
END_TEST

/* Techniques: required or hint, only where the grader checks one; the
 * sanitizer: required or no, on any stage. */
START_TEST(technique_setting)
{
    ck_assert_int_eq(parse_text("lab1.s5.technique = required\nlab3.s2.technique = hint\n"
                                "lab1.s4.sanitizer = required\n"),
                     0);
    lab_stage st[LAB_MAX_STAGES];
    stage_rules rules[LAB_MAX_STAGES];
    config_apply(&cfg, &lab_transpose, st, rules);
    ck_assert_int_eq(rules[5].technique_required, 1);
    ck_assert_int_eq(rules[3].technique_required, 0);
    ck_assert_int_eq(rules[4].sanitizer_required, 1);
    ck_assert_int_eq(rules[5].sanitizer_required, 0);
    config_apply(NULL, &lab_transpose, st, rules);
    ck_assert_int_eq(rules[5].technique_required, 0);
    ck_assert_int_eq(rules[4].sanitizer_required, 0);
    ck_assert_int_eq(parse_text("lab1.s4.sanitizer = maybe\n"), -1);
    ck_assert_ptr_nonnull(strstr(err, "sanitizer must be required or no, not 'maybe'"));
    ck_assert_int_eq(parse_text("lab1.s5.technique = always\n"), -1);
    ck_assert_ptr_nonnull(strstr(err, "technique must be required or hint, not 'always'"));
    ck_assert_int_eq(parse_text("lab1.s1.technique = required\n"), -1);
    ck_assert_ptr_nonnull(strstr(err, "lab1 stage 1 has no technique the grader checks"));
    /* Built in, lab 3's stage 2 requires its shuffles (its speed cannot show
     * them) and no other stage of the lab does; a config makes it a hint. */
    config_apply(NULL, &lab_shuffle, st, rules);
    for (int s = 0; s < lab_shuffle.n_stages; s++)
        ck_assert_int_eq(rules[s].technique_required, s == 2);
    ck_assert_int_eq(parse_text("lab3.s2.technique = hint\n"), 0);
    config_apply(&cfg, &lab_shuffle, st, rules);
    ck_assert_int_eq(rules[2].technique_required, 0);
}
END_TEST

/* The fraction of the ceiling a stage must reach: set, turned off, calibrated. */
START_TEST(ceiling_fraction)
{
    lab_stage st[LAB_MAX_STAGES];
    stage_rules rules[LAB_MAX_STAGES];
    ck_assert_int_eq(parse_text("lab2.s7.min_ceiling = 0.65\nlab2.s6.min_ceiling = 0\n"), 0);
    config_apply(&cfg, &lab_reduce, st, rules);
    ck_assert_double_eq_tol(st[7].min_ceiling, 0.65, 1e-12);
    ck_assert_double_eq(st[6].min_ceiling, 0.0);
    ck_assert_double_eq(st[7].min_speedup, lab_reduce.stages[7].min_speedup);

    static lab_results res;
    memset(&res, 0, sizeof res);
    test_record *p = &res.t[7][TEST_PERF];
    p->timed = 1;
    p->speedup = 2.0;
    p->base = 6;
    p->pct_ceiling = 96.4;
    const lab_spec *specs[] = {&lab_reduce};
    char text[4096] = "";
    FILE *f = fmemopen(text, sizeof text - 1, "w");
    ck_assert_int_eq(config_write_calibration(f, specs, &res, 1, 0.8, NULL), 0);
    fclose(f);
    ck_assert_ptr_nonnull(strstr(text, "lab2.s7.min_speedup = 1.60"));
    ck_assert_ptr_nonnull(strstr(text, "lab2.s7.min_ceiling = 0.77   # measured 96.4% of CUB"));
    ck_assert_int_eq(parse_text(text), 0);
}
END_TEST

START_TEST(errors_name_the_line)
{
    ck_assert_int_eq(parse_text("lab1.s3.min_speedup = 1\nlab1.s3.fast = yes\n"), -1);
    ck_assert_str_eq(err, "test.cfg:2: unknown key 'fast' (points_correct, points_speed, "
                          "min_speedup, min_ceiling, graded, technique, sanitizer)");
    ck_assert_int_eq(parse_text("lab2.s7.min_ceiling = 80\n"), -1);
    ck_assert_ptr_nonnull(strstr(err, "min_ceiling must be a fraction from 0 to 1"));
    ck_assert_int_eq(parse_text("lab2.s0.min_ceiling = 0.5\n"), -1); /* stage 0 has no speed test */
    /* A stage held to its ceiling alone takes min_ceiling, not min_speedup. */
    ck_assert_int_eq(parse_text("lab3.s7.min_speedup = 2\n"), -1);
    ck_assert_ptr_nonnull(strstr(err, "use min_ceiling"));
    ck_assert_int_eq(parse_text("lab3.s7.min_ceiling = 0.4\nlab3.s7.points_speed = 5\n"), 0);
    ck_assert_int_eq(parse_text("\n\nlab1.s3 min_speedup 1\n"), -1);
    ck_assert_ptr_nonnull(strstr(err, "test.cfg:3: expected lab.stage.key = value"));
    ck_assert_int_eq(parse_text("lab9.s3.min_speedup = 1\n"), -1);
    ck_assert_ptr_nonnull(strstr(err, "test.cfg:1: no such lab 'lab9'"));
    ck_assert_int_eq(parse_text("lab5.s3.min_speedup = 1\n"), 0);
    ck_assert_int_eq(parse_text("lab6.s4.min_ceiling = 0.3\n"), 0);
    ck_assert_int_eq(parse_text("lab1.s9.graded = no\n"), -1);
    ck_assert_ptr_nonnull(strstr(err, "lab1 has stages s0 to s5, not 's9'"));
    ck_assert_int_eq(parse_text("lab1.s3.min_speedup = fast\n"), -1);
    ck_assert_ptr_nonnull(strstr(err, "min_speedup must be a number above 0, not 'fast'"));
    ck_assert_int_eq(parse_text("lab1.s3.min_speedup = -1\n"), -1);
    ck_assert_int_eq(parse_text("lab1.s3.points_speed = 2.5\n"), -1);
    ck_assert_ptr_nonnull(strstr(err, "whole number of points"));
    ck_assert_int_eq(parse_text("lab1.s3.graded = maybe\n"), -1);
    ck_assert_int_eq(parse_text("lab1.s3.graded =\n"), -1);
    ck_assert_ptr_nonnull(strstr(err, "has no value"));
    ck_assert_int_eq(parse_text("lab1.s1.points_speed = 5\n"), -1);
    ck_assert_ptr_nonnull(strstr(err, "no earlier stage to compare its speed with"));
}
END_TEST

/* The calibrated file is a config the parser accepts, with fraction x the
 * measured speedups (rounded down). */
START_TEST(calibration_round_trip)
{
    static lab_results res;
    fixture_results(&res);
    const lab_spec *specs[] = {&lab_transpose};
    devinfo d;
    memset(&d, 0, sizeof d);
    strcpy(d.name, "NVIDIA T4");
    d.cc_major = 7;
    d.cc_minor = 5;
    char text[4096] = "";
    FILE *f = fmemopen(text, sizeof text - 1, "w");
    ck_assert_int_eq(config_write_calibration(f, specs, &res, 1, 0.8, &d), 0);
    fclose(f);
    ck_assert_ptr_nonnull(strstr(text, "calibrated on NVIDIA T4 (compute capability 7.5)"));
    ck_assert_ptr_nonnull(strstr(text, "lab1.s3.min_speedup = 2.00")); /* 0.8 x 2.50 */
    ck_assert_ptr_nonnull(strstr(text, "lab1.s4.min_speedup = 0.83")); /* 0.8 x 1.04 = 0.832 */
    ck_assert_ptr_nonnull(strstr(text, "# lab1.s5: not measured (SKIPPED)"));
    ck_assert_int_eq(parse_text(text), 0);
    lab_stage st[LAB_MAX_STAGES];
    stage_rules rules[LAB_MAX_STAGES];
    config_apply(&cfg, &lab_transpose, st, rules);
    ck_assert_double_eq_tol(st[3].min_speedup, 2.00, 1e-12);
    ck_assert_double_eq_tol(st[4].min_speedup, 0.83, 1e-12);
    ck_assert_double_eq(st[5].min_speedup, lab_transpose.stages[5].min_speedup);
}
END_TEST

Suite *make_config_suite(void)
{
    Suite *s = suite_create("config");
    TCase *tc = tcase_create("config");
    tcase_add_test(tc, settings_apply);
    tcase_add_test(tc, technique_setting);
    tcase_add_test(tc, errors_name_the_line);
    tcase_add_test(tc, ceiling_fraction);
    tcase_add_test(tc, calibration_round_trip);
    suite_add_tcase(s, tc);
    return s;
}
