#define _GNU_SOURCE /* readlink */
#include <stdio.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../ceiling.h"
#include "../decide.h"
#include "../labs/lab_util.h"
#include "../results.h"
#include "../runner.h"
#include "tests.h"

extern const lab_spec lab_transpose;

static test_record running(int phase, int size)
{
    test_record t;
    memset(&t, 0, sizeof t);
    t.state = STATE_RUNNING;
    t.graded = 1;
    t.phase = phase;
    t.size = size;
    return t;
}

/* The kernels of a stage, gathered over its calls: each name once, whole
 * names only, and never past the end of the list. */
START_TEST(kernel_names_merge)
{
    char list[32] = "";
    ck_assert_int_eq(results_merge_names(list, sizeof list, "_Z1av,_Z1bv"), 0);
    ck_assert_str_eq(list, "_Z1av,_Z1bv");
    ck_assert_int_eq(results_merge_names(list, sizeof list, "_Z1bv,_Z1av"), 0);
    ck_assert_str_eq(list, "_Z1av,_Z1bv");
    /* a prefix of a known name is new */
    ck_assert_int_eq(results_merge_names(list, sizeof list, "_Z1a"), 0);
    ck_assert_str_eq(list, "_Z1av,_Z1bv,_Z1a");
    /* no room: left out, and counted (the list is then partial) */
    ck_assert_int_eq(results_merge_names(list, sizeof list, "a_much_longer_kernel_name,_Z1av"), 1);
    ck_assert_str_eq(list, "_Z1av,_Z1bv,_Z1a");
    ck_assert_int_eq(results_merge_names(list, sizeof list, ""), 0);
    ck_assert_str_eq(list, "_Z1av,_Z1bv,_Z1a");
    /* a name longer than any list holds: counted, not cut to a prefix */
    char big[480] = "", longer[700];
    memset(longer, 'k', sizeof longer - 1);
    longer[sizeof longer - 1] = '\0';
    ck_assert_int_eq(results_merge_names(big, sizeof big, longer), 1);
    ck_assert_str_eq(big, "");
    /* whole names only: first, middle, last; not a prefix, a suffix or "" */
    ck_assert(results_names_has(list, "_Z1av", 5));
    ck_assert(results_names_has(list, "_Z1bv", 5));
    ck_assert(results_names_has(list, "_Z1a", 4));
    ck_assert(!results_names_has(list, "_Z1", 3));
    ck_assert(!results_names_has(list, "1bv", 3));
    ck_assert(!results_names_has(list, "", 0));
}
END_TEST

/* A record lists the kernels of a stage written as templates with many
 * parameters, as lab 7's TF32 stage may be: eight calls' worth of names of 84
 * characters each, apart, fit without the list being cut (a cut list has every
 * kernel of the library answer for the stage, BF16 ones included). */
START_TEST(record_holds_long_template_names)
{
    test_record t;
    memset(&t, 0, sizeof t);
    for (int call = 0; call < 2; call++) {
        char names[8 * 90] = "";
        for (int k = 0; k < 8; k++) {
            char one[90];
            snprintf(one, sizeof one, "%s_Z20tf32_wgmma_ws_kernelILi128ELi256ELi32ELi4ELi2ELb%dELb%dEEvPKfS1_Pf%0*d",
                     k ? "," : "", k & 1, call, 16, k);
            strcat(names, one);
        }
        ck_assert_int_eq(results_merge_names(t.kernels, sizeof t.kernels, names), 0);
    }
    ck_assert_int_eq((int)strlen(t.kernels), 16 * 84 + 15);
}
END_TEST

START_TEST(timeout_names_size_and_limit)
{
    test_record t = running(PHASE_RUN, 3);
    decide_after_check(&t, CK_FAILURE, "Test timeout expired", 40, "1000 x 1003");
    ck_assert_int_eq(t.v, V_TIMEOUT);
    ck_assert_int_eq(t.state, STATE_FINISHED);
    ck_assert_ptr_nonnull(strstr(t.msg, "40 s"));
    ck_assert_ptr_nonnull(strstr(t.msg, "1000 x 1003"));
    ck_assert_ptr_nonnull(strstr(t.msg, "running the stage"));
}
END_TEST

START_TEST(signal_is_named)
{
    test_record t = running(PHASE_CHECK, 0);
    decide_after_check(&t, CK_FAILURE, "Received signal 11 (Segmentation fault)", 40, "1 x 1");
    ck_assert_int_eq(t.v, V_CRASH);
    ck_assert_ptr_nonnull(strstr(t.msg, "signal 11"));
    ck_assert_ptr_nonnull(strstr(t.msg, "Segmentation fault"));
}
END_TEST

