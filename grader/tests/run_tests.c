/* run_tests.c: `make test`. Runs every suite; the GPU suites only when a GPU
 * answers, and otherwise counts their tests as skipped, never as passed. A
 * test that finds at run time that it cannot run here (Slurm will not start)
 * records a skip with test_skip(): it is taken off the passed tests (Check's
 * own summary line still counts it among its checks). The last line is
 * "tests: N passed, N failed, N skipped". With a GPU, the suites that need
 * none run in a second process at the same time (see cpu_side_start). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests.h"

/* The suites that need no GPU, in the order they run. */
static Suite *(*const cpu_suites[])(void) = {
    make_rng_suite,       make_stats_suite,    make_compare_suite,    make_options_suite,
    make_green_suite,
    make_results_suite,   make_decide_suite,   make_witness_suite,    make_report_suite,
    make_formats_suite,
    make_config_suite,    make_analytics_suite, make_pictures_suite,  make_platforms_suite,
    make_elfsym_suite,    make_sandbox_suite,  make_policy_suite,     make_labs_suite,
    make_lab_by_lab_suite, make_reduce_suite,  make_shuffle_suite,    make_gemm_suite,
    make_hopper_suite,
    make_conv_suite,      make_streams_suite,  make_sass_suite,       make_launch_trace_suite,
    make_hostparts_suite, make_grade_suite,    make_batch_suite,      make_integrity_suite,
    make_numbers_suite,   make_lablist_suite,  make_arch_suite,     make_fakegpu_suite,
};
#define N_CPU_SUITES (sizeof cpu_suites / sizeof cpu_suites[0])

static SRunner *cpu_runner(void)
{
    SRunner *sr = srunner_create(cpu_suites[0]());
    for (size_t i = 1; i < N_CPU_SUITES; i++)
        srunner_add_suite(sr, cpu_suites[i]());
    return sr;
}

/* Check's log files named in the environment get "-cpu" before their
 * extension in the process that runs the CPU suites, so the two processes
 * do not write the same file. */
static void rename_logs_for_cpu(void)
{
    static const char *const vars[] = {"CK_XML_LOG_FILE_NAME", "CK_TAP_LOG_FILE_NAME",
                                       "CK_LOG_FILE_NAME"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        const char *v = getenv(vars[i]);
        if (!v || !*v || strcmp(v, "-") == 0)
            continue;
        char name[4096];
        const char *dot = strrchr(v, '.'), *slash = strrchr(v, '/');
        if (dot && (!slash || dot > slash))
            snprintf(name, sizeof name, "%.*s-cpu%s", (int)(dot - v), v, dot);
        else
            snprintf(name, sizeof name, "%s-cpu", v);
        setenv(vars[i], name, 1);
    }
}

/* With a GPU, the CPU suites run in a second process at the same time as the
 * GPU suites (about 70 of make test's seconds on the H200), as they run in CI:
 * with the GPU hidden (CUDA_VISIBLE_DEVICES=-1), so none of them touches the
 * GPU while the GPU suites time kernels, and niced, so the grader's own
 * threads come first. Their output is kept in a file and printed after the
 * GPU suites' own. */
typedef struct cpu_side {
    pid_t pid;
    FILE *log;    /* the CPU suites' output */
    int counts[2]; /* run, failed; -1: unknown */
    int pipe_fd;
} cpu_side;

static int cpu_side_start(cpu_side *c)
{
    int fds[2];
    c->log = tmpfile();
    if (!c->log || pipe(fds) != 0)
        return -1;
    fflush(stdout);
    fflush(stderr);
    c->pid = fork();
    if (c->pid < 0)
        return -1;
    if (c->pid == 0) {
        close(fds[0]);
        dup2(fileno(c->log), STDOUT_FILENO);
        dup2(fileno(c->log), STDERR_FILENO);
        setenv("CUDA_VISIBLE_DEVICES", "-1", 1);
        rename_logs_for_cpu();
        if (nice(10) == -1)
            perror("nice");
        SRunner *sr = cpu_runner();
        srunner_run_all(sr, CK_NORMAL);
        int counts[2] = {srunner_ntests_run(sr), srunner_ntests_failed(sr)};
        srunner_free(sr);
        fflush(stdout);
        ssize_t w = write(fds[1], counts, sizeof counts);
        _exit(w == (ssize_t)sizeof counts ? 0 : 1);
    }
    close(fds[1]);
    c->pipe_fd = fds[0];
    return 0;
}

