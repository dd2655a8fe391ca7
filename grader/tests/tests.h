/* tests.h: the suites of `make test`, one make_<area>_suite() per file. */
#ifndef CUDA_LABS_TESTS_H
#define CUDA_LABS_TESTS_H

#include <check.h>
#include <stddef.h>

Suite *make_rng_suite(void);
Suite *make_stats_suite(void);
Suite *make_compare_suite(void);
Suite *make_options_suite(void);
Suite *make_green_suite(void);   /* --sms: green contexts through a stand-in driver; no GPU */
Suite *make_results_suite(void);
Suite *make_decide_suite(void);   /* every verdict the grader decides, each branch */
Suite *make_witness_suite(void);  /* a speed test held to its timing witness (witness.h) */
Suite *make_report_suite(void);
Suite *make_elfsym_suite(void);
Suite *make_sandbox_suite(void);  /* full RELRO, and the grading child's seccomp filter */
Suite *make_policy_suite(void);    /* the contract check: borrowed kernels, back doors, raw system calls */
Suite *make_labs_suite(void);
Suite *make_lab_by_lab_suite(void); /* release and regeneration of lab data, one runner, huge pages */
Suite *make_reduce_suite(void);
Suite *make_shuffle_suite(void);
Suite *make_gemm_suite(void);
Suite *make_hopper_suite(void);
Suite *make_conv_suite(void);
Suite *make_streams_suite(void);
Suite *make_sass_suite(void);
Suite *make_launch_trace_suite(void);
Suite *make_hostparts_suite(void);  /* JSON errors, patch bookkeeping, lab_util messages; no GPU */
Suite *make_batch_suite(void);      /* grader/batch and the Slurm array; no GPU needed */
Suite *make_batch_gpu_suite(void);  /* grader/batch grading every lab on a GPU */
int batch_gpu_test_count(void);     /* its tests, reported as skipped without a GPU */
int batch_gpu_left_out_count(void); /* its tests of labs left out by TEST_LABS: skipped */
Suite *make_arch_suite(void);       /* every architecture's builds, launches and spills; no GPU */
Suite *make_fakegpu_suite(void);    /* ./grade over a fake GPU (host memory): verdicts without a GPU */
Suite *make_integrity_suite(void);  /* grader/integrity: a student copy's grader files */
Suite *make_numbers_suite(void);    /* quoted thresholds and figures against the tables */
Suite *make_lablist_suite(void);    /* the list of labs against every place that names the labs */
Suite *make_grade_suite(void);      /* ./grade's behaviour that needs no GPU */
Suite *make_grade_gpu_suite(void);  /* grading on a GPU: solutions, skeleton, adversarial */
Suite *make_devcheck_gpu_suite(void); /* the grader's own kernels (grader/patch.h), on a GPU */
int devcheck_gpu_test_count(void);    /* its tests, reported as skipped without a GPU */
Suite *make_launch_trace_gpu_suite(void); /* the kernel audit against CUPTI, on a GPU */
int launch_trace_gpu_test_count(void);    /* its tests, reported as skipped without a GPU */
/* After the run: one line per lab of the GPU suite (tests, passed, failed, seconds). */
void grade_gpu_summary(SRunner *sr);
int grade_gpu_test_count(void);     /* tests in the GPU suite, reported as skipped without one */
int grade_unopened_count(void);     /* adversarial cases of labs not open yet: skipped */
int grade_gpu_left_out_count(void); /* GPU tests of labs left out by TEST_LABS: skipped too */

#include "../proc.h" /* run_command */
#include "../results.h"

Suite *make_formats_suite(void);
int formats_skipped_count(void); /* format tests whose consumer is missing here: skipped */
Suite *make_config_suite(void);
Suite *make_analytics_suite(void);
Suite *make_pictures_suite(void);
Suite *make_platforms_suite(void); /* Classroom, --from, make autolab and bench, from outside */
/* A made-up lab 1 run: stages 0, 1 correct; 3 correct and fast; 4 correct and
 * too slow; 5 wrong, its speed skipped. 40 of 70 points. */
void fixture_results(lab_results *r);
/* What srunner_print(sr, CK_MINIMAL) writes on stdout (cut at n - 1 bytes). */
void check_summary_text(SRunner *sr, char *buf, size_t n);
/* Removes a temporary folder and everything in it; 0 on success. */
int remove_tree(const char *dir);
/* The whole file (cut at n - 1 bytes) into buf; 0, or -1 when it cannot be read. */
int read_text(const char *path, char *buf, size_t n);
/* Every XML element opened is closed, in order (attributes and text skipped). */
int xml_well_nested(const char *s);
/* Braces and brackets balance outside JSON strings. */
int json_balanced(const char *s);
/* Whether the GPU the tests run on can run some stage of spec: run_tests sets
 * CUDA_LABS_TEST_GPU_CC (90 for 9.0) from ./grade --gpu-info; unset (no GPU
 * seen yet), yes. A lab it cannot run (lab 7 off 9.0) is graded NOT AVAILABLE. */
struct lab_spec;
int test_lab_runs_here(const struct lab_spec *spec);
/* Says that the running test is skipped, with the reason (one line), and
 * returns: run_tests counts it as skipped, never as passed. Without
 * run_tests' record of skips ($CUDA_LABS_TEST_SKIPS) the test fails instead. */
void test_skip(const char *why);
/* A GitHub Classroom payload (decoded) has what the reporter reads, with the
 * types it expects: version 1, a status, a max_score, and at least one test,
 * each with exactly name, status, score, message, filename, line_no and
 * execution_time. */
struct json;
void classroom_payload_check(const struct json *doc);
/* The grader under test: $GRADE, else ./grade. */
const char *grade_path(void);

#endif