START_TEST(early_exit)
{
    test_record t = running(PHASE_RUN, 2);
    decide_after_check(&t, CK_FAILURE, "Early exit with return value 0", 40, "1 x 4097");
    ck_assert_int_eq(t.v, V_EARLY_EXIT);
    ck_assert_ptr_nonnull(strstr(t.msg, "exit()"));
    /* A pass that the grader never recorded is an early exit too. */
    test_record u = running(PHASE_RUN, 2);
    decide_after_check(&u, CK_PASS, "Passed", 40, "");
    ck_assert_int_eq(u.v, V_EARLY_EXIT);
}
END_TEST

START_TEST(finished_record_stands)
{
    test_record t = running(PHASE_RUN, 2);
    t.state = STATE_FINISHED;
    t.v = V_WRONG;
    strcpy(t.msg, "mine");
    decide_after_check(&t, CK_FAILURE, "Test timeout expired", 40, "");
    ck_assert_int_eq(t.v, V_WRONG);
    ck_assert_str_eq(t.msg, "mine");
}
END_TEST

START_TEST(points)
{
    test_record t = running(PHASE_RUN, 0);
    t.v = V_PASS;
    ck_assert_int_eq(results_points(&lab_transpose, 3, TEST_CORRECT, &t), 10);
    ck_assert_int_eq(results_points(&lab_transpose, 3, TEST_PERF, &t), 10);
    ck_assert_int_eq(results_points(&lab_transpose, 0, TEST_CORRECT, &t), 0);
    t.v = V_SLOW;
    ck_assert_int_eq(results_points(&lab_transpose, 3, TEST_PERF, &t), 0);
    t.v = V_PASS;
    t.graded = 0;
    ck_assert_int_eq(results_points(&lab_transpose, 3, TEST_PERF, &t), 0);
}
END_TEST

/* The page a child writes is the one the parent reads. In the child it is
 * read-only for good: the grader's writes go through results_close, with no
 * mprotect, and a direct write faults. */
