/* check_green.c: --sms without a GPU. The counts a green context can have
 * (pure), the driver's calls in their order through a stand-in libcuda.so.1
 * (fake_libcuda.c; each test runs in its own child, so the stand-in never
 * meets the real driver), a driver without green contexts, and how every
 * report says that a run was made on part of the GPU. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../common/devinfo.h"
#include "../analytics.h"
#include "../green.h"
#include "../json.h"
#include "../load.h"
#include "../report.h"
#include "../runner.h"
#include "tests.h"

extern const lab_spec lab_transpose;

/* The counts a GPU of 132 SMs in groups of 8 (at least 8) can give, and
 * what the grader suggests for the others. */
START_TEST(counts_a_green_context_can_have)
{
    char err[256];
    ck_assert_int_eq(green_check(16, 132, 8, 8, err, sizeof err), 0);
    ck_assert_int_eq(green_check(40, 132, 8, 8, err, sizeof err), 0);
    ck_assert_int_eq(green_check(128, 132, 8, 8, err, sizeof err), 0);
    ck_assert_int_eq(green_check(20, 132, 8, 8, err, sizeof err), GREEN_REFUSED);
    ck_assert_str_eq(err, "--sms 20: this GPU gives a green context its SMs in groups of 8, at "
                          "least 8; try --sms 16 or --sms 24");
    ck_assert_int_eq(green_check(4, 132, 8, 8, err, sizeof err), GREEN_REFUSED);
    ck_assert_str_eq(err, "--sms 4: this GPU gives a green context its SMs in groups of 8, at "
                          "least 8 and at most 128; try --sms 8");
    ck_assert_int_eq(green_check(132, 132, 8, 8, err, sizeof err), GREEN_REFUSED);
    ck_assert_ptr_nonnull(strstr(err, "try --sms 128"));
    ck_assert_int_eq(green_check(200, 132, 8, 8, err, sizeof err), GREEN_REFUSED);
    ck_assert_str_eq(err, "--sms 200: this GPU has 132 SMs; try --sms 128 or fewer (a T4 has 40)");
    /* compute capability 8.x: pairs, at least 4 */
    ck_assert_int_eq(green_check(40, 108, 4, 2, err, sizeof err), 0);
    ck_assert_int_eq(green_check(2, 108, 4, 2, err, sizeof err), GREEN_REFUSED);
    ck_assert_ptr_nonnull(strstr(err, "try --sms 4"));
    /* a driver that does not say: any count up to the GPU's, the split decides */
    ck_assert_int_eq(green_check(5, 132, 0, 0, err, sizeof err), 0);
    ck_assert_int_eq(green_check(133, 132, 0, 0, err, sizeof err), GREEN_REFUSED);
}
END_TEST

typedef const char *(*log_fn)(void);

static log_fn load_fake(const char *path)
{
    void *lib = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
    ck_assert_msg(lib != NULL, "%s: %s (make test builds it)", path, dlerror());
    log_fn log = (log_fn)dlsym(lib, "fake_cuda_log");
    ck_assert_ptr_nonnull(log);
    return log;
}

/* The driver's steps in the documented order, the count asked for exactly,
 * the default stream the driver requires, and the green context current at
 * the end; a stream of another context is caught. */
START_TEST(green_context_made_and_set_current)
{
    log_fn log = load_fake("build/tests/fakecuda/libcuda.so.1");
    char err[256] = "";
    ck_assert_int_eq(green_verify(NULL, err, sizeof err), -1); /* nothing made yet */
    ck_assert_int_eq(green_enter(40, err, sizeof err), 0);
    ck_assert_str_eq(log(), "cuInit cuDeviceGet cuDeviceGetDevResource "
                            "cuDevSmResourceSplitByCount(40,flags=0) "
                            "cuDevResourceGenerateDesc(40 SMs) cuGreenCtxCreate(default stream) "
                            "cuCtxFromGreenCtx cuCtxSetCurrent(green)");
    ck_assert_int_eq(green_verify((void *)1, err, sizeof err), 0);
    ck_assert_int_eq(green_verify((void *)2, err, sizeof err), -1);
    ck_assert_str_eq(err, "the grader's stream does not belong to the green context");
}
END_TEST

/* A count the driver would round is refused before any context is made. */
START_TEST(green_count_refused_before_anything_is_made)
{
    log_fn log = load_fake("build/tests/fakecuda/libcuda.so.1");
    char err[256] = "";
    ck_assert_int_eq(green_enter(20, err, sizeof err), GREEN_REFUSED);
    ck_assert_ptr_nonnull(strstr(err, "try --sms 16 or --sms 24"));
    ck_assert_ptr_null(strstr(log(), "cuGreenCtxCreate"));
    ck_assert_int_eq(green_enter(200, err, sizeof err), GREEN_REFUSED);
    ck_assert_ptr_nonnull(strstr(err, "this GPU has 132 SMs"));
}
END_TEST

START_TEST(driver_without_green_contexts)
{
    load_fake("build/tests/fakecuda-old/libcuda.so.1");
    char err[256] = "";
    ck_assert_int_eq(green_enter(40, err, sizeof err), GREEN_UNAVAILABLE);
    ck_assert_str_eq(err, "--sms is not available with this NVIDIA driver: green contexts need a "
                          "driver for CUDA 12.4 or newer (grade without --sms, or update the "
                          "driver)");
}
END_TEST

static devinfo h200(int sms_used)
{
    devinfo d;
    memset(&d, 0, sizeof d);
    strcpy(d.name, "NVIDIA H200");
    d.cc_major = 9;
    d.sms = 132;
    d.l2_bytes = 60 << 20;
    d.total_mem = 150000000000ull;
    d.driver_version = d.runtime_version = 13000;
    d.sms_used = sms_used;
    return d;
}