/* Waits for the CPU suites, prints their output, and returns their counts
 * (a process that ended without reporting counts as one failed test). */
static void cpu_side_finish(cpu_side *c, int *run, int *failed)
{
    int counts[2] = {-1, -1};
    ssize_t got = read(c->pipe_fd, counts, sizeof counts);
    close(c->pipe_fd);
    int status = 0;
    waitpid(c->pid, &status, 0);
    printf("\n---- the CPU suites, run at the same time in a second process ----\n");
    rewind(c->log);
    char buf[8192];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, c->log)) > 0)
        fwrite(buf, 1, n, stdout);
    fclose(c->log);
    if (got != (ssize_t)sizeof counts || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        printf("the CPU suites' process ended without its counts (status %d): counted as one "
               "failed test\n",
               status);
        *run = 1;
        *failed = 1;
        return;
    }
    *run = counts[0];
    *failed = counts[1];
}

int main(void)
{
    static char info[4096];
    char *argv[] = {(char *)grade_path(), "--gpu-info", NULL};
    int rc = run_command(argv, NULL, info, sizeof info);
    int skipped = 0;
    char *nl = strchr(info, '\n');
    if (nl)
        *nl = '\0';
    /* Where tests record the skips they find at run time (test_skip). */
    char skips[] = "/tmp/cudalabs-skipsXXXXXX";
    int fd = mkstemp(skips);
    if (fd >= 0) {
        close(fd);
        setenv("CUDA_LABS_TEST_SKIPS", skips, 1);
    }
    SRunner *sr = NULL;
    cpu_side cpu = {0};
    int parallel = 0;
    if (rc == 0) {
        printf("GPU tests will run: %s\n", info);
        /* "GPU: NVIDIA H200, compute capability 9.0, ...": the GPU suite leaves
         * out the labs this GPU cannot run (lab 7 off compute capability 9.0). */
        const char *cc = strstr(info, "compute capability ");
        int major, minor;
        if (cc && sscanf(cc, "compute capability %d.%d", &major, &minor) == 2) {
            char v[16];
            snprintf(v, sizeof v, "%d", 10 * major + minor);
            setenv("CUDA_LABS_TEST_GPU_CC", v, 1);
        }
        parallel = cpu_side_start(&cpu) == 0;
        if (!parallel)
            printf("the CPU suites could not start in a second process: they run first\n");
        sr = parallel ? srunner_create(make_grade_gpu_suite()) : cpu_runner();
        if (!parallel)
            srunner_add_suite(sr, make_grade_gpu_suite());
        srunner_add_suite(sr, make_batch_gpu_suite());
        srunner_add_suite(sr, make_devcheck_gpu_suite());
        srunner_add_suite(sr, make_launch_trace_gpu_suite());
        skipped = grade_gpu_left_out_count() + batch_gpu_left_out_count();
        if (skipped)
            printf("GPU tests of labs not in TEST_LABS=%s, or that this GPU cannot run: %d "
                   "skipped\n",
                   getenv("TEST_LABS") ? getenv("TEST_LABS") : "", skipped);
    } else {
        sr = cpu_runner();
        skipped = grade_gpu_test_count() + grade_gpu_left_out_count() + batch_gpu_test_count() +
                  batch_gpu_left_out_count() + devcheck_gpu_test_count() +
                  launch_trace_gpu_test_count();
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
    if (parallel) {
        int cpu_run = 0, cpu_failed = 0;
        cpu_side_finish(&cpu, &cpu_run, &cpu_failed);
        printf("CPU suites: %d run, %d failed\n", cpu_run, cpu_failed);
        run += cpu_run;
        failed += cpu_failed;
    }
    FILE *f = fd >= 0 ? fopen(skips, "r") : NULL;
    char why[1024];
    while (f && fgets(why, sizeof why, f)) {
        printf("skipped at run time: %s", why);
        run--;
        skipped++;
    }
    if (f)
        fclose(f);
    if (fd >= 0)
        unlink(skips);
    printf("tests: %d passed, %d failed, %d skipped\n", run - failed, failed, skipped);
    return failed == 0 && run > 0 ? 0 : 1;
}