START_TEST(shared_page_is_protected)
{
    lab_results *r = results_map(1);
    ck_assert_ptr_nonnull(r);
    ck_assert_uint_eq(r->magic, RESULTS_MAGIC);
    ck_assert_int_eq(r->t[0][0].size, -1);
    pid_t pid = fork();
    if (pid == 0) {
        results_enter_child();
        test_record *own = results_own(&r->t[2][1]);
        results_open();
        own->v = V_SLOW;
        results_close();
        void *p;
        size_t bytes;
        if (results_sealed_region(&p, &bytes) != 0 || p != (void *)r || bytes < sizeof *r)
            _exit(4);
        r->t[2][1].v = V_PASS; /* must fault: the page is read-only */
        _exit(0);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    ck_assert_msg(WIFSIGNALED(st), "status %d", st);
    ck_assert_int_eq(WTERMSIG(st), SIGSEGV);
    ck_assert_int_eq(r->t[2][1].v, V_SLOW);
    results_unmap(r, 1);
}
END_TEST


/* A run of six labs: the results file is larger than the cap on a child's
 * files, and the child of the last lab still writes its record (it did not,
 * once: every lab past the 64 KB mark looked like an early exit). */
START_TEST(last_lab_record_under_the_file_limit)
{
    enum { LABS = 6 };
    lab_results *r = results_map(LABS);
    ck_assert_ptr_nonnull(r);
    ck_assert_uint_gt(results_region_size(), RUNNER_OUTPUT_CAP);
    ck_assert_uint_ge(runner_output_cap(), results_region_size());
    pid_t pid = fork();
    if (pid == 0) {
        results_enter_child();
        test_record *own = results_own(&r[LABS - 1].t[LAB_MAX_STAGES - 1][1]);
        signal(SIGXFSZ, SIG_IGN);
        struct rlimit fsize = {runner_output_cap(), runner_output_cap()};
        setrlimit(RLIMIT_FSIZE, &fsize); /* as the grading child sets it */
        results_open();
        own->v = V_SLOW;
        results_close();
        _exit(0);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    ck_assert_int_eq(r[LABS - 1].t[LAB_MAX_STAGES - 1][1].v, V_SLOW);
    results_unmap(r, LABS);
}
END_TEST

/* The grader's libraries are loaded before a lab library; one missing is
 * said, with what to do. The test runner of `make test` has none beside it;
 * the one of `make coverage` has copies (then they load). */
START_TEST(preload_names_what_is_missing)
{
    char exe[4096], devcheck[4200];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    ck_assert_int_gt(len, 0);
    exe[len] = '\0';
    *strrchr(exe, '/') = '\0';
    snprintf(devcheck, sizeof devcheck, "%s/build/ceilings/devcheck.so", exe);
    char err[512] = "";
    if (access(devcheck, F_OK) == 0) {
        ck_assert_msg(ceiling_preload(1, err, sizeof err) == 0, "%s", err);
    } else {
        ck_assert_int_eq(ceiling_preload(1, err, sizeof err), -1);
        ck_assert_msg(strstr(err, "build/ceilings/devcheck.so") && strstr(err, "run make again"),
                      "%s", err);
    }
    /* A ceiling library that is never built: named, with what to do. */
    const char *syms[] = {"devcheck_scatter"};
    void *fns[1];
    err[0] = '\0';
    ck_assert_int_eq(ceiling_load("no_such_ceiling", syms, fns, 1, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "build/ceilings/no_such_ceiling.so (") &&
                      strstr(err, "): run make again to build it"),
                  "%s", err);
}
END_TEST

/* Whose a SETUP ERROR is: before the library, the grader's; out of memory,
 * the grader's too (another program may hold it), and said as it was. */
START_TEST(setup_faults_settled)
{
    extern const lab_spec lab_transpose;
    static lab_results r;
    memset(&r, 0, sizeof r);
    test_record *early = &r.t[1][0], *oom = &r.t[2][0], *host = &r.t[3][1];
    early->graded = oom->graded = host->graded = 1;
    early->v = oom->v = host->v = V_SETUP_ERROR;
    strcpy(early->msg, "could not start CUDA: cudaErrorNoDevice");
    strcpy(oom->msg, "the grader could not allocate the output buffer: "
                     "cudaErrorMemoryAllocation (out of memory)");
    strcpy(host->msg, "out of host memory for timing");
    oom->after_library = host->after_library = 1;
    oom->fault = host->fault = FAULT_SUBMISSION; /* whatever it was, settled anew */
    runner_settle_faults(&lab_transpose, &r);
    ck_assert_int_eq(early->fault, FAULT_GRADER);
    ck_assert_int_eq(oom->fault, FAULT_GRADER);
    ck_assert_int_eq(host->fault, FAULT_GRADER);
    ck_assert_str_eq(host->msg, "out of host memory for timing");
    ck_assert(runner_memory_fault(oom->msg) && !runner_memory_fault(early->msg));
    /* Lab 5's host buffers, pinned or shared with the witness: the machine's. */
    ck_assert(runner_memory_fault("the grader could not pin its 128.0 MiB pinned buffers, shared "
                                  "with its timing witness (cudaHostRegister: invalid argument); "
                                  "grade with CUDA_LABS_WITNESS=0 on this machine."
                                  LAB_NOT_YOURS));
}
END_TEST

/* The sandbox's SIGSYS with the grader's handler taken away: still REJECTED. */
START_TEST(sigsys_is_rejected)
{
    test_record t;
    memset(&t, 0, sizeof t);
    t.phase = PHASE_RUN;
    decide_after_check(&t, CK_FAILURE, "Received signal 31 (Bad system call)", 10, "1x1");
    ck_assert_int_eq(t.v, V_REJECTED);
    ck_assert_str_eq(verdict_name(t.v), "REJECTED");
    ck_assert_ptr_nonnull(strstr(t.msg, "system call the grader refuses"));
    ck_assert_ptr_nonnull(strstr(t.msg, "while running the stage at 1x1"));
}
END_TEST

START_TEST(verdict_names)
{
    for (int v = 0; v < V_COUNT; v++)
        ck_assert_str_ne(verdict_name((verdict)v), "UNKNOWN");
    ck_assert_str_eq(verdict_name(V_NOT_WRITTEN), "NOT WRITTEN");
    ck_assert_str_eq(verdict_name((verdict)999), "UNKNOWN");
}
END_TEST

Suite *make_results_suite(void)
{
    Suite *s = suite_create("results");
    TCase *tc = tcase_create("results");
    tcase_add_test(tc, timeout_names_size_and_limit);
    tcase_add_test(tc, kernel_names_merge);
    tcase_add_test(tc, record_holds_long_template_names);
    tcase_add_test(tc, signal_is_named);
    tcase_add_test(tc, early_exit);
    tcase_add_test(tc, finished_record_stands);
    tcase_add_test(tc, points);
    tcase_add_test(tc, shared_page_is_protected);
    tcase_add_test(tc, last_lab_record_under_the_file_limit);
    tcase_add_test(tc, preload_names_what_is_missing);
    tcase_add_test(tc, setup_faults_settled);
    tcase_add_test(tc, sigsys_is_rejected);
    tcase_add_test(tc, verdict_names);
    suite_add_tcase(s, tc);
    return s;
}