/* The device line (report header, --gpu-info) and the GPU's name in every
 * report say which SMs; without --sms they are as before. */
START_TEST(device_line_says_which_sms)
{
    char line[512], label[300];
    devinfo d = h200(0);
    devinfo_format(&d, line, sizeof line);
    ck_assert_str_eq(line, "NVIDIA H200, compute capability 9.0, 132 SMs, 60 MB L2, 150 GB, "
                           "driver 13.0, runtime 13.0, no display watchdog");
    ck_assert_str_eq(devinfo_label(&d, "?", label, sizeof label), "NVIDIA H200");
    d = h200(40);
    devinfo_format(&d, line, sizeof line);
    ck_assert_str_eq(line, "NVIDIA H200, compute capability 9.0, 132 SMs, 60 MB L2, 150 GB, "
                           "driver 13.0, runtime 13.0, no display watchdog; graded on 40 of the "
                           "GPU's 132 SMs (green context)");
    ck_assert_str_eq(devinfo_label(&d, "?", label, sizeof label),
                     "NVIDIA H200 (40 of 132 SMs, --sms)");
    ck_assert_str_eq(devinfo_label(NULL, "an unknown GPU", label, sizeof label), "an unknown GPU");
}
END_TEST

/* gpu.sms_used in the JSON results with --sms, and no such field without. */
START_TEST(json_records_sms_used)
{
    static lab_results res;
    fixture_results(&res);
    const lab_spec *specs[] = {&lab_transpose};
    const char *libs[] = {"/tmp/lab1.so"};
    for (int used = 0; used <= 16; used += 16) {
        devinfo d = h200(used);
        char *text = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&text, &len);
        ck_assert_int_eq(report_json(f, specs, &res, 1, &d, 0x10, libs), 0);
        fclose(f);
        ck_assert(json_balanced(text));
        char why[256];
        json *doc = json_parse(text, why, sizeof why);
        ck_assert_msg(doc != NULL, "%s", why);
        const json *gpu = json_get(doc, "gpu");
        ck_assert_int_eq((int)json_number(json_get(gpu, "sms"), 0), 132);
        ck_assert_int_eq((int)json_number(json_get(gpu, "sms_used"), -1), used ? used : -1);
        json_free(doc);
        /* --from reads it back: the replayed reports say the same. */
        char path[] = "/tmp/cudalabs-smsjsonXXXXXX";
        int fd = mkstemp(path);
        ck_assert_int_ge(fd, 0);
        ck_assert_int_eq(write(fd, text, len), (ssize_t)len);
        close(fd);
        static loaded_lab labs[1];
        static lab_results back[1];
        devinfo again;
        uint64_t seed;
        double elapsed;
        int n = 0;
        ck_assert_int_eq(results_load(path, labs, back, 1, &n, &again, &seed, &elapsed, NULL, 0, why,
                                      sizeof why),
                         0);
        unlink(path);
        ck_assert_int_eq(again.sms_used, used);
        ck_assert_int_eq(again.sms, 132);
        free(text);
    }
}
END_TEST

/* With --sms N of M, each test may take M/N times as long. */
START_TEST(timeouts_grow_with_fewer_sms)
{
    grade_run run;
    memset(&run, 0, sizeof run);
    run.spec = &lab_transpose;
    run.reps = 20;
    double whole = runner_stage_timeout(&lab_transpose, 3, 20, 0);
    ck_assert(runner_timeout(&run, 3) == whole);
    run.gpu_sms = 132;
    run.sms = 33;
    ck_assert(runner_timeout(&run, 3) == 4 * whole);
}
END_TEST

static void write_run(const char *dir, int k, const char *gpu)
{
    char path[256];
    snprintf(path, sizeof path, "%s/run-%d.json", dir, k);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fprintf(f, "{\"seed\": \"0x%x\", \"gpu\": %s, \"labs\": []}\n", k, gpu);
    fclose(f);
}

/* --stability never merges runs made on different SMs in silence. */
START_TEST(stability_warns_of_other_sms)
{
    char dir[] = "/tmp/cudalabs-smsXXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    write_run(dir, 1, "{\"name\": \"NVIDIA H200\", \"sms\": 132}");
    write_run(dir, 2, "{\"name\": \"NVIDIA H200\", \"sms\": 132, \"sms_used\": 40}");
    char *text = NULL, err[256] = "";
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    analytics_stability(dir, f, err, sizeof err);
    fclose(f);
    ck_assert_msg(strstr(text, "warning: these runs were not all made on the same GPU and SMs "
                               "(NVIDIA H200, and NVIDIA H200 (40 of 132 SMs, --sms))") != NULL,
                  "%s", text);
    free(text);
    ck_assert_int_eq(remove_tree(dir), 0);
}
END_TEST

Suite *make_green_suite(void)
{
    Suite *s = suite_create("green");
    TCase *tc = tcase_create("green");
    tcase_add_test(tc, counts_a_green_context_can_have);
    tcase_add_test(tc, green_context_made_and_set_current);
    tcase_add_test(tc, green_count_refused_before_anything_is_made);
    tcase_add_test(tc, driver_without_green_contexts);
    tcase_add_test(tc, device_line_says_which_sms);
    tcase_add_test(tc, json_records_sms_used);
    tcase_add_test(tc, timeouts_grow_with_fewer_sms);
    tcase_add_test(tc, stability_warns_of_other_sms);
    suite_add_tcase(s, tc);
    return s;
}
