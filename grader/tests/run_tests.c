/* run_tests.c: `make test`. Runs every suite; the GPU suite only when a GPU
 * answers, and otherwise counts its tests as skipped, never as passed. The
 * last line is "tests: N passed, N failed, N skipped". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests.h"

int main(void)
{
    SRunner *sr = srunner_create(make_rng_suite());
    srunner_add_suite(sr, make_stats_suite());
    srunner_add_suite(sr, make_compare_suite());
    srunner_add_suite(sr, make_options_suite());
    srunner_add_suite(sr, make_results_suite());
    srunner_add_suite(sr, make_report_suite());
    srunner_add_suite(sr, make_formats_suite());
    srunner_add_suite(sr, make_config_suite());
    srunner_add_suite(sr, make_analytics_suite());
    srunner_add_suite(sr, make_pictures_suite());
    srunner_add_suite(sr, make_platforms_suite());
    srunner_add_suite(sr, make_elfsym_suite());
    srunner_add_suite(sr, make_labs_suite());
    srunner_add_suite(sr, make_reduce_suite());
    srunner_add_suite(sr, make_shuffle_suite());
    srunner_add_suite(sr, make_gemm_suite());
    srunner_add_suite(sr, make_conv_suite());
    srunner_add_suite(sr, make_streams_suite());
    srunner_add_suite(sr, make_sass_suite());
    srunner_add_suite(sr, make_launch_trace_suite());
    srunner_add_suite(sr, make_grade_suite());

    static char info[4096];
    char *argv[] = {(char *)grade_path(), "--gpu-info", NULL};
    int rc = run_command(argv, NULL, info, sizeof info);
    int skipped = 0;
    char *nl = strchr(info, '\n');
    if (nl)
        *nl = '\0';
    if (rc == 0) {
        printf("GPU tests will run: %s\n", info);
        srunner_add_suite(sr, make_grade_gpu_suite());
        skipped = grade_gpu_left_out_count();
        if (skipped)
            printf("GPU tests of labs not in TEST_LABS=%s: %d skipped\n", getenv("TEST_LABS"),
                   skipped);
    } else {
        skipped = grade_gpu_test_count() + grade_gpu_left_out_count();
        printf("GPU tests: %d skipped (./grade --gpu-info exited %d: %s)\n", skipped, rc, info);
    }
    skipped += formats_skipped_count();
    int unopened = grade_unopened_count();
    if (unopened)
        printf("adversarial cases of labs not open yet: %d skipped\n", unopened);
    skipped += unopened;
    fflush(stdout);
    srunner_run_all(sr, CK_NORMAL);
    int run = srunner_ntests_run(sr);
    int failed = srunner_ntests_failed(sr);
    if (rc == 0)
        grade_gpu_summary(sr);
    srunner_free(sr);
    printf("tests: %d passed, %d failed, %d skipped\n", run - failed, failed, skipped);
    return failed == 0 && run > 0 ? 0 : 1;
}
